package store

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/clickgen/clickgen/generator/clickhouse/chtype"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/intake"
)

// hitRow appends what the events table's judged columns hold of the accepted hit msg, as
// RowBinary of their types: the row a store's row is compared with.
func (l *layout) hitRow(dst, msg []byte) ([]byte, error) {
	var h intake.StoredHit
	return l.hitRowInto(dst, msg, &h)
}

// hitRowInto is hitRow parsing into h, whose memory it reuses.
func (l *layout) hitRowInto(dst, msg []byte, h *intake.StoredHit) ([]byte, error) {
	if !h.Parse(msg) {
		return dst, fmt.Errorf("store: a planned hit the intake does not accept: %s", chtype.Quote(msg, 200))
	}
	for _, c := range l.cols {
		var err error
		if dst, err = h.AppendColumn(dst, c.pos, c.Type); err != nil {
			return dst, fmt.Errorf("store: column %s of %s: %w (WatchID %d)", c.Name, l.table, err, h.Row().WatchID)
		}
	}
	return dst, nil
}

// keyRow appends the row of a clean event when only the keys are judged (WatchID and
// ClientID, UInt64 or Nullable(UInt64)), without rendering it.
func (l *layout) keyRow(dst []byte, watchID, clientID uint64) []byte {
	for _, c := range l.cols {
		if c.Type.Kind == chtype.Nullable {
			dst = append(dst, 0)
		}
		v := watchID
		if c.Name == hitClientID {
			v = clientID
		}
		dst = binary.LittleEndian.AppendUint64(dst, v)
	}
	return dst
}

// keysOnly says whether the events' judged columns are WatchID and ClientID alone.
func (l *layout) keysOnly() bool {
	return len(l.cols) == 2 && (l.cols[0].Name == hitWatchID && l.cols[1].Name == hitClientID)
}

// orderRow appends what the orders table's judged columns hold of the accepted order row msg.
func (l *layout) orderRow(dst, msg []byte) ([]byte, string, error) {
	o, ok := intake.ParseStoredOrder(msg)
	if !ok {
		return dst, "", fmt.Errorf("store: a planned order row the intake does not accept: %s", chtype.Quote(msg, 200))
	}
	for _, c := range l.cols {
		var err error
		if dst, err = o.Append(dst, c.Name, c.Type); err != nil {
			return dst, "", fmt.Errorf("store: column %s of %s: %w (order_id %s)", c.Name, l.table, err, storeText([]byte(o.ID())))
		}
	}
	return dst, o.ID(), nil
}

// split fills ends with where each column of row ends; false when row is not whole.
func (l *layout) split(row []byte, ends []int) ([]int, bool) {
	ends = ends[:0]
	off := 0
	for _, c := range l.cols {
		n, _, err := c.Type.Size(row[off:])
		if n == 0 || err != nil {
			return ends, false
		}
		off += n
		ends = append(ends, off)
	}
	return ends, off == len(row)
}

// value is column k of a row split at ends.
func value(row []byte, ends []int, k int) []byte {
	start := 0
	if k > 0 {
		start = ends[k-1]
	}
	return row[start:ends[k]]
}

// uintValue reads an UInt64 or Nullable(UInt64) value (NULL reads 0).
func uintValue(t *chtype.Type, v []byte) uint64 {
	if t.Kind == chtype.Nullable {
		if v[0] == 1 {
			return 0
		}
		v = v[1:]
	}
	return binary.LittleEndian.Uint64(v)
}

// stringValue reads a String, LowCardinality(String) or a Nullable of them (NULL reads "").
func stringValue(t *chtype.Type, v []byte) []byte {
	t = t.Base()
	if t.Kind == chtype.Nullable {
		if v[0] == 1 {
			return nil
		}
		v, t = v[1:], t.Elem
	}
	l, k := binary.Uvarint(v)
	return v[k : k+int(l)]
}

// dayValue reads a Date, Date32 or a Nullable of them as days since 1970.
func dayValue(t *chtype.Type, v []byte) int64 {
	if t.Kind == chtype.Nullable {
		if v[0] == 1 {
			return 0
		}
		v, t = v[1:], t.Elem
	}
	if t.Kind == chtype.Date32 {
		return int64(int32(binary.LittleEndian.Uint32(v)))
	}
	return int64(binary.LittleEndian.Uint16(v))
}

// columnCounter counts the rows whose judged columns differ, per column and date, with the
// first few examples.
type columnCounter struct {
	byKey map[[2]string]*ColumnDiff
	order [][2]string
}

