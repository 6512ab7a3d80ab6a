package store

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/clickgen/clickgen/generator/clickhouse/chtype"
	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/schema"
)

// Roles of the tables, as results and differences name them.
const (
	RoleEvents      = "events"
	RoleErrors      = "errors"
	RoleRaw         = "raw"
	RoleOrders      = "orders"
	RoleOrderErrors = "order errors"
	RoleMarts       = "marts"
)

// layout is what the probe found of one named table, and what verify reads of it.
type layout struct {
	role, table string
	info        *TableInfo
	// err, when set, is why the table is not read at all: it does not exist, or lacks a
	// column verify keys on or holds it with a type verify does not read so.
	err string
	// problems are differences of the table's columns; the table is still read.
	problems []string
	// cols are the columns read (events and orders: those judged), in order.
	cols []Column
	// key1, key2 are the positions in cols of WatchID and ClientID (events) or order_id and
	// snapshot_date (orders).
	key1, key2 int
	notJudged  []string
	lacks      []string // contract columns the table does not hold
	// loadTS says the events table has _load_ts of a type verify reads.
	loadTS bool
	seed   maphash.Seed
}

// ok says whether the table is read.
func (l *layout) ok() bool { return l != nil && l.err == "" }

// digest is the digest of a row's judged values: two rows of the table are equal when their
// digests are (maphash, seeded per run: a store cannot aim at it).
func (l *layout) digest(row []byte) uint64 { return maphash.Bytes(l.seed, row) }

// maxNotJudgedListed bounds the columns a result lists as not judged: a store may have
// thousands.
const maxNotJudgedListed = 100

// head fills a result's head with what the probe found.
func (l *layout) head(h *TableHead) {
	h.Table = l.table
	if l.info != nil {
		h.Engine, h.Reads = storeText([]byte(l.info.Engine)), storeText([]byte(l.info.Reads))
		if cl := l.info.Cluster; cl != nil {
			h.Cluster = storeText([]byte(cl.Name))
			h.Shards = shardCounter(nil).list(cl, true)
		}
	}
	h.Problems = l.problems
	h.NotJudged = l.notJudged
	if n := len(h.NotJudged); n > maxNotJudgedListed {
		h.NotJudged = append(h.NotJudged[:maxNotJudgedListed:maxNotJudgedListed], fmt.Sprintf("(and %d more)", n-maxNotJudgedListed))
	}
	for _, c := range l.cols {
		h.Judged = append(h.Judged, c.Name)
	}
	if l.err != "" {
		h.Error = l.err
	}
}

// cluster is the cluster the table is read through, nil unless it is Distributed.
func (l *layout) cluster() *Cluster {
	if l == nil || l.info == nil {
		return nil
	}
	return l.info.Cluster
}

// types returns the types of cols.
func (l *layout) types() []*chtype.Type {
	out := make([]*chtype.Type, len(l.cols))
	for i, c := range l.cols {
		out[i] = c.Type
	}
	return out
}

