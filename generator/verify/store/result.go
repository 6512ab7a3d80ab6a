package store

import "github.com/clickgen/clickgen/generator/produce/world"

// Result is what [Verify] found: one section per table read (nil when skipped), and the
// verdict. It is the --report file's content.
type Result struct {
	// Store names what was read ("ClickHouse 18.16.1 at http://… (user …)").
	Store string `json:"store"`
	// The run the store was judged against.
	Seed             uint64        `json:"seed"`
	GeneratorVersion string        `json:"generator_version"`
	Scale            float64       `json:"scale"`
	From             int           `json:"from"`
	Days             int           `json:"days"`
	Segment          string        `json:"segment,omitempty"`
	Garbage          world.Garbage `json:"garbage"`
	ExactlyOnce      bool          `json:"exactly_once"`
	Tables           Tables        `json:"tables"`
	// Columns is what was compared of the events and orders tables: "all" (every contract
	// column a table holds) or "keys" (WatchID and ClientID, order_id and snapshot_date).
	Columns Columns `json:"columns"`
	// Expired counts the planned raw rows not judged because the raw table's retention
	// removed them (their day's events were all loaded longer ago than it keeps rows).
	Expired int `json:"expired,omitempty"`

	Events      *EventsResult `json:"events,omitempty"`
	Errors      *DigestResult `json:"errors,omitempty"`
	Raw         *DigestResult `json:"raw,omitempty"`
	Orders      *OrdersResult `json:"orders,omitempty"`
	OrderErrors *DigestResult `json:"order_errors,omitempty"`
	Marts       *MartsResult  `json:"marts,omitempty"`

	// OK says that every table read agrees with the inventory and was read whole.
	OK bool `json:"ok"`
}

// TableHead is what every table's section says first.
type TableHead struct {
	Table string `json:"table"`
	// Engine is the table's engine as the probe found it, and Reads what a Distributed,
	// Merge or Buffer table reads.
	Engine string `json:"engine,omitempty"`
	Reads  string `json:"reads,omitempty"`
	// Cluster is the cluster a Distributed table reads, and Shards its shards (with their
	// replicas) and the rows read from each: every shard is read, or verify fails.
	Cluster string      `json:"cluster,omitempty"`
	Shards  []ShardRows `json:"shards,omitempty"`
	// Error says why the table could not be read (it does not exist, lacks a column verify
	// keys on or has it of another type, kept changing): a difference in itself.
	Error string `json:"error,omitempty"`
	// Problems are differences of the table's layout found by the probe: a contract column
	// it lacks, holds with a type the stand's parse does not fill, or of a type verify does
	// not compare. Each counts as a difference; the other columns are still compared.
	Problems []string `json:"problems,omitempty"`
	// Judged are the columns compared with what the intake stores, in the order read;
	// NotJudged the table's other columns (outside the contract), listed once.
	Judged    []string `json:"judged,omitempty"`
	NotJudged []string `json:"not_judged,omitempty"`
	// Differences counts the table's differences; the list holds the first MaxListed.
	Differences int  `json:"differences"`
	Truncated   bool `json:"truncated,omitempty"`
	OK          bool `json:"ok"`
}

// Kinds of differences and of copies.
const (
	KindMissing          = "missing"           // planned, not in the store
	KindUnplanned        = "unplanned"         // in the store, not planned for the range
	KindChanged          = "changed"           // a planned WatchID with another ClientID
	KindCopies           = "copies"            // more than one row (a difference only with ExactlyOnce)
	KindMisclassified    = "misclassified"     // an error row of another error_class than planned
	KindStale            = "stale"             // an order whose latest planned version is missing
	KindUnplannedVersion = "unplanned_version" // an order version of a snapshot of the range that did not carry it
	KindClassCount       = "class_count"       // a mart class count other than the inventory's
	KindOtherClasses     = "other_classes"     // mart rows under classes the stand has no word for
	KindOnShards         = "on_shards"         // a WatchID or order_id held on more than one shard: FINAL cannot collapse it
)

