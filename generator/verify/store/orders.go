package store

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/schema"
)

// plannedOrder is one order the run's snapshots carry, with the snapshot_date of its latest
// version: the one FINAL keeps (the table is a ReplacingMergeTree by order_id with
// snapshot_date as the version).
type plannedOrder struct {
	id   string
	last schema.Date
}

// orderPlan is what the orders table must hold.
type orderPlan struct {
	latest    map[string]schema.Date // order_id → latest snapshot carrying it
	snapshots []OrderSnapshot        // the range's snapshots, with Rows
	carried   map[orderVersion]int32 // (order_id, snapshot date) the run sends → its planned row
	rows      []byte                 // the planned rows (judged values, RowBinary), one after another
	ends      []int32                // where each planned row ends in rows
	l         *layout                // what is read of the table; rows are planned only when it is readable
	buf       []byte
}

type orderVersion struct {
	id   string
	date schema.Date
}

// carry plans the version of the accepted order row msg sent in the snapshot of date: its id
// and snapshot_date as the intake reads them, and its row.
func (p *orderPlan) carry(msg []byte, date schema.Date) error {
	o, ok := intake.ParseStoredOrder(msg)
	if !ok {
		return fmt.Errorf("store: snapshot %s: a row the intake does not accept: %s", date, storeText(msg))
	}
	id, d := o.ID(), o.SnapshotDate()
	if last, ok := p.latest[id]; !ok || last < d {
		p.latest[id] = d
	}
	v := orderVersion{id, d}
	if _, ok := p.carried[v]; ok {
		return nil
	}
	k := int32(-1)
	if p.l.ok() {
		var err error
		if p.buf, _, err = p.l.orderRow(p.buf[:0], msg); err != nil {
			return err
		}
		p.rows = append(p.rows, p.buf...)
		k = int32(len(p.ends))
		p.ends = append(p.ends, int32(len(p.rows)))
	}
	p.carried[v] = k
	return nil
}

// row returns the planned row of version k.
func (p *orderPlan) row(k int32) []byte {
	start := int32(0)
	if k > 0 {
		start = p.ends[k-1]
	}
	return p.rows[start:p.ends[k]]
}

// sorted returns the planned orders in order_id order, counting each snapshot's Final.
func (p *orderPlan) sorted() []plannedOrder {
	out := make([]plannedOrder, 0, len(p.latest))
	for id, d := range p.latest {
		out = append(out, plannedOrder{id, d})
	}
	slices.SortFunc(out, func(a, b plannedOrder) int { return strings.Compare(a.id, b.id) })
	return out
}

// orderMerge matches the orders table's rows, in (order_id, snapshot_date) order, with the
// planned orders.
type orderMerge struct {
	planned     []plannedOrder
	plan        *orderPlan
	first, last schema.Date // the range's snapshot dates
	exactlyOnce bool
	diffs       *lister[OrderDiff]
	cols        *columnCounter

	c        OrderCounts
	snap     map[schema.Date]*OrderSnapshot
	next     int
	cur      string
	group    []orderRow // the rows of the order being read
	versions map[schema.Date]int
	ends     []int
	shards   shardSet     // the shards the order's rows came from
	byShard  shardCounter // the rows per shard
}

// orderRow is one store row of the order being read: its version, and whether its judged
// values are the planned version's (or it has none planned) and which differ.
type orderRow struct {
	date    schema.Date
	equal   bool
	planned bool
	changed []string
	shard   int
}

func newOrderMerge(plan *orderPlan, exactlyOnce bool, diffs *lister[OrderDiff], cols *columnCounter) *orderMerge {
	m := &orderMerge{planned: plan.sorted(), plan: plan, exactlyOnce: exactlyOnce, diffs: diffs, cols: cols, snap: map[schema.Date]*OrderSnapshot{}}
	m.c.Planned = len(m.planned)
	for i := range plan.snapshots {
		s := &plan.snapshots[i]
		d := dateOfDay(s.Day)
		m.snap[d] = s
		if i == 0 || d < m.first {
			m.first = d
		}
		if d > m.last {
			m.last = d
		}
	}
	for _, o := range m.planned {
		m.snap[o.last].Final++
	}
	return m
}

func (m *orderMerge) inRange(d schema.Date) bool { _, ok := m.snap[d]; return ok }

// row takes the next store row: its judged values, and its shard (0 for a table not read
// through a cluster).
func (m *orderMerge) row(row []byte, shard int) error {
	l := m.plan.l
	var ok bool
	if m.ends, ok = l.split(row, m.ends); !ok {
		return fmt.Errorf("%s: a row that is not the RowBinary of its columns", storeText([]byte(l.table)))
	}
	id := stringValue(l.cols[l.key1].Type, value(row, m.ends, l.key1))
	date := schema.Date(dayValue(l.cols[l.key2].Type, value(row, m.ends, l.key2)))
	m.c.Rows++
	m.byShard.add(shard, 1)
	if len(m.group) > 0 && string(id) != m.cur {
		if string(id) < m.cur {
			return fmt.Errorf("%s: the answer is not in order_id order", storeText([]byte(l.table)))
		}
		m.flush()
	}
	if len(m.group) == 0 {
		m.cur = string(id)
		m.shards.reset(shard)
	}
	m.shards.add(shard)
	r := orderRow{date: date, equal: true, shard: shard}
	if k, ok := m.plan.carried[orderVersion{m.cur, date}]; ok && k >= 0 {
		r.planned = true
		prow := m.plan.row(k)
		if !bytes.Equal(row, prow) {
			r.equal = false
			key := func() string { return "order_id " + storeText(id) + " snapshot_date " + date.String() }
			r.changed = l.compareRows(row, m.ends, prow, m.cols, date.String(), key)
		}
	}
	m.group = append(m.group, r)
	return nil
}

