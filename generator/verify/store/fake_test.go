package store_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/clickhouse/chtype"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/schema"
)

// fakeStore is a store in memory, filled the way the stand's intake fills its tables: every
// message with a value is a raw row; the Go classifier (proven against ClickHouse message by
// message in package intake) sends it to the events table (with the WatchID, ClientID and
// EventDate the engine reads) or to the error table with its class. It is built from the
// sent messages, not from what store.Verify plans, so the two are independent.
type fakeStore struct {
	events      []evRow
	raw         []rawRow
	errors      []errRow
	orders      []ordRow
	orderErrors []errRow
	marts       []store.MartCount
	loads       map[schema.Date][2]int64
	now         int64

	dropped map[string]bool             // tables that do not exist
	layout  map[string]*store.TableInfo // what Probe answers, by table (fakeLayout's by default)
	probes  int
	changes map[string]int // reads of a table that still find it changing
	fail    error          // every read fails so (a store that stopped answering)
	reads   map[string]int // reads per table
	mu      *sync.Mutex
	counts  map[string]int64 // Count answers, for the wait tests
}

// evRow is one row of the events table: the accepted message it was parsed from (nil for a
// row inserted by a test) and, per column, a value a test set instead of the message's.
type evRow struct {
	watchID, clientID uint64
	date              schema.Date
	msg               []byte
	set               map[string][]byte // column → RowBinary value
	shard             int               // the shard a Distributed table reads it from (0: none)
	hit               *parsedHit        // msg parsed once, shared by the store's clones
}

// parsedHit is an events row's message parsed once: every test reads the fixture's store
// many times, and parsing each message at each read was most of the package's time under
// the race detector. A parsed hit is only read after it is made.
type parsedHit struct {
	once sync.Once
	h    intake.StoredHit
}

// parsed returns e's message parsed; a row inserted by a test without one has none.
func (e *evRow) parsed() *intake.StoredHit {
	if e.msg == nil {
		return nil
	}
	if e.hit == nil { // a row a test made: its own parse, not shared
		e.hit = &parsedHit{}
	}
	e.hit.once.Do(func() { e.hit.h, _ = intake.ParseStoredHit(e.msg) })
	return &e.hit.h
}

type rawRow struct {
	raw []byte
	day int // the model day of the message, for damaging a day
}

type errRow struct {
	raw   []byte
	class string
	day   int
}

type ordRow struct {
	id    string
	date  schema.Date
	msg   []byte
	set   map[string][]byte
	shard int
}

// clone copies the store, so a test may damage its copy.
func (f *fakeStore) clone() *fakeStore {
	c := *f
	c.events = slices.Clone(f.events)
	c.raw = slices.Clone(f.raw)
	c.errors = slices.Clone(f.errors)
	c.orders = slices.Clone(f.orders)
	c.orderErrors = slices.Clone(f.orderErrors)
	c.marts = slices.Clone(f.marts)
	c.loads = map[schema.Date][2]int64{}
	for k, v := range f.loads {
		c.loads[k] = v
	}
	c.dropped, c.changes, c.reads, c.counts = map[string]bool{}, map[string]int{}, map[string]int{}, map[string]int64{}
	c.layout = fakeLayout()
	c.mu = &sync.Mutex{}
	return &c
}

