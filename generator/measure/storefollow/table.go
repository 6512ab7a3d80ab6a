package storefollow

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/schema"
)

// Kind is which topic's messages a table holds.
type Kind uint8

// The kinds of table a follower reads.
const (
	Hits   Kind = iota + 1 // a WatchID column: topic hits
	Orders                 // an order_id column: topic orders
)

func (k Kind) String() string {
	switch k {
	case Hits:
		return "hits"
	case Orders:
		return "orders"
	}
	return "nothing"
}

// Column is the key column of a table of kind k: WatchID, order_id.
func (k Kind) Column() string {
	switch k {
	case Hits:
		return "WatchID"
	case Orders:
		return "order_id"
	}
	return ""
}

// dateColumn is the column that says where a key lands (hits: the partition) or which version
// it is (orders).
func (k Kind) dateColumn() string {
	if k == Orders {
		return "snapshot_date"
	}
	return "EventDate"
}

// Table is what [Store.Describe] found of a table.
type Table struct {
	// Name is the table as given; Engine its engine (Distributed, ReplacingMergeTree, View…).
	Name, Engine string
	Kind         Kind
	// Date says the table has the kind's date column: EventDate (hits; the lookups name the
	// keys' dates, so a partitioned table reads only theirs) or snapshot_date (orders; a key is
	// seen by its own version or a later one).
	Date bool
	// LoadTime says the table has _load_ts, the time a row was loaded: only rows loaded since
	// the follower opened count.
	LoadTime bool
}

// Key is one sampled message's key: WatchID and EventDate for hits, order_id and
// snapshot_date for orders.
type Key struct {
	WatchID uint64
	OrderID string
	Date    schema.Date
}

// id is k without its date: what a row is matched by.
func (k Key) id() Key { return Key{WatchID: k.WatchID, OrderID: k.OrderID} }

// String spells k as the report lists an unseen key: "WatchID 1443058733645975 (2026-06-01)",
// `order_id "20260601-0001" (snapshot 2026-06-03)`.
func (k Key) String() string {
	if k.OrderID != "" {
		return "order_id " + strconv.Quote(k.OrderID) + " (snapshot " + k.Date.String() + ")"
	}
	return "WatchID " + strconv.FormatUint(k.WatchID, 10) + " (" + k.Date.String() + ")"
}

// Found is one row group a lookup returned: a key (orders: with the snapshot_date of the
// version found) and whether a row of it was loaded at or after the lookup's time.
type Found struct {
	Key   Key
	Fresh bool
}

// Store is what a follower asks of the server holding the table; [ClickHouse] is the one over
// ClickHouse's HTTP interface.
type Store interface {
	// Describe probes table: its engine and the columns that make it followable.
	Describe(ctx context.Context, table string) (Table, error)
	// Now is the server's clock.
	Now(ctx context.Context) (time.Time, error)
	// Lookup returns the rows of t that hold keys; loadedFrom, when t has LoadTime, is the
	// server time from which a row is fresh.
	Lookup(ctx context.Context, t Table, keys []Key, loadedFrom time.Time) ([]Found, error)
}

// ClickHouse is a [Store] read through ClickHouse's HTTP interface (generator/clickhouse):
// a Distributed table is read through, every shard answering.
type ClickHouse struct {
	Client *clickhouse.Client
}

// streamEngines are the engines a read of which consumes what a pipeline should get.
var streamEngines = []string{"Kafka", "RabbitMQ", "NATS", "FileLog", "RedisStreams", "S3Queue", "AzureQueue"}

// ErrNotFollowable is wrapped by Describe's refusals of a table that cannot be followed.
var ErrNotFollowable = errors.New("cannot be followed")

// Describe reads the table's engine from system.tables and its columns from system.columns.
func (c *ClickHouse) Describe(ctx context.Context, table string) (Table, error) {
	if err := checkName(table); err != nil {
		return Table{}, err
	}
	db, name, ok := strings.Cut(table, ".")
	dbExpr := "currentDatabase()"
	if ok {
		dbExpr = quote(db)
	} else {
		name = db
	}
	t := Table{Name: table}
	rows, err := c.Client.Query(ctx, "SELECT engine FROM system.tables WHERE database = "+dbExpr+" AND name = "+quote(name))
	if err != nil {
		return t, err
	}
	found := false
	err = readRows(rows, func() error {
		b, err := rows.String(nil)
		t.Engine, found = string(b), true
		return err
	})
	if err != nil {
		return t, err
	}
	if !found {
		return t, fmt.Errorf("table %s: %w: no such table", table, ErrNotFollowable)
	}
	for _, e := range streamEngines {
		if t.Engine == e {
			return t, fmt.Errorf("table %s: %w: its engine is %s, a stream a read would consume", table, ErrNotFollowable, e)
		}
	}
	cols := map[string]string{}
	rows, err = c.Client.Query(ctx, "SELECT name, type FROM system.columns WHERE database = "+dbExpr+" AND table = "+quote(name))
	if err != nil {
		return t, err
	}
	err = readRows(rows, func() error {
		n, err := rows.String(nil)
		if err != nil {
			return err
		}
		ty, err := rows.String(nil)
		cols[string(n)] = string(ty)
		return err
	})
	if err != nil {
		return t, err
	}
	_, hits := cols[Hits.Column()]
	_, orders := cols[Orders.Column()]
	switch {
	case hits && orders:
		return t, fmt.Errorf("table %s: %w: it has both WatchID and order_id", table, ErrNotFollowable)
	case hits:
		t.Kind = Hits
	case orders:
		t.Kind = Orders
	default:
		return t, fmt.Errorf("table %s: %w: it has neither WatchID (hits) nor order_id (orders)", table, ErrNotFollowable)
	}
	if ty := cols[t.Kind.Column()]; t.Kind == Hits && !strings.Contains(ty, "Int") || t.Kind == Orders && !strings.Contains(ty, "String") {
		return t, fmt.Errorf("table %s: %w: its %s is %s", table, ErrNotFollowable, t.Kind.Column(), ty)
	}
	t.Date = strings.Contains(cols[t.Kind.dateColumn()], "Date")
	t.LoadTime = strings.Contains(cols["_load_ts"], "DateTime")
	return t, nil
}