// ColumnDiff counts, for one column and date (snapshot date for orders), the rows whose
// value differs from what the intake stores from the planned message, with a few examples.
type ColumnDiff struct {
	Column   string         `json:"column"`
	Date     string         `json:"date"`
	Rows     int            `json:"rows"`
	Examples []ValueExample `json:"examples"`
}

// ValueExample is one row's differing value: its key, what the store holds and what the
// intake stores from the planned message, as text (strings quoted, cut and escaped).
type ValueExample struct {
	Key     string `json:"key"`
	Held    string `json:"held"`
	Planned string `json:"planned"`
}

// MaxExamples is how many examples a ColumnDiff keeps.
const MaxExamples = 3

// EventCounts counts one date of the events table, or all of them.
type EventCounts struct {
	// Planned is the distinct planned WatchIDs (the inventory's ods_events); Present those
	// found, Missing those not found.
	Planned int `json:"planned"`
	Present int `json:"present"`
	Missing int `json:"missing"`
	// Unplanned is the distinct WatchIDs found that were not planned for the date.
	Unplanned int `json:"unplanned"`
	// Changed is the planned WatchIDs with a row whose judged values differ from what the
	// intake stores from the planned message (even when an equal row is there too).
	Changed int `json:"changed"`
	// Copies is the rows beyond the first of a WatchID: what FINAL collapses.
	Copies int `json:"copies"`
	// OnShards is the WatchIDs held on more than one shard of a Distributed table's cluster:
	// FINAL collapses within a shard only, so each is counted once per shard.
	OnShards int `json:"on_shards,omitempty"`
	// Rows is every row read.
	Rows int64 `json:"rows"`
}

// Distinct is the distinct WatchIDs found: what count() FINAL says.
func (c EventCounts) Distinct() int { return c.Present + c.Unplanned }

func (c *EventCounts) add(o EventCounts) {
	c.Planned += o.Planned
	c.Present += o.Present
	c.Missing += o.Missing
	c.Unplanned += o.Unplanned
	c.Changed += o.Changed
	c.Copies += o.Copies
	c.OnShards += o.OnShards
	c.Rows += o.Rows
}

// EventDate is one EventDate of the events table.
type EventDate struct {
	Day  int    `json:"day"`
	Date string `json:"date"`
	EventCounts
	// Shards is the rows of the date read from each shard, for a Distributed table.
	Shards []ShardRows `json:"shards,omitempty"`
	OK     bool        `json:"ok"`
}

// EventsResult is the check of the events table: per EventDate, distinct WatchIDs as FINAL
// counts them against the planned accepted events, and every planned WatchID present.
type EventsResult struct {
	TableHead
	Dates []EventDate `json:"dates"`
	Total EventCounts `json:"total"`
	// Columns counts the changed rows per judged column and date, with examples.
	Columns []ColumnDiff `json:"columns,omitempty"`
	Diffs   []EventDiff  `json:"list"`
}

// EventDiff is one WatchID that does not reconcile.
type EventDiff struct {
	Kind     string `json:"kind"`
	Date     string `json:"date"`
	WatchID  uint64 `json:"watch_id"`
	ClientID uint64 `json:"client_id"`
	// PlannedClientID is the ClientID planned for a changed row.
	PlannedClientID uint64 `json:"planned_client_id,omitempty"`
	// Columns names the columns a changed WatchID's rows differ in, comma-separated.
	Columns string `json:"columns,omitempty"`
	// Rows is how many rows the store holds of the WatchID.
	Rows int `json:"rows"`
	// Shards names, for on_shards, the shards holding the WatchID, comma-separated.
	Shards string `json:"shards,omitempty"`
}