// flush judges the order whose rows were read.
func (m *orderMerge) flush() {
	if len(m.group) == 0 {
		return
	}
	id := m.cur
	for m.next < len(m.planned) && m.planned[m.next].id < id {
		m.missing(m.planned[m.next])
		m.next++
	}
	// Versions, copies, changed rows and FINAL's choice (the latest snapshot_date).
	final := m.group[len(m.group)-1].date
	copies, inRange := 0, false
	for i := 0; i < len(m.group); {
		j := i
		equal := 0
		var changed []string
		for ; j < len(m.group) && m.group[j].date == m.group[i].date; j++ {
			if m.group[j].equal {
				equal++
			}
			for _, c := range m.group[j].changed {
				if !slices.Contains(changed, c) {
					changed = append(changed, c)
				}
			}
		}
		d := m.group[i].date
		if s, ok := m.snap[d]; ok {
			s.Versions++
			inRange = true
		}
		if equal > 1 {
			copies += equal - 1
		}
		if len(changed) > 0 {
			m.c.Changed++
			m.diffs.add(OrderDiff{Kind: KindChanged, OrderID: storeText([]byte(id)), Date: d.String(), Got: d.String(), Rows: j - i, Columns: strings.Join(changed, ", ")})
		}
		i = j
	}
	m.c.Copies += copies
	if m.shards.split() {
		// FINAL through the Distributed table keeps a version on each shard: the order is
		// counted once per shard.
		m.c.OnShards++
		var vs []string
		for _, r := range m.group {
			if v := fmt.Sprintf("%s@%d", r.date, r.shard); !slices.Contains(vs, v) {
				vs = append(vs, v)
			}
		}
		m.diffs.add(OrderDiff{Kind: KindOnShards, OrderID: storeText([]byte(id)), Got: final.String(), Rows: len(m.group), Shards: m.shards.list(), Versions: strings.Join(vs, ", ")})
	}
	if m.next < len(m.planned) && m.planned[m.next].id == id {
		p := m.planned[m.next]
		m.next++
		switch {
		case final == p.last:
			m.c.Present++
			m.snap[p.last].FinalPresent++
		case final < p.last:
			m.c.Stale++
			m.diffs.add(OrderDiff{Kind: KindStale, OrderID: storeText([]byte(id)), Date: p.last.String(), Got: final.String(), Rows: len(m.group)})
		case final > m.last:
			m.c.Newer++ // a later run's snapshot superseded it: not judged
		default:
			m.c.UnplannedVersions++
			m.diffs.add(OrderDiff{Kind: KindUnplannedVersion, OrderID: storeText([]byte(id)), Date: p.last.String(), Got: final.String(), Rows: len(m.group)})
		}
		for i, r := range m.group {
			d := r.date
			if (i == 0 || d != m.group[i-1].date) && m.inRange(d) && d != final {
				if _, carried := m.plan.carried[orderVersion{id, d}]; !carried {
					m.c.UnplannedVersions++
					m.diffs.add(OrderDiff{Kind: KindUnplannedVersion, OrderID: storeText([]byte(id)), Date: p.last.String(), Got: d.String(), Rows: len(m.group)})
				}
			}
		}
		if copies > 0 && m.exactlyOnce {
			m.diffs.add(OrderDiff{Kind: KindCopies, OrderID: storeText([]byte(id)), Date: p.last.String(), Got: final.String(), Rows: len(m.group)})
		}
	} else if inRange {
		m.c.Unplanned++
		m.diffs.add(OrderDiff{Kind: KindUnplanned, OrderID: storeText([]byte(id)), Got: final.String(), Rows: len(m.group)})
	} else {
		m.c.OtherDates++
	}
	m.group = m.group[:0]
}

func (m *orderMerge) missing(p plannedOrder) {
	m.c.Missing++
	m.diffs.add(OrderDiff{Kind: KindMissing, OrderID: storeText([]byte(p.id)), Date: p.last.String()})
}

// end ends the table.
func (m *orderMerge) end(res *OrdersResult) {
	m.flush()
	for ; m.next < len(m.planned); m.next++ {
		m.missing(m.planned[m.next])
	}
	res.Total = m.c
	if cl := m.plan.l.cluster(); cl != nil {
		res.Shards = m.byShard.list(cl, true)
	}
	for _, s := range m.plan.snapshots {
		s.OK = s.FinalPresent == s.Final
		res.Snapshots = append(res.Snapshots, s)
	}
}

// ok says whether the orders reconcile.
func (c OrderCounts) ok(exactlyOnce bool) bool {
	return c.Missing == 0 && c.Stale == 0 && c.Unplanned == 0 && c.UnplannedVersions == 0 && c.Changed == 0 && c.OnShards == 0 &&
		c.Present+c.Newer == c.Planned && (!exactlyOnce || c.Copies == 0)
}