// probe reads what every named table is before anything is read from any: a table whose
// read would consume (a stream engine, or a table over one) ends verification with a
// [ConsumesError]; one that does not exist or lacks what verify reads is marked, not read and
// not waited for.
func (v *verifier) probe(ctx context.Context) error {
	t := v.opt.Tables
	named := []struct{ role, table string }{{RoleEvents, t.Events}, {RoleErrors, t.Errors}, {RoleRaw, t.Raw},
		{RoleOrders, t.Orders}, {RoleOrderErrors, t.OrderErrors}, {RoleMarts, t.Marts}}
	var names []string
	for _, n := range named {
		if n.table != "" {
			names = append(names, n.table)
		}
	}
	v.layouts = map[string]*layout{}
	if len(names) == 0 {
		return nil
	}
	infos, err := v.src.Probe(ctx, names)
	if err != nil {
		return err
	}
	seed := maphash.MakeSeed()
	for _, n := range named {
		if n.table == "" {
			continue
		}
		info := infos[n.table]
		if info != nil && info.Consumes != "" {
			return &ConsumesError{Role: n.role, Table: n.table, Why: info.Consumes}
		}
		if info != nil && info.Unguarded != "" {
			key := "tables." + strings.ReplaceAll(n.role, " ", "_")
			return &ShardError{Table: n.role + " table " + n.table, Why: info.Unguarded + " (" + field.Name(v.opt.Names, key, key) + " '' skips it)"}
		}
		l := &layout{role: n.role, table: n.table, info: info, seed: seed}
		v.layouts[n.role] = l
		switch {
		case info == nil || !info.Exists:
			l.err = fmt.Sprintf("%s does not exist", storeText([]byte(n.table)))
			continue
		case info.Cluster != nil && len(info.Cluster.Shards) == 0:
			// The server would refuse the read; said at once, and not waited for.
			l.err = fmt.Sprintf("%s reads cluster %s, which the server does not define (system.clusters)", storeText([]byte(n.table)), storeText([]byte(info.Cluster.Name)))
			continue
		case info.Cluster != nil && info.Cluster.check() != "":
			l.err = storeText([]byte(n.table)) + ": " + info.Cluster.check()
			continue
		}
		switch n.role {
		case RoleEvents:
			v.eventsLayout(l)
		case RoleOrders:
			v.ordersLayout(l)
		case RoleRaw:
			l.need(info, "raw", stringType)
		case RoleErrors, RoleOrderErrors:
			l.need(info, "raw", stringType)
			l.need(info, "error_class", stringType)
		case RoleMarts:
			l.need(info, "order_day", dateType)
			l.need(info, "mismatch_class", stringType)
		}
		if n.role != RoleEvents && n.role != RoleOrders {
			read := map[string]bool{"raw": true, "error_class": true, "order_day": true, "mismatch_class": true}
			for _, c := range info.Columns {
				if !read[c.Name] {
					l.notJudged = append(l.notJudged, storeText([]byte(c.Name)))
				}
			}
		}
		if l.err != "" {
			v.opt.Logf("verify: %s table %s: %s; it is not read", n.role, storeText([]byte(n.table)), l.err)
		}
	}
	return nil
}

// Kinds of the columns verify keys on.
func stringType(t *chtype.Type) bool { return t.IsString(true) }

func dateType(t *chtype.Type) bool {
	if t.Kind == chtype.Nullable {
		t = t.Elem
	}
	return t.Kind == chtype.Date || t.Kind == chtype.Date32
}

func uint64Type(t *chtype.Type) bool {
	if t.Kind == chtype.Nullable {
		t = t.Elem
	}
	return t.Kind == chtype.UInt64
}

// need checks that the table has column name of a type want accepts; the table is not read
// otherwise. It returns the column's type.
func (l *layout) need(info *TableInfo, name string, want func(*chtype.Type) bool) *chtype.Type {
	c, ok := info.Column(name)
	if !ok {
		l.fail(fmt.Sprintf("%s lacks column %s", storeText([]byte(l.table)), name))
		return nil
	}
	t, err := chtype.Parse(c.Type)
	if err != nil || !want(t) {
		what := "a String"
		switch {
		case name == "order_day" || name == hitEventDate || name == snapshotDateKey:
			what = "a Date"
		case name == hitWatchID || name == hitClientID:
			what = "an UInt64"
		}
		l.fail(fmt.Sprintf("%s: column %s is %s; verify reads it as %s", storeText([]byte(l.table)), name, storeText([]byte(c.Type)), what))
		return nil
	}
	return t
}

func (l *layout) fail(s string) {
	if l.err == "" {
		l.err = s
	} else {
		l.err += "; " + s
	}
}