// play fills the store with what run days [from, from+n) of w with garbage g send, as the
// stand's intake lands it, and the marts with the inventory's classes of the closed days.
func play(t testing.TB, w *world.World, from, n int, g world.Garbage) *fakeStore {
	t.Helper()
	f := &fakeStore{loads: map[schema.Date][2]int64{}, now: 1_800_000_000, mu: &sync.Mutex{}, layout: fakeLayout()}
	for u, err := range w.Units(context.Background(), world.Range{From: from, Days: n, Garbage: g}, world.UnitOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		var msgs [][]byte
		for b := range u.Batches() {
			for i := range b.Msgs {
				msgs = append(msgs, bytes.Clone(b.Value(i)))
			}
			b.Release()
		}
		for _, x := range u.Extras {
			msgs = append(msgs, x.Value)
		}
		date := world.DayDate(u.Day)
		for _, v := range msgs {
			if len(v) == 0 {
				continue // an empty value or a tombstone: no row anywhere
			}
			if u.Kind == world.HitsUnit {
				f.raw = append(f.raw, rawRow{v, u.Day})
				class, _ := intake.ClassifyHit(v)
				if class != "" {
					f.errors = append(f.errors, errRow{v, class, u.Day})
					continue
				}
				row, _ := intake.AcceptedHitRow(v)
				f.events = append(f.events, evRow{watchID: row.WatchID, clientID: row.ClientID, date: row.EventDate, msg: v, hit: &parsedHit{}})
				continue
			}
			class, _ := intake.ClassifyOrder(v)
			if class != "" {
				f.orderErrors = append(f.orderErrors, errRow{v, class, u.Day})
				continue
			}
			id, _ := intake.OrderDedupKey(v)
			f.orders = append(f.orders, ordRow{id: id, date: date, msg: v})
		}
		if u.Kind == world.HitsUnit {
			f.loads[date] = [2]int64{f.now - 3600, f.now - 60}
		}
	}
	inv, err := w.Inventory(context.Background(), world.Range{From: from, Days: n, Garbage: g}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range world.ClosedDays(from, n) {
		o := inv.Days[d-from].Orders
		for c, k := range map[string]int{world.ClassMatch: o.Match, world.ClassCancelled: o.Cancelled, world.ClassLostEvent: o.LostEvent,
			world.ClassDuplicateEvent: o.DuplicateEvent, world.ClassAmountDelta: o.AmountDelta} {
			if k > 0 {
				f.marts = append(f.marts, store.MartCount{Day: world.DayDate(d), Class: c, Count: int64(k)})
			}
		}
	}
	return f
}

// read notes a read of table and answers what the store is made to answer.
func (f *fakeStore) read(table string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads[table]++
	switch {
	case f.fail != nil:
		return f.fail
	case f.dropped[table]:
		return &store.TableError{Table: table, Err: &clickhouse.ServerError{Code: 60, Status: 404,
			Message: fmt.Sprintf("Table %s doesn't exist.", table)}}
	case f.changes[table] > 0:
		f.changes[table]--
		return fmt.Errorf("%s: 10 rows read, 9 counted before and 11 after: %w", table, store.ErrChanged)
	}
	return nil
}

func (f *fakeStore) Describe(context.Context) (string, error) {
	if f.fail != nil {
		return "", f.fail
	}
	return "a fake store", nil
}

// fakeLayout is the stand's tables as the chDB tier lays them out (the stand's own DDL: the
// contract's types, LowCardinality, DateTime64(3), Decimal(18, 2)).
func fakeLayout() map[string]*store.TableInfo {
	t := store.StandTables()
	info := func(name, engine string, cols ...string) *store.TableInfo {
		ti := &store.TableInfo{Name: name, Exists: true, Engine: engine}
		for i := 0; i < len(cols); i += 2 {
			ti.Columns = append(ti.Columns, store.ColumnInfo{Name: cols[i], Type: cols[i+1]})
		}
		return ti
	}
	var ev []string
	for _, c := range schema.HitColumns {
		typ := c.Type
		if c.Name == "UTCEventTime" {
			typ = "DateTime('UTC')"
		}
		ev = append(ev, c.Name, typ)
	}
	var ord []string
	for _, k := range schema.OrderKeys {
		ord = append(ord, k.Name, k.Type)
	}
	return map[string]*store.TableInfo{
		t.Events:      info(t.Events, "Distributed", append(ev, "_load_ts", "DateTime64(3)")...),
		t.Raw:         info(t.Raw, "Distributed", "raw", "String", "kafka_topic", "LowCardinality(String)", "_load_ts", "DateTime64(3)"),
		t.Errors:      info(t.Errors, "Distributed", "raw", "String", "error_class", "LowCardinality(String)", "_load_ts", "DateTime64(3)"),
		t.Orders:      info(t.Orders, "Distributed", append(ord, "_load_id", "String", "_load_ts", "DateTime64(3, 'UTC')")...),
		t.OrderErrors: info(t.OrderErrors, "Distributed", "raw", "String", "error_class", "LowCardinality(String)"),
		t.Marts:       info(t.Marts, "View", "order_day", "Date", "order_id", "String", "mismatch_class", "LowCardinality(String)"),
	}
}

func (f *fakeStore) Probe(_ context.Context, tables []string) (map[string]*store.TableInfo, error) {
	f.mu.Lock()
	f.probes++
	f.mu.Unlock()
	if f.fail != nil {
		return nil, f.fail
	}
	out := map[string]*store.TableInfo{}
	for _, t := range tables {
		switch info := f.layout[t]; {
		case f.dropped[t] || info == nil:
			out[t] = &store.TableInfo{Name: t}
		default:
			c := *info
			out[t] = &c
		}
	}
	return out, nil
}

// zero is the RowBinary default of a type: 0, "", [], NULL.
func zero(t *chtype.Type) []byte {
	switch t.Kind {
	case chtype.Nullable:
		return []byte{1}
	case chtype.LowCardinality:
		return zero(t.Elem)
	case chtype.String, chtype.Array:
		return []byte{0}
	}
	return make([]byte, t.Width())
}

// rowOf renders a row's values of cols: what a test set, else what the intake stores of the
// message (an events row's parsed hit h, an orders row's msg), else (a row with no message)
// the keys given and defaults.
func rowOf(cols []store.Column, h *intake.StoredHit, msg []byte, set map[string][]byte, order bool, keys map[string][]byte) ([]byte, error) {
	var out []byte
	var o intake.StoredOrder
	if order && msg != nil {
		o, _ = intake.ParseStoredOrder(msg)
	}
	for _, c := range cols {
		if v, ok := set[c.Name]; ok {
			out = append(out, v...)
			continue
		}
		switch {
		case msg != nil && !order:
			var err error
			if out, err = h.Append(out, c.Name, c.Type); err != nil {
				return nil, err
			}
		case msg != nil:
			var err error
			if out, err = o.Append(out, c.Name, c.Type); err != nil {
				return nil, err
			}
		case keys[c.Name] != nil:
			out = append(out, keys[c.Name]...)
		default:
			out = append(out, zero(c.Type)...)
		}
	}
	return out, nil
}

func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func (f *fakeStore) Events(_ context.Context, table string, date schema.Date, cols []store.Column, row func([]byte, []int, int) error) error {
	if err := f.read(table); err != nil {
		return err
	}
	var rows []evRow
	for _, e := range f.events {
		if e.date == date {
			rows = append(rows, e)
		}
	}
	slices.SortStableFunc(rows, func(a, b evRow) int { return cmp.Compare(a.watchID, b.watchID) })
	var ends []int
	for _, e := range rows {
		b, err := rowOf(cols, e.parsed(), e.msg, e.set, false, map[string][]byte{"WatchID": u64(e.watchID), "ClientID": u64(e.clientID),
			"EventDate": binary.LittleEndian.AppendUint16(nil, uint16(e.date))})
		if err != nil {
			return err
		}
		ends = ends[:0]
		off := 0
		for _, c := range cols {
			n, _, _ := c.Type.Size(b[off:])
			off += n
			ends = append(ends, off)
		}
		if err := row(b, ends, e.shard); err != nil {
			return err
		}
	}
	return nil
}

// hint is visitParamExtractString(raw, key): the string value after the first "key":.
func hint(raw []byte, key string) []byte {
	i := bytes.Index(raw, []byte(`"`+key+`":"`))
	if i < 0 {
		return nil
	}
	rest := raw[i+len(key)+4:]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return nil
	}
	return rest[:j]
}