func (c *columnCounter) add(column, date string, ex func() ValueExample) {
	if c.byKey == nil {
		c.byKey = map[[2]string]*ColumnDiff{}
	}
	k := [2]string{date, column}
	d := c.byKey[k]
	if d == nil {
		d = &ColumnDiff{Column: column, Date: date}
		c.byKey[k] = d
		c.order = append(c.order, k)
	}
	d.Rows++
	if len(d.Examples) < MaxExamples {
		d.Examples = append(d.Examples, ex())
	}
}

// merge adds o's counts and examples.
func (c *columnCounter) merge(o *columnCounter) {
	for _, k := range o.order {
		od := o.byKey[k]
		for _, ex := range od.Examples {
			c.add(od.Column, od.Date, func() ValueExample { return ex })
		}
		c.byKey[k].Rows += od.Rows - len(od.Examples)
	}
}

// list returns the counts by date, then in the order the columns were met.
func (c *columnCounter) list() []ColumnDiff {
	keys := slices.Clone(c.order)
	slices.SortStableFunc(keys, func(a, b [2]string) int { return cmp.Compare(a[0], b[0]) })
	out := make([]ColumnDiff, 0, len(keys))
	for _, k := range keys {
		out = append(out, *c.byKey[k])
	}
	return out
}

// compareRows compares a held row with the planned one, column by column, counting each
// column that differs in cc under date with an example keyed by key; it returns the names of
// the columns that differ.
func (l *layout) compareRows(held []byte, heldEnds []int, planned []byte, cc *columnCounter, date string, key func() string) []string {
	pe, ok := l.split(planned, nil)
	var diff []string
	for k, c := range l.cols {
		h := value(held, heldEnds, k)
		if ok {
			if p := value(planned, pe, k); bytes.Equal(h, p) {
				continue
			}
		}
		diff = append(diff, c.Name)
		cc.add(c.Name, date, func() ValueExample {
			ex := ValueExample{Key: key(), Held: c.Type.Text(h, maxValueText), Planned: "(not modelled)"}
			if ok {
				ex.Planned = c.Type.Text(value(planned, pe, k), maxValueText)
			}
			return ex
		})
	}
	return diff
}

// dayMessages finds a planned hit's message by its WatchID, to explain a changed row or list
// a missing one: the accepted garbage by its own list, the clean events by the day's model,
// through an index of its WatchIDs built on the first question (only a day that differs pays
// for it). A day planned from its segments keeps no model (see planSegments): build makes it
// again on the first question.
type dayMessages struct {
	day    *world.Day
	build  func() *world.Day // with day nil: makes the day's model (nil: the day plans none)
	extras map[uint64][]byte // accepted garbage: WatchID (as the intake reads it) → message
	once   sync.Once
	index  []idIndex
	buf    []byte
}

type idIndex struct {
	watchID uint64
	i       int32
}

// lookup finds watchID: an accepted garbage message, or the index of a clean event of the
// day; ok is false when the day plans none.
func (m *dayMessages) lookup(watchID uint64) (extra []byte, i int, ok bool) {
	if x, ok := m.extras[watchID]; ok {
		return x, -1, true
	}
	if m.day == nil && m.build == nil {
		return nil, -1, false
	}
	m.once.Do(func() {
		if m.day == nil {
			m.day = m.build()
		}
		if m.day == nil {
			return
		}
		m.index = make([]idIndex, m.day.Len())
		for i := range m.index {
			m.index[i] = idIndex{m.day.WatchID(i), int32(i)}
		}
		slices.SortFunc(m.index, func(a, b idIndex) int { return cmp.Compare(a.watchID, b.watchID) })
	})
	if m.day == nil {
		return nil, -1, false // the model could not be made again (verify was stopped)
	}
	k, found := slices.BinarySearchFunc(m.index, watchID, func(e idIndex, w uint64) int { return cmp.Compare(e.watchID, w) })
	if !found {
		return nil, -1, false
	}
	return nil, int(m.index[k].i), true
}

// message returns the planned message of watchID; ok is false when the day plans none.
func (m *dayMessages) message(watchID uint64) (msg []byte, ok bool) {
	x, i, ok := m.lookup(watchID)
	switch {
	case !ok:
		return nil, false
	case x != nil:
		return x, true
	}
	m.buf = m.day.AppendEvent(m.buf[:0], i)
	return m.buf, true
}

// clientID returns the ClientID a planned WatchID carries, as the intake reads it.
func (m *dayMessages) clientID(watchID uint64) uint64 {
	x, i, ok := m.lookup(watchID)
	switch {
	case !ok:
		return 0
	case x == nil:
		return m.day.ClientID(i)
	}
	if h, ok := intake.ParseStoredHit(x); ok {
		return h.Row().ClientID
	}
	return 0
}

// eventKey is how an example names an event row.
func eventKey(watchID, clientID uint64) string {
	return "WatchID " + strconv.FormatUint(watchID, 10) + " ClientID " + strconv.FormatUint(clientID, 10)
}