// DigestCounts counts the rows of a raw or error table of one day (or snapshot) and class.
type DigestCounts struct {
	// Planned is the rows the run leaves (messages with a value, redeliveries included, for
	// the raw table; refused messages for an error table); Present those found, Missing
	// those not found.
	Planned int `json:"planned"`
	Present int `json:"present"`
	Missing int `json:"missing"`
	// Expired is, of the missing raw rows, those of a day loaded longer ago than the raw
	// table keeps rows: gone by its TTL, not lost.
	Expired int `json:"expired,omitempty"`
	// Misclassified is the planned rows found under another error_class.
	Misclassified int `json:"misclassified,omitempty"`
	// Copies is the rows found beyond the planned number of a message.
	Copies int `json:"copies"`
	// Redelivered and RedeliveredPresent count, of the raw table's planned rows, the
	// redeliveries (further copies of clean messages, sent on purpose) and those found.
	Redelivered        int `json:"redelivered,omitempty"`
	RedeliveredPresent int `json:"redelivered_present,omitempty"`
}

func (c *DigestCounts) add(o DigestCounts) {
	c.Redelivered += o.Redelivered
	c.RedeliveredPresent += o.RedeliveredPresent
	c.Planned += o.Planned
	c.Present += o.Present
	c.Missing += o.Missing
	c.Expired += o.Expired
	c.Misclassified += o.Misclassified
	c.Copies += o.Copies
}

// DigestUnit is one day's (raw and error tables of hits) or snapshot's (order errors) rows.
type DigestUnit struct {
	Day  int    `json:"day"`
	Date string `json:"date"`
	DigestCounts
	// ByClass splits an error table's counts by the planned error_class.
	ByClass map[string]DigestCounts `json:"by_class,omitempty"`
	OK      bool                    `json:"ok"`
}

// DigestResult is the check of a raw or error table: every row matched, by the [SipHash64]
// of its raw bytes, with the message it must come from.
type DigestResult struct {
	TableHead
	// Classes lists an error table's classes in the intake's order; empty for raw.
	Classes []string     `json:"classes,omitempty"`
	Units   []DigestUnit `json:"units"`
	Total   DigestCounts `json:"total"`
	// Unplanned counts the rows that match no planned message and name a date of the range
	// or none; OtherDates those that name a date outside the range (another run's rows,
	// not judged).
	Unplanned  int          `json:"unplanned"`
	OtherDates int          `json:"other_dates"`
	Diffs      []DigestDiff `json:"list"`
	Notes      []string     `json:"notes,omitempty"`
}

// DigestDiff is one raw or error row (or planned message) that does not reconcile.
type DigestDiff struct {
	Kind string `json:"kind"`
	// Day and Date are the planned message's day (or snapshot), −1 and "" for unplanned rows.
	Day  int    `json:"day"`
	Date string `json:"date,omitempty"`
	// What the planned message is: clean, redelivered, or its garbage class and kind.
	What string `json:"what,omitempty"`
	// Class is the planned error_class, GotClass the store's.
	Class    string `json:"class,omitempty"`
	GotClass string `json:"got_class,omitempty"`
	// Hash is the SipHash64 of the raw bytes, in decimal as ClickHouse prints sipHash64
	// (SELECT raw FROM t WHERE sipHash64(raw) = … finds the row).
	Hash string `json:"siphash64"`
	// Hint is the date the row's raw JSON names, for unplanned rows.
	Hint string `json:"hint,omitempty"`
	Rows int    `json:"rows"`
}

