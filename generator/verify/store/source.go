package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/clickhouse/chtype"
	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/schema"
)

// Source is what verification reads from a store. [ClickHouse] implements it over the HTTP
// interface; tests implement it in memory. Every method but Probe reads the named table; an
// error that is about the table (it does not exist, lacks a column, has another type) wraps
// [ErrTable], one that happens while reading wraps whatever went wrong (a timeout, the
// context's error, a broken connection), and a read that could not be made consistent wraps
// [ErrChanged]. Row callbacks see rows in the order each method promises; their byte
// slices are valid only during the call, and an error they return ends the read with it.
// A row's shard is, for a table read through a Distributed table, the number of the shard of
// its cluster that sent it (counted from 1), and 0 for other tables; a read through a
// Distributed table that could not read every shard fails with a [ShardError].
type Source interface {
	// Describe names the store and its version, proving the address and the credentials.
	Describe(ctx context.Context) (string, error)
	// Probe says what each of tables is (whether it exists, its engine, its columns and
	// their types, whether reading it would consume a stream) without reading any of them.
	Probe(ctx context.Context, tables []string) (map[string]*TableInfo, error)
	// Events streams the rows of table filed under date (EventDate), copies included, in
	// WatchID order: each row's values of cols in RowBinary, where each column's value ends,
	// and the shard it came from.
	Events(ctx context.Context, table string, date schema.Date, cols []Column, row func(row []byte, ends []int, shard int) error) error
	// Digests streams the rows of table in the order of the [SipHash64] of their raw: that
	// hash, the string value of the JSON key hintKey in raw ("" when absent; at most
	// [MaxHint] bytes), when classColumn is not empty, that column (error_class, cut to at
	// most [MaxClass] bytes and its length), and the shard the row came from.
	Digests(ctx context.Context, table, hintKey, classColumn string, row func(hash uint64, hint, class []byte, shard int)) error
	// Orders streams the rows of table in order_id order, then snapshot_date: each row's
	// values of cols in RowBinary, where each column's value ends, and the shard it came
	// from.
	Orders(ctx context.Context, table string, cols []Column, row func(row []byte, ends []int, shard int) error) error
	// MartClasses counts the rows of view per order_day in [first, last] and mismatch_class,
	// the classes outside known summed into one row per day (Class "", with the number of
	// distinct classes and one of them, cut).
	MartClasses(ctx context.Context, view string, first, last schema.Date, known []string) ([]MartCount, error)
	// LoadTimes returns, per EventDate in [first, last] of the events table, the first and
	// last _load_ts in Unix seconds, and the store's clock now.
	LoadTimes(ctx context.Context, table string, first, last schema.Date) (loads map[schema.Date][2]int64, now int64, err error)
	// Count counts the rows of table; with a date column, only those whose column is in
	// [first, last].
	Count(ctx context.Context, table, dateColumn string, first, last schema.Date) (int64, error)
}

// Column is a column verify reads, with its type.
type Column struct {
	Name string
	Type *chtype.Type
	// pos is the column's position in the contract's columns (hits or order keys).
	pos int
}

// Bounds of the store's strings verify reads besides values it compares: the date a raw
// row's JSON names, and an error class.
const (
	MaxHint  = 32
	MaxClass = 64
)

// MartCount is one row of [Source.MartClasses]. A row of the classes outside the known ones
// has Class "", Distinct their number and Example one of them (cut).
type MartCount struct {
	Day      schema.Date
	Class    string
	Count    int64
	Distinct int64
	Example  string
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
//
// A Distributed table ([ClickHouse.Probe] finds its cluster) is read from every shard: each
// row comes with the shard that sent it, and a read that leaves a shard out, or fails on one,
// is a [ShardError], whatever the reading user's profile says about unavailable shards.
type ClickHouse struct {
	Client *clickhouse.Client

	mu       sync.Mutex
	clusters map[string]*Cluster // the probed Distributed tables' clusters, by name as given
	settings string              // the SETTINGS clause of every read (" SETTINGS …" or "")
	lenient  string              // why the server may leave a shard out without an error
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
func (c *ClickHouse) count(ctx context.Context, table string, cl *Cluster, sql string) (int64, error) {
	rows, err := c.Client.Query(ctx, sql)
	if err != nil {
		return 0, c.readErr(table, cl, err)
	}
	defer rows.Close()
	n, err := rows.UInt64()
	if err == nil {
		err = rows.End()
	}
	if err != nil {
		return 0, shardErr(table, cl, err)
	}
	return int64(n), nil
}

// readErr classifies the error of a query over table (cl: the cluster it reads, or nil): a
// shard that could not be read, the table's error, or the store's.
func (c *ClickHouse) readErr(table string, cl *Cluster, err error) error {
	if se := shardErr(table, cl, err); se != err {
		return se
	}
	return tableErr(table, err)
}

// stream runs a query whose rows read counts, checked against countSQL before and, when
// they differ, after. With sr (a read through a Distributed table: sql is shardedSQL's), each
// row's tag is read first and read learns its shard; a shard's answer alone is not a row:
// read gets it with the shard's number negated, to read its columns and drop it. A shard
// that answered nothing fails the read.
func (c *ClickHouse) stream(ctx context.Context, table string, sr *shardRead, countSQL, sql string, read func(r *clickhouse.Rows, shard int) error) error {
	var cl *Cluster
	if sr != nil {
		cl = sr.cl
	}
	before, err := c.count(ctx, table, cl, countSQL)
	if err != nil {
		return err
	}
	rows, err := c.Client.Query(ctx, sql)
	if err != nil {
		return c.readErr(table, cl, err)
	}
	defer rows.Close()
	var n int64
	for {
		more, err := rows.More()
		if err != nil {
			return shardErr(table, cl, err)
		}
		if !more {
			break
		}
		shard, real := 0, true
		if sr != nil {
			if shard, real, err = sr.tag(rows); err != nil {
				return shardErr(table, cl, err)
			}
			if !real {
				shard = -shard
			}
		}
		if err := read(rows, shard); err != nil {
			return shardErr(table, cl, err)
		}
		if real {
			n++
		}
	}
	if err := rows.End(); err != nil {
		return shardErr(table, cl, err)
	}
	if sr != nil {
		if err := sr.whole(); err != nil {
			return err
		}
	}
	if n == before {
		return nil
	}
	after, err := c.count(ctx, table, cl, countSQL)
	if err != nil {
		return err
	}
	if n == after {
		return nil
	}
	if exc := rows.Exception(); exc != nil {
		return shardErr(table, cl, exc)
	}
	return fmt.Errorf("%s: %d rows read, %d counted before and %d after: %w", table, n, before, after, ErrChanged)
}

// selectList is cols quoted for SELECT.
func selectList(cols []Column) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = intake.QuoteIdent(c.Name)
	}
	return strings.Join(q, ", ")
}

