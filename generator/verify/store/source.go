package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/schema"
)

// Source is what verification reads from a store. [ClickHouse] implements it over the HTTP
// interface; tests implement it in memory. Every method reads the named table; an error
// that is about the table (it does not exist, lacks a column, has another type) wraps
// [ErrTable], one that happens while reading wraps whatever went wrong (a timeout, the
// context's error, a broken connection), and a read that could not be made consistent wraps
// [ErrChanged]. Row callbacks see rows in the order each method promises; their byte
// slices are valid only during the call.
type Source interface {
	// Describe names the store and its version, proving the address and the credentials.
	Describe(ctx context.Context) (string, error)
	// Events streams the rows of table filed under date: WatchID and ClientID, in WatchID
	// order (then ClientID), copies included.
	Events(ctx context.Context, table string, date schema.Date, row func(watchID, clientID uint64)) error
	// Digests streams the rows of table in the order of the [SipHash64] of their raw: that
	// hash, the string value of the JSON key hintKey in raw ("" when absent), and, when
	// classColumn is not empty, that column (error_class).
	Digests(ctx context.Context, table, hintKey, classColumn string, row func(hash uint64, hint, class []byte)) error
	// Orders streams the rows of table in order_id order, then snapshot_date.
	Orders(ctx context.Context, table string, row func(orderID []byte, snapshotDate schema.Date)) error
	// MartClasses counts the rows of view per order_day in [first, last] and mismatch_class.
	MartClasses(ctx context.Context, view string, first, last schema.Date) ([]MartCount, error)
	// LoadTimes returns, per EventDate in [first, last] of the events table, the first and
	// last _load_ts in Unix seconds, and the store's clock now.
	LoadTimes(ctx context.Context, table string, first, last schema.Date) (loads map[schema.Date][2]int64, now int64, err error)
	// Count counts the rows of table; with a date column, only those whose column is in
	// [first, last].
	Count(ctx context.Context, table, dateColumn string, first, last schema.Date) (int64, error)
}

// MartCount is one row of [Source.MartClasses].
type MartCount struct {
	Day   schema.Date
	Class string
	Count int64
}

// ErrTable is wrapped by an error about a table rather than the store: it does not exist,
// it lacks a column the check reads, or the store refuses the query over it. Verification
// reports it as that table's difference and goes on with the others.
var ErrTable = errors.New("the table cannot be read")

// ErrChanged is wrapped by a read whose row count differs both from the count taken before
// it and from the one taken after: the table changed while it was read, or the answer lost
// rows. Verification reads it again, a few times.
var ErrChanged = errors.New("the table changed while it was read")

// TableError is an error of [ErrTable]'s kind, naming the table.
type TableError struct {
	Table string
	Err   error
}

func (e *TableError) Error() string {
	switch {
	case errors.Is(e.Err, clickhouse.ErrUnknownTable):
		return fmt.Sprintf("%s does not exist: %v", e.Table, e.Err)
	case errors.Is(e.Err, clickhouse.ErrUnknownColumn):
		return fmt.Sprintf("%s lacks a column this check reads: %v", e.Table, e.Err)
	}
	return fmt.Sprintf("%s cannot be read: %v", e.Table, e.Err)
}

func (e *TableError) Unwrap() []error { return []error{ErrTable, e.Err} }

// ClickHouse reads a store over ClickHouse's HTTP interface. Every streamed read is checked
// whole: its rows are counted against count() taken before (and, when they differ, after),
// so a store that changed under the read, or an answer that lost rows, is never taken for
// the table.
type ClickHouse struct {
	Client *clickhouse.Client
}

// Describe returns "ClickHouse VERSION at URL (user U)".
func (c *ClickHouse) Describe(ctx context.Context) (string, error) {
	v, err := c.Client.Ping(ctx)
	if err != nil {
		return "", err
	}
	user := c.Client.UserName()
	if user == "" {
		user = "the default user"
	} else {
		user = "user " + user
	}
	return fmt.Sprintf("ClickHouse %s at %s (%s)", v, c.Client.Endpoint(), user), nil
}

// ident quotes a table name (database.table) for SQL.
func ident(table string) string {
	db, t, ok := strings.Cut(table, ".")
	if !ok {
		return intake.QuoteIdent(db)
	}
	return intake.QuoteIdent(db) + "." + intake.QuoteIdent(t)
}