// Now reads the server's clock (seconds).
func (c *ClickHouse) Now(ctx context.Context) (time.Time, error) {
	rows, err := c.Client.Query(ctx, "SELECT toUInt32(now())")
	if err != nil {
		return time.Time{}, err
	}
	var now time.Time
	err = readRows(rows, func() error {
		s, err := rows.UInt32()
		now = time.Unix(int64(s), 0)
		return err
	})
	return now, err
}

// Lookup reads which of keys t holds, with one query. For hits it names the keys' dates too
// (EventDate IN …), which a table partitioned or ordered by EventDate reads only.
func (c *ClickHouse) Lookup(ctx context.Context, t Table, keys []Key, loadedFrom time.Time) ([]Found, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	sql := LookupSQL(t, keys, loadedFrom)
	rows, err := c.Client.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	var out []Found
	err = readRows(rows, func() error {
		var f Found
		var err error
		if t.Kind == Orders {
			var b []byte
			b, err = rows.String(nil)
			f.Key.OrderID = string(b)
			if err == nil {
				var d uint16
				d, err = rows.UInt16()
				f.Key.Date = schema.Date(d)
			}
		} else {
			f.Key.WatchID, err = rows.UInt64()
		}
		if err != nil {
			return err
		}
		fresh, err := rows.UInt8()
		f.Fresh = fresh == 1
		out = append(out, f)
		return err
	})
	return out, err
}

// LookupSQL is the query [ClickHouse.Lookup] sends: for hits
//
//	SELECT WatchID, toUInt8(max(_load_ts) >= toDateTime(N)) FROM t
//	WHERE EventDate IN ('2026-06-01') AND WatchID IN (1, 2) GROUP BY WatchID
//
// and for orders, one row per version (order_id, snapshot_date); without _load_ts every row
// is fresh (toUInt8(1)), without the date column its condition is left out (orders: the date
// 0).
func LookupSQL(t Table, keys []Key, loadedFrom time.Time) string {
	var b strings.Builder
	col := t.Kind.Column()
	b.WriteString("SELECT " + col)
	if t.Kind == Orders {
		if t.Date {
			b.WriteString(", snapshot_date")
		} else {
			b.WriteString(", toUInt16(0)")
		}
	}
	if t.LoadTime {
		b.WriteString(", toUInt8(max(_load_ts) >= toDateTime(" + strconv.FormatInt(loadedFrom.Unix(), 10) + "))")
	} else {
		b.WriteString(", toUInt8(1)")
	}
	b.WriteString(" FROM " + t.Name + " WHERE ")
	if t.Kind == Hits && t.Date {
		seen := map[schema.Date]bool{}
		b.WriteString("EventDate IN (")
		for _, k := range keys {
			if !seen[k.Date] {
				if len(seen) > 0 {
					b.WriteString(", ")
				}
				seen[k.Date] = true
				b.WriteString("'" + k.Date.String() + "'")
			}
		}
		b.WriteString(") AND ")
	}
	b.WriteString(col + " IN (")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		if t.Kind == Orders {
			b.WriteString(quote(k.OrderID))
		} else {
			b.WriteString(strconv.FormatUint(k.WatchID, 10))
		}
	}
	b.WriteString(") GROUP BY " + col)
	if t.Kind == Orders && t.Date {
		b.WriteString(", snapshot_date")
	}
	return b.String()
}

// readRows calls row for each row of rows, then checks the answer ended whole.
func readRows(rows *clickhouse.Rows, row func() error) error {
	defer rows.Close()
	for {
		more, err := rows.More()
		if err != nil {
			return err
		}
		if !more {
			return rows.End()
		}
		if err := row(); err != nil {
			return err
		}
	}
}

// quote is s as a ClickHouse string literal.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// checkName refuses a table name that is not "table" or "database.table" of plain
// identifiers: the name is spliced into SQL.
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
	if s == "" || len(s) > 255 {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