// eventsLayout decides what is read of the events table: its key columns (WatchID,
// ClientID, EventDate), and, comparing values, every hit column it holds.
func (v *verifier) eventsLayout(l *layout) {
	info := l.info
	l.need(info, hitWatchID, uint64Type)
	l.need(info, hitClientID, uint64Type)
	l.need(info, hitEventDate, dateType)
	if l.err != "" {
		return
	}
	if c, ok := info.Column("_load_ts"); ok {
		if t, err := chtype.Parse(c.Type); err == nil {
			k := t.Base().Kind
			if k == chtype.Nullable {
				k = t.Base().Elem.Kind
			}
			l.loadTS = k == chtype.DateTime || k == chtype.DateTime64
		}
	}
	names := make([]string, len(schema.HitColumns))
	for i, c := range schema.HitColumns {
		names[i] = c.Name
	}
	v.contractColumns(l, names, hitWatchID, hitClientID, intake.CheckHitColumn)
}

// ordersLayout decides what is read of the orders table: order_id and snapshot_date, and,
// comparing values, every order key it holds.
func (v *verifier) ordersLayout(l *layout) {
	info := l.info
	l.need(info, orderIDKey, stringType)
	l.need(info, snapshotDateKey, dateType)
	if l.err != "" {
		return
	}
	names := make([]string, len(schema.OrderKeys))
	for i, k := range schema.OrderKeys {
		names[i] = k.Name
	}
	v.contractColumns(l, names, orderIDKey, snapshotDateKey, intake.CheckOrderColumn)
}

// contractColumns decides which of a table's columns are read and judged: the contract's
// (names, each checked by check, at its place in the contract), or with --columns keys the
// two keys alone; the table's other columns are listed as not judged.
func (v *verifier) contractColumns(l *layout, names []string, key1, key2 string, check func(string, *chtype.Type) error) {
	info := l.info
	keysOnly := v.opt.Columns == ColumnsKeys
	if keysOnly {
		for _, name := range []string{key1, key2} {
			c, _ := info.Column(name)
			l.cols = append(l.cols, Column{Name: name, Type: chtype.MustParse(c.Type)})
		}
	} else {
		for i, name := range names {
			l.judge(info, name, i, check)
		}
	}
	l.lacking()
	l.keys(key1, key2)
	for _, c := range info.Columns {
		judged := slices.Contains(names, c.Name) && (!keysOnly || c.Name == key1 || c.Name == key2)
		if !judged {
			l.notJudged = append(l.notJudged, storeText([]byte(c.Name)))
		}
	}
}

// judge adds the contract column name to the columns compared when the table holds it with a
// type the intake model fills; otherwise it is a problem of the table.
func (l *layout) judge(info *TableInfo, name string, pos int, check func(string, *chtype.Type) error) {
	c, ok := info.Column(name)
	if !ok {
		l.lacks = append(l.lacks, name)
		return
	}
	t, err := chtype.Parse(c.Type)
	if err == nil {
		err = check(name, t)
	}
	switch {
	case err == nil:
		l.cols = append(l.cols, Column{Name: name, Type: t, pos: pos})
	case errors.Is(err, intake.ErrColumnType):
		l.problems = append(l.problems, fmt.Sprintf("column %s is %s, a type the stand's parse does not fill it as (%s)", name, storeText([]byte(c.Type)),
			strings.TrimPrefix(err.Error(), intake.ErrColumnType.Error()+": ")))
	default:
		l.problems = append(l.problems, fmt.Sprintf("column %s is %s, a type verify does not compare", name, storeText([]byte(c.Type))))
	}
}

// lacking makes the contract columns the table lacks one problem: their values cannot be
// compared.
func (l *layout) lacking() {
	if len(l.lacks) > 0 {
		l.problems = append([]string{fmt.Sprintf("lacks the contract's columns %s", strings.Join(l.lacks, ", "))}, l.problems...)
	}
}

// keys finds the two key columns in cols.
func (l *layout) keys(a, b string) {
	for i, c := range l.cols {
		switch c.Name {
		case a:
			l.key1 = i
		case b:
			l.key2 = i
		}
	}
}