func dateLit(d schema.Date) string { return "toDate(" + intake.Quote(d.String()) + ")" }

// tableErr classifies err of a query over table.
func tableErr(table string, err error) error {
	var se *clickhouse.ServerError
	if errors.As(err, &se) && !se.MidStream && !errors.Is(se, clickhouse.ErrAuth) {
		return &TableError{Table: table, Err: err}
	}
	return err
}

// count runs a count() query.
func (c *ClickHouse) count(ctx context.Context, table, sql string) (int64, error) {
	rows, err := c.Client.Query(ctx, sql)
	if err != nil {
		return 0, tableErr(table, err)
	}
	defer rows.Close()
	n, err := rows.UInt64()
	if err == nil {
		err = rows.End()
	}
	if err != nil {
		return 0, err
	}
	return int64(n), nil
}

// stream runs a query whose rows read counts, checked against countSQL before and, when
// they differ, after.
func (c *ClickHouse) stream(ctx context.Context, table, countSQL, sql string, read func(r *clickhouse.Rows) error) error {
	before, err := c.count(ctx, table, countSQL)
	if err != nil {
		return err
	}
	rows, err := c.Client.Query(ctx, sql)
	if err != nil {
		return tableErr(table, err)
	}
	defer rows.Close()
	var n int64
	for {
		more, err := rows.More()
		if err != nil {
			return err
		}
		if !more {
			break
		}
		if err := read(rows); err != nil {
			return err
		}
		n++
	}
	if err := rows.End(); err != nil {
		return err
	}
	if n == before {
		return nil
	}
	after, err := c.count(ctx, table, countSQL)
	if err != nil {
		return err
	}
	if n == after {
		return nil
	}
	if exc := rows.Exception(); exc != nil {
		return exc
	}
	return fmt.Errorf("%s: %d rows read, %d counted before and %d after: %w", table, n, before, after, ErrChanged)
}

// Events implements [Source].
func (c *ClickHouse) Events(ctx context.Context, table string, date schema.Date, row func(watchID, clientID uint64)) error {
	where := " WHERE EventDate = " + dateLit(date)
	var last uint64
	first := true
	return c.stream(ctx, table, "SELECT count() FROM "+ident(table)+where,
		"SELECT toUInt64(assumeNotNull(WatchID)), toUInt64(assumeNotNull(ClientID)) FROM "+ident(table)+where+" ORDER BY WatchID, ClientID",
		func(r *clickhouse.Rows) error {
			w, err := r.UInt64()
			if err != nil {
				return err
			}
			cl, err := r.UInt64()
			if err != nil {
				return err
			}
			if !first && w < last {
				return fmt.Errorf("%s: the answer is not in WatchID order (%d after %d)", table, w, last)
			}
			first, last = false, w
			row(w, cl)
			return nil
		})
}

// Digests implements [Source].
func (c *ClickHouse) Digests(ctx context.Context, table, hintKey, classColumn string, row func(hash uint64, hint, class []byte)) error {
	cols := "sipHash64(assumeNotNull(raw)) AS h, visitParamExtractString(assumeNotNull(raw), " + intake.Quote(hintKey) + ")"
	if classColumn != "" {
		cols += ", toString(assumeNotNull(" + intake.QuoteIdent(classColumn) + "))"
	}
	var last uint64
	var hint, class []byte
	first := true
	return c.stream(ctx, table, "SELECT count() FROM "+ident(table),
		"SELECT "+cols+" FROM "+ident(table)+" ORDER BY h",
		func(r *clickhouse.Rows) error {
			sum, err := r.UInt64()
			if err != nil {
				return err
			}
			if hint, err = r.String(hint[:0]); err != nil {
				return err
			}
			if classColumn != "" {
				if class, err = r.String(class[:0]); err != nil {
					return err
				}
			}
			if !first && sum < last {
				return fmt.Errorf("%s: the answer is not in sipHash64(raw) order", table)
			}
			first, last = false, sum
			row(sum, hint, class)
			return nil
		})
}