// tableRead is how a read of a table is made: its cluster (nil unless it is Distributed),
// the clause every query carries, and the query of list FROM table where prewhere, ordered.
type tableRead struct {
	c        *ClickHouse
	table    string
	cl       *Cluster
	settings string
	lenient  string
}

func (c *ClickHouse) read(table string) *tableRead {
	cl, settings, lenient := c.cluster(table)
	return &tableRead{c: c, table: table, cl: cl, settings: settings, lenient: lenient}
}

// count is the count() of the rows where cond ("" for all).
func (t *tableRead) count(cond string) string {
	sql := "SELECT count() FROM " + ident(t.table)
	if cond != "" {
		sql += " WHERE " + cond
	}
	return sql + t.settings
}

// query is the read of list where cond, grouped and ordered: through every shard, tagged,
// for a Distributed table (shardedSQL, cond as its PREWHERE).
func (t *tableRead) query(list, cond, groupBy, orderBy string) string {
	if t.cl != nil {
		return shardedSQL(t.table, t.cl, list, cond, groupBy, orderBy, t.settings)
	}
	sql := "SELECT " + list + " FROM " + ident(t.table)
	if cond != "" {
		sql += " WHERE " + cond
	}
	if groupBy != "" {
		sql += " GROUP BY " + groupBy
	}
	if orderBy != "" {
		sql += " ORDER BY " + orderBy
	}
	return sql + t.settings
}

// shards is the read's shardRead, nil for a table not read through a cluster.
func (t *tableRead) shards() *shardRead {
	if t.cl == nil {
		return nil
	}
	return newShardRead(t.table, t.cl, t.lenient)
}

// streamValues streams rows of cols as RowBinary values.
func (t *tableRead) streamValues(ctx context.Context, countSQL, sql string, cols []Column, row func([]byte, []int, int) error) error {
	types := make([]*chtype.Type, len(cols))
	for i, col := range cols {
		types[i] = col.Type
	}
	var ends []int
	return t.c.stream(ctx, t.table, t.shards(), countSQL, sql, func(r *clickhouse.Rows, shard int) error {
		b, e, err := r.Row(types, ends)
		ends = e
		if err != nil {
			return err
		}
		if shard < 0 {
			return nil
		}
		return row(b, e, shard)
	})
}

// Events implements [Source].
func (c *ClickHouse) Events(ctx context.Context, table string, date schema.Date, cols []Column, row func([]byte, []int, int) error) error {
	t := c.read(table)
	where := intake.QuoteIdent(hitEventDate) + " = " + dateLit(date)
	return t.streamValues(ctx, t.count(where), t.query(selectList(cols), where, "", intake.QuoteIdent(hitWatchID)), cols, row)
}

