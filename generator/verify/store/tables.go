package store

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// Range is the run a store is judged against: run days [From, From+Days) of a world, played
// with Garbage (malformed messages and redeliveries), by the share Segment of it. It is
// world.Range, the one value the units, the inventory and reconciliation take too.
type Range = world.Range

// Tables names what is read; an empty name skips that check. Column names are the wire
// contract's and the stand's: WatchID, EventDate, ClientID (and _load_ts, to tell expired
// raw rows) in the events table; raw and error_class in the error tables; raw in the raw
// table; order_id and snapshot_date in the orders table; order_day and mismatch_class in the
// marts view.
type Tables struct {
	// Events holds the typed events (ReplacingMergeTree by WatchID, counted as FINAL counts).
	Events string `json:"events"`
	// Errors holds the hits the strict intake refused, with their error_class.
	Errors string `json:"errors"`
	// Raw holds one row per hits message with a value (redeliveries included), as delivered.
	Raw string `json:"raw"`
	// Orders holds the order versions (ReplacingMergeTree(snapshot_date) by order_id).
	Orders string `json:"orders"`
	// OrderErrors holds the order rows the strict intake refused, with their error_class.
	OrderErrors string `json:"order_errors"`
	// Marts is the reconciliation of purchases with orders: one row per order, its
	// order_day and mismatch_class.
	Marts string `json:"marts"`
}

// StandTables returns the stand's names, read from its DDL (repository
// dementev-dev/clickstream-data-platform, commit 20071c565fecca8be12108d1dac4725437a9d813:
// sql/ddl/20-ods-tables.sql creates ods.event_dist, ods.event_errors_dist, ods.order_dist and
// ods.order_errors_dist, the Distributed faces of the *_rep tables; sql/ddl/60-dm-views.sql
// creates dm.purchase_vs_orders_v over dm.purchase_vs_orders_dist (sql/ddl/55-dm-tables.sql);
// and, at commit 11a494f5504bfb56122f963fded41832d3658c10, sql/ddl/10-stg-tables.sql creates
// stg.hits_raw_dist). Their columns are the contract's names with the types these queries
// read: WatchID and ClientID UInt64, EventDate Date, _load_ts DateTime64(3, 'UTC'), raw
// String, error_class LowCardinality(String), order_id String, snapshot_date Date, order_day
// Date, mismatch_class LowCardinality(String).
func StandTables() Tables {
	return Tables{
		Events:      "ods.event_dist",
		Errors:      "ods.event_errors_dist",
		Raw:         "stg.hits_raw_dist",
		Orders:      "ods.order_dist",
		OrderErrors: "ods.order_errors_dist",
		Marts:       "dm.purchase_vs_orders_v",
	}
}

// checkName refuses a table name that is not "table" or "database.table" of plain
// identifiers: the names are spliced into SQL.
func checkName(name string) error {
	parts := strings.Split(name, ".")
	if len(parts) > 2 {
		return fmt.Errorf("table %q: want database.table", name)
	}
	for _, p := range parts {
		if !isIdent(p) {
			return fmt.Errorf("table %q: %q is not a plain identifier (letters, digits, _)", name, p)
		}
	}
	return nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Validate checks every non-empty name.
func (t Tables) Validate() error {
	var errs []error
	for _, n := range []string{t.Events, t.Errors, t.Raw, t.Orders, t.OrderErrors, t.Marts} {
		if n != "" {
			if err := checkName(n); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Columns says what verify compares of the events and orders tables.
type Columns string

// The values of [Columns].
const (
	// ColumnsAll compares every column a table holds whose name is a field of the wire
	// contract (the 47 hit columns, the 11 order keys) with the value the intake stores from
	// the planned message, as the column's type holds it. The default.
	ColumnsAll Columns = "all"
	// ColumnsKeys compares the keys only: WatchID and ClientID of an event, order_id and
	// snapshot_date of an order version.
	ColumnsKeys Columns = "keys"
)

// String is c as a flag shows it.
func (c *Columns) String() string {
	if *c == "" {
		return string(ColumnsAll)
	}
	return string(*c)
}

// Set reads "all" or "keys" (a flag's value).
func (c *Columns) Set(s string) error { return c.UnmarshalText([]byte(s)) }

// Type names the values a flag takes.
func (c *Columns) Type() string { return "all|keys" }

// UnmarshalText reads "all" or "keys".
func (c *Columns) UnmarshalText(b []byte) error {
	switch Columns(b) {
	case ColumnsAll, ColumnsKeys:
		*c = Columns(b)
		return nil
	}
	return fmt.Errorf("columns %q: want all or keys", storeText(b))
}

// Defaults of [Options].
const (
	DefaultRawRetention = 72 * time.Hour
	DefaultQuiet        = 30 * time.Second
	DefaultPoll         = 2 * time.Second
	DefaultMaxListed    = 1_000_000
	DefaultProgress     = 5 * time.Second
)

// Options tune [Verify]. The zero value reads every table of Tables (none when empty: set
// Tables to [StandTables] for the stand), judges at once, and counts copies as copies.
type Options struct {
	Tables Tables
	// Columns says what is compared of the events and orders tables; "" is ColumnsAll.
	Columns Columns
	// ExactlyOnce makes copies (more than one row of a WatchID, of an order version, of a raw
	// or error row) differences, for stores that must never hold them; planned
	// redeliveries are copies too.
	ExactlyOnce bool
	// Wait, when positive, polls the tables' row counts until they reach what the inventory
	// says or stop changing for Quiet, at most Wait, before judging.
	Wait time.Duration
	// Quiet is how long unchanged counts end a wait, overriding the default of DefaultQuiet;
	// Poll is how often they are read, overriding DefaultPoll.
	Quiet, Poll time.Duration
	// RawRetention is how long the raw table keeps rows (the stand's TTL: 3 days), overriding
	// the default of DefaultRawRetention: raw rows of a day whose events were loaded longer
	// ago than that are expired when missing, not lost.
	RawRetention time.Duration
	// MaxListed bounds the differences listed per table, overriding DefaultMaxListed; the
	// rest are counted. It keeps a whole missing day at ×100 from holding millions of rows.
	MaxListed int
	// Workers digests the planned messages on this many goroutines; 0 means GOMAXPROCS.
	Workers int
	// Logf, if set, hears what is being done: a line per table and date, and during a long
	// read or wait a line every ProgressEvery (default DefaultProgress).
	Logf          func(format string, args ...any)
	ProgressEvery time.Duration
	// Names, if set, names the settings in the lines Logf hears as the caller's inputs name
	// them (tables.events … tables.marts, the fields of Tables by their JSON names: a line
	// says that an empty tables.marts skips the marts); nil keeps these keys.
	Names field.Names
}

func (o Options) withDefaults() Options {
	if o.Quiet <= 0 {
		o.Quiet = DefaultQuiet
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.RawRetention <= 0 {
		o.RawRetention = DefaultRawRetention
	}
	if o.MaxListed <= 0 {
		o.MaxListed = DefaultMaxListed
	}
	if o.Columns == "" {
		o.Columns = ColumnsAll
	}
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = DefaultProgress
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return o
}

// Validate checks the table names and refuses a negative wait.
func (o Options) Validate() error {
	if o.Wait < 0 {
		return fmt.Errorf("store: wait %v is negative", o.Wait)
	}
	if o.Columns != "" && o.Columns != ColumnsAll && o.Columns != ColumnsKeys {
		return fmt.Errorf("store: columns %q: want all or keys", storeText([]byte(o.Columns)))
	}
	return o.Tables.Validate()
}