// Orders implements [Source].
func (c *ClickHouse) Orders(ctx context.Context, table string, row func(orderID []byte, snapshotDate schema.Date)) error {
	var id, last []byte
	first := true
	return c.stream(ctx, table, "SELECT count() FROM "+ident(table),
		"SELECT toString(assumeNotNull(order_id)), assumeNotNull(snapshot_date) FROM "+ident(table)+" ORDER BY order_id, snapshot_date",
		func(r *clickhouse.Rows) error {
			var err error
			if id, err = r.String(id[:0]); err != nil {
				return err
			}
			d, err := r.UInt16()
			if err != nil {
				return err
			}
			if !first && string(id) < string(last) {
				return fmt.Errorf("%s: the answer is not in order_id order", table)
			}
			first, last = false, append(last[:0], id...)
			row(id, schema.Date(d))
			return nil
		})
}

// MartClasses implements [Source].
func (c *ClickHouse) MartClasses(ctx context.Context, view string, first, last schema.Date) ([]MartCount, error) {
	// The stand's view reads a table whose columns are not Nullable; a view computing the
	// mart may leave them Nullable (coalesce of a FULL JOIN's sides): RowBinary must not.
	rows, err := c.Client.Query(ctx, "SELECT assumeNotNull(order_day) AS d, toString(assumeNotNull(mismatch_class)) AS c, count() FROM "+ident(view)+
		" WHERE order_day >= "+dateLit(first)+" AND order_day <= "+dateLit(last)+
		" GROUP BY d, c ORDER BY d, c")
	if err != nil {
		return nil, tableErr(view, err)
	}
	defer rows.Close()
	var out []MartCount
	for {
		more, err := rows.More()
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		var m MartCount
		d, err := rows.UInt16()
		if err != nil {
			return nil, err
		}
		class, err := rows.String(nil)
		if err != nil {
			return nil, err
		}
		n, err := rows.UInt64()
		if err != nil {
			return nil, err
		}
		m.Day, m.Class, m.Count = schema.Date(d), string(class), int64(n)
		out = append(out, m)
	}
	return out, rows.End()
}

// LoadTimes implements [Source].
func (c *ClickHouse) LoadTimes(ctx context.Context, table string, first, last schema.Date) (map[schema.Date][2]int64, int64, error) {
	rows, err := c.Client.Query(ctx, "SELECT assumeNotNull(EventDate) AS d, toUInt32(toDateTime(assumeNotNull(min(_load_ts)))), toUInt32(toDateTime(assumeNotNull(max(_load_ts)))), toUInt32(now()) FROM "+
		ident(table)+" WHERE EventDate >= "+dateLit(first)+" AND EventDate <= "+dateLit(last)+" GROUP BY d")
	if err != nil {
		return nil, 0, tableErr(table, err)
	}
	defer rows.Close()
	loads := map[schema.Date][2]int64{}
	var now int64
	for {
		more, err := rows.More()
		if err != nil {
			return nil, 0, err
		}
		if !more {
			break
		}
		d, err := rows.UInt16()
		if err != nil {
			return nil, 0, err
		}
		var v [3]uint32
		for i := range v {
			if v[i], err = rows.UInt32(); err != nil {
				return nil, 0, err
			}
		}
		loads[schema.Date(d)] = [2]int64{int64(v[0]), int64(v[1])}
		now = int64(v[2])
	}
	if err := rows.End(); err != nil {
		return nil, 0, err
	}
	if now == 0 { // no row: ask the clock alone
		rows, err := c.Client.Query(ctx, "SELECT toUInt32(now())")
		if err != nil {
			return nil, 0, err
		}
		defer rows.Close()
		v, err := rows.UInt32()
		if err == nil {
			err = rows.End()
		}
		if err != nil {
			return nil, 0, err
		}
		now = int64(v)
	}
	return loads, now, nil
}

// Count implements [Source].
func (c *ClickHouse) Count(ctx context.Context, table, dateColumn string, first, last schema.Date) (int64, error) {
	sql := "SELECT count() FROM " + ident(table)
	if dateColumn != "" {
		col := intake.QuoteIdent(dateColumn)
		sql += " WHERE " + col + " >= " + dateLit(first) + " AND " + col + " <= " + dateLit(last)
	}
	return c.count(ctx, table, sql)
}