// Digests implements [Source]. The hint and the class are cut by the server: a store's string
// of any length costs verify a few bytes a row.
func (c *ClickHouse) Digests(ctx context.Context, table, hintKey, classColumn string, row func(hash uint64, hint, class []byte, shard int)) error {
	t := c.read(table)
	cols := "sipHash64(assumeNotNull(raw)) AS h, substring(visitParamExtractString(assumeNotNull(raw), " + intake.Quote(hintKey) + "), 1, " + fmt.Sprint(MaxHint) + ")"
	if classColumn != "" {
		cl := "toString(assumeNotNull(" + intake.QuoteIdent(classColumn) + "))"
		cols += fmt.Sprintf(", if(length(%[1]s) > %[2]d, concat(substring(%[1]s, 1, %[2]d), '…(', toString(length(%[1]s)), ' bytes)'), %[1]s)", cl, MaxClass)
	}
	var last uint64
	var hint, class []byte
	first := true
	return c.stream(ctx, table, t.shards(), t.count(""), t.query(cols, "", "", "h"),
		func(r *clickhouse.Rows, shard int) error {
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
			if shard < 0 {
				return nil
			}
			if !first && sum < last {
				return fmt.Errorf("%s: the answer is not in sipHash64(raw) order", table)
			}
			first, last = false, sum
			row(sum, hint, class, shard)
			return nil
		})
}

// Orders implements [Source].
func (c *ClickHouse) Orders(ctx context.Context, table string, cols []Column, row func([]byte, []int, int) error) error {
	t := c.read(table)
	return t.streamValues(ctx, t.count(""), t.query(selectList(cols), "", "", intake.QuoteIdent(orderIDKey)+", "+intake.QuoteIdent(snapshotDateKey)), cols, row)
}

// MartClasses implements [Source]. Classes outside known are summed on the server: a view of
// two million distinct classes answers one row per day for them.
func (c *ClickHouse) MartClasses(ctx context.Context, view string, first, last schema.Date, known []string) ([]MartCount, error) {
	q := make([]string, len(known))
	for i, k := range known {
		q[i] = intake.Quote(k)
	}
	// The stand's view reads a table whose columns are not Nullable; a view computing the
	// mart may leave them Nullable (coalesce of a FULL JOIN's sides): RowBinary must not.
	rows, err := c.Client.Query(ctx, "SELECT d, k, count(), uniqExact(c), any(substring(c, 1, "+fmt.Sprint(MaxClass)+")) FROM (SELECT assumeNotNull(order_day) AS d, toString(assumeNotNull(mismatch_class)) AS c, "+
		"if(c IN ("+strings.Join(q, ", ")+"), c, '') AS k FROM "+ident(view)+
		" WHERE order_day >= "+dateLit(first)+" AND order_day <= "+dateLit(last)+
		") GROUP BY d, k ORDER BY d, k"+c.read(view).settings)
	if err != nil {
		return nil, tableErr(view, err)
	}
	var out []MartCount
	err = readRows(rows, func(r *clickhouse.Rows) error {
		var m MartCount
		d, err := r.UInt16()
		if err != nil {
			return err
		}
		class, err := r.String(nil)
		if err != nil {
			return err
		}
		n, err := r.UInt64()
		if err != nil {
			return err
		}
		distinct, err := r.UInt64()
		if err != nil {
			return err
		}
		example, err := r.String(nil)
		if err != nil {
			return err
		}
		m.Day, m.Class, m.Count = schema.Date(d), string(class), int64(n)
		if m.Class == "" {
			m.Distinct, m.Example = int64(distinct), storeText(example)
		}
		out = append(out, m)
		return nil
	})
	return out, err
}

// LoadTimes implements [Source].
func (c *ClickHouse) LoadTimes(ctx context.Context, table string, first, last schema.Date) (map[schema.Date][2]int64, int64, error) {
	t := c.read(table)
	sr := t.shards()
	rows, err := c.Client.Query(ctx, t.query("assumeNotNull(EventDate) AS d, toUInt32(toDateTime(assumeNotNull(min(_load_ts)))), toUInt32(toDateTime(assumeNotNull(max(_load_ts)))), toUInt32(now())",
		"EventDate >= "+dateLit(first)+" AND EventDate <= "+dateLit(last), "d", ""))
	if err != nil {
		return nil, 0, t.c.readErr(table, t.cl, err)
	}
	defer rows.Close()
	loads := map[schema.Date][2]int64{}
	var now int64
	for {
		more, err := rows.More()
		if err != nil {
			return nil, 0, shardErr(table, t.cl, err)
		}
		if !more {
			break
		}
		real := true
		if sr != nil {
			if _, real, err = sr.tag(rows); err != nil {
				return nil, 0, err
			}
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
		if !real {
			continue
		}
		// A date's rows on several shards: the first load of all, the last of all.
		l, ok := loads[schema.Date(d)]
		if !ok {
			l = [2]int64{int64(v[0]), int64(v[1])}
		}
		loads[schema.Date(d)] = [2]int64{min(l[0], int64(v[0])), max(l[1], int64(v[1]))}
		now = int64(v[2])
	}
	if err := rows.End(); err != nil {
		return nil, 0, shardErr(table, t.cl, err)
	}
	if sr != nil {
		if err := sr.whole(); err != nil {
			return nil, 0, err
		}
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
	t := c.read(table)
	cond := ""
	if dateColumn != "" {
		col := intake.QuoteIdent(dateColumn)
		cond = col + " >= " + dateLit(first) + " AND " + col + " <= " + dateLit(last)
	}
	return c.count(ctx, table, t.cl, t.count(cond))
}