// OrderCounts counts the orders table.
type OrderCounts struct {
	// Planned is the distinct order_ids the run's snapshots carry (the inventory's
	// ods_orders); Present those whose FINAL version is the planned one.
	Planned int `json:"planned"`
	Present int `json:"present"`
	Missing int `json:"missing"`
	// Stale is the planned orders whose latest version is missing (FINAL keeps an older).
	Stale int `json:"stale"`
	// Newer is the planned orders whose FINAL version comes from a snapshot after the
	// range's last (the store holds a later run): not judged.
	Newer int `json:"newer"`
	// Unplanned is the order_ids found with a version of a snapshot date of the range that
	// were not planned; UnplannedVersions the planned orders with a version of such a date
	// that the run's snapshot of that date did not carry.
	Unplanned         int `json:"unplanned"`
	UnplannedVersions int `json:"unplanned_versions"`
	// OtherDates is the order_ids found, not planned, all of whose versions are of dates
	// outside the range.
	OtherDates int `json:"other_dates"`
	// Changed is the planned versions (order_id, snapshot_date) with a row whose judged
	// values differ from what the intake stores from the snapshot's row.
	Changed int `json:"changed"`
	// Copies is the rows beyond the first of an (order_id, snapshot_date), equal to it.
	Copies int `json:"copies"`
	// OnShards is the order_ids with versions on more than one shard of a Distributed
	// table's cluster: FINAL collapses within a shard only, so it keeps one per shard.
	OnShards int   `json:"on_shards,omitempty"`
	Rows     int64 `json:"rows"`
}

// OrderSnapshot is one snapshot of the range.
type OrderSnapshot struct {
	Day  int    `json:"day"`
	Date string `json:"date"`
	// Rows is the snapshot's clean rows; Versions the order_ids the store holds a version of
	// this snapshot_date for (merges remove older versions, so it may be fewer).
	Rows     int `json:"rows"`
	Versions int `json:"versions"`
	// Final is the planned orders whose latest version is this snapshot; FinalPresent those
	// the store's FINAL keeps at it.
	Final        int  `json:"final"`
	FinalPresent int  `json:"final_present"`
	OK           bool `json:"ok"`
}

// OrdersResult is the check of the orders table: every planned order present at the
// version FINAL keeps (its latest snapshot), per snapshot_date.
type OrdersResult struct {
	TableHead
	Snapshots []OrderSnapshot `json:"snapshots"`
	Total     OrderCounts     `json:"total"`
	// Columns counts the changed rows per judged column and snapshot_date, with examples.
	Columns []ColumnDiff `json:"columns,omitempty"`
	Diffs   []OrderDiff  `json:"list"`
}

// OrderDiff is one order that does not reconcile.
type OrderDiff struct {
	Kind    string `json:"kind"`
	OrderID string `json:"order_id"`
	// Date is the planned snapshot_date of its FINAL version; Got the store's.
	Date string `json:"date,omitempty"`
	Got  string `json:"got,omitempty"`
	Rows int    `json:"rows"`
	// Columns names the columns a changed version's rows differ in, comma-separated.
	Columns string `json:"columns,omitempty"`
	// Shards names, for on_shards, the shards holding versions of the order, and Versions
	// which (snapshot_date@shard), each comma-separated.
	Shards   string `json:"shards,omitempty"`
	Versions string `json:"versions,omitempty"`
}

// MartDay is one closed day of the marts view.
type MartDay struct {
	Day  int            `json:"day"`
	Date string         `json:"date"`
	Want map[string]int `json:"want"`
	Got  map[string]int `json:"got"`
	// Other sums the rows under classes neither the inventory nor the stand has a word for.
	Other *OtherClasses `json:"other,omitempty"`
	OK    bool          `json:"ok"`
}

// OtherClasses sums the rows of one day under unknown classes: how many rows, how many
// distinct classes, and one of them (cut and escaped).
type OtherClasses struct {
	Rows     int    `json:"rows"`
	Distinct int    `json:"distinct"`
	Example  string `json:"example"`
}

// MartsResult is the check of the marts view: order counts per mismatch_class of every
// closed day of the range against the inventory's days[].orders.
type MartsResult struct {
	TableHead
	Days  []MartDay  `json:"days"`
	Diffs []MartDiff `json:"list"`
	Notes []string   `json:"notes,omitempty"`
}

// MartDiff is one class count of a closed day other than the inventory's.
type MartDiff struct {
	Kind  string `json:"kind"`
	Date  string `json:"date"`
	Class string `json:"class"`
	Want  int    `json:"want"`
	Got   int    `json:"got"`
	// Distinct is, for other_classes, how many distinct classes the rows hold.
	Distinct int `json:"distinct,omitempty"`
}