func (f *fakeStore) Digests(_ context.Context, table, hintKey, classColumn string, row func(uint64, []byte, []byte, int)) error {
	if err := f.read(table); err != nil {
		return err
	}
	type dr struct {
		sum         uint64
		hint, class []byte
	}
	var rows []dr
	switch {
	case classColumn == "":
		for _, r := range f.raw {
			rows = append(rows, dr{store.SipHash64(r.raw), hint(r.raw, hintKey), nil})
		}
	case hintKey == "EventDate":
		for _, r := range f.errors {
			rows = append(rows, dr{store.SipHash64(r.raw), hint(r.raw, hintKey), []byte(r.class)})
		}
	default:
		for _, r := range f.orderErrors {
			rows = append(rows, dr{store.SipHash64(r.raw), hint(r.raw, hintKey), []byte(r.class)})
		}
	}
	slices.SortFunc(rows, func(a, b dr) int { return cmp.Compare(a.sum, b.sum) })
	for _, r := range rows {
		// As the server cuts them.
		if len(r.hint) > store.MaxHint {
			r.hint = r.hint[:store.MaxHint]
		}
		if len(r.class) > store.MaxClass {
			r.class = fmt.Appendf(nil, "%s…(%d bytes)", r.class[:store.MaxClass], len(r.class))
		}
		row(r.sum, r.hint, r.class, 0)
	}
	return nil
}

func (f *fakeStore) Orders(_ context.Context, table string, cols []store.Column, row func([]byte, []int, int) error) error {
	if err := f.read(table); err != nil {
		return err
	}
	rows := slices.Clone(f.orders)
	slices.SortStableFunc(rows, func(a, b ordRow) int { return cmp.Or(strings.Compare(a.id, b.id), cmp.Compare(a.date, b.date)) })
	for _, r := range rows {
		id := binary.AppendUvarint(nil, uint64(len(r.id)))
		b, err := rowOf(cols, nil, r.msg, r.set, true, map[string][]byte{"order_id": append(id, r.id...),
			"snapshot_date": binary.LittleEndian.AppendUint16(nil, uint16(r.date))})
		if err != nil {
			return err
		}
		if err := row(b, nil, r.shard); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeStore) MartClasses(_ context.Context, view string, first, last schema.Date, known []string) ([]store.MartCount, error) {
	if err := f.read(view); err != nil {
		return nil, err
	}
	var out []store.MartCount
	other := map[schema.Date]*store.MartCount{}
	for _, m := range f.marts {
		if m.Day < first || m.Day > last {
			continue
		}
		if slices.Contains(known, m.Class) {
			out = append(out, m)
			continue
		}
		o := other[m.Day]
		if o == nil {
			o = &store.MartCount{Day: m.Day, Example: m.Class}
			other[m.Day] = o
		}
		o.Count += m.Count
		o.Distinct++
	}
	for _, o := range other {
		out = append(out, *o)
	}
	return out, nil
}

func (f *fakeStore) LoadTimes(_ context.Context, table string, first, last schema.Date) (map[schema.Date][2]int64, int64, error) {
	if err := f.read(table); err != nil {
		return nil, 0, err
	}
	out := map[schema.Date][2]int64{}
	for d, l := range f.loads {
		if d >= first && d <= last {
			out[d] = l
		}
	}
	return out, f.now, nil
}

func (f *fakeStore) Count(_ context.Context, table, _ string, _, _ schema.Date) (int64, error) {
	if err := f.read(table); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[table], nil
}
