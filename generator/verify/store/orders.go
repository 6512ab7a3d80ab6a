package store

import (
	"slices"
	"strings"

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
	carried   map[orderVersion]bool  // (order_id, snapshot date) the run sends; nil when too large to keep
}

type orderVersion struct {
	id   string
	date schema.Date
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

	c        OrderCounts
	snap     map[schema.Date]*OrderSnapshot
	next     int
	cur      string
	dates    []schema.Date // the versions of the group being read, with repeats
	versions map[schema.Date]int
}

func newOrderMerge(plan *orderPlan, exactlyOnce bool, diffs *lister[OrderDiff]) *orderMerge {
	m := &orderMerge{planned: plan.sorted(), plan: plan, exactlyOnce: exactlyOnce, diffs: diffs, snap: map[schema.Date]*OrderSnapshot{}}
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

// row takes the next store row.
func (m *orderMerge) row(id []byte, date schema.Date) {
	m.c.Rows++
	if len(m.dates) > 0 && string(id) == m.cur {
		m.dates = append(m.dates, date)
		return
	}
	m.flush()
	m.cur = string(id)
	m.dates = append(m.dates[:0], date)
}

// flush judges the order whose rows were read.
func (m *orderMerge) flush() {
	if len(m.dates) == 0 {
		return
	}
	id := m.cur
	for m.next < len(m.planned) && m.planned[m.next].id < id {
		m.missing(m.planned[m.next])
		m.next++
	}
	// Versions, copies and FINAL's choice (the latest snapshot_date).
	final := m.dates[len(m.dates)-1]
	copies, inRange := 0, false
	for i, d := range m.dates {
		if i > 0 && d == m.dates[i-1] {
			copies++
			continue
		}
		if s, ok := m.snap[d]; ok {
			s.Versions++
			inRange = true
		}
	}
	m.c.Copies += copies
	if m.next < len(m.planned) && m.planned[m.next].id == id {
		p := m.planned[m.next]
		m.next++
		switch {
		case final == p.last:
			m.c.Present++
			m.snap[p.last].FinalPresent++
		case final < p.last:
			m.c.Stale++
			m.diffs.add(OrderDiff{Kind: KindStale, OrderID: id, Date: p.last.String(), Got: final.String(), Rows: len(m.dates)})
		case final > m.last:
			m.c.Newer++ // a later run's snapshot superseded it: not judged
		default:
			m.c.UnplannedVersions++
			m.diffs.add(OrderDiff{Kind: KindUnplannedVersion, OrderID: id, Date: p.last.String(), Got: final.String(), Rows: len(m.dates)})
		}
		if m.plan.carried != nil {
			for i, d := range m.dates {
				if (i == 0 || d != m.dates[i-1]) && m.inRange(d) && d != final && !m.plan.carried[orderVersion{id, d}] {
					m.c.UnplannedVersions++
					m.diffs.add(OrderDiff{Kind: KindUnplannedVersion, OrderID: id, Date: p.last.String(), Got: d.String(), Rows: len(m.dates)})
				}
			}
		}
		if copies > 0 && m.exactlyOnce {
			m.diffs.add(OrderDiff{Kind: KindCopies, OrderID: id, Date: p.last.String(), Got: final.String(), Rows: len(m.dates)})
		}
	} else if inRange {
		m.c.Unplanned++
		m.diffs.add(OrderDiff{Kind: KindUnplanned, OrderID: id, Got: final.String(), Rows: len(m.dates)})
	} else {
		m.c.OtherDates++
	}
	m.dates = m.dates[:0]
}

func (m *orderMerge) missing(p plannedOrder) {
	m.c.Missing++
	m.diffs.add(OrderDiff{Kind: KindMissing, OrderID: p.id, Date: p.last.String()})
}

// end ends the table.
func (m *orderMerge) end(res *OrdersResult) {
	m.flush()
	for ; m.next < len(m.planned); m.next++ {
		m.missing(m.planned[m.next])
	}
	res.Total = m.c
	for _, s := range m.plan.snapshots {
		s.OK = s.FinalPresent == s.Final
		res.Snapshots = append(res.Snapshots, s)
	}
}

// ok says whether the orders reconcile.
func (c OrderCounts) ok(exactlyOnce bool) bool {
	return c.Missing == 0 && c.Stale == 0 && c.Unplanned == 0 && c.UnplannedVersions == 0 &&
		c.Present+c.Newer == c.Planned && (!exactlyOnce || c.Copies == 0)
}
