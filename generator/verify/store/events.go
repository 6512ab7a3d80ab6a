package store

import (
	"cmp"
	"slices"
)

// plannedEvent is one accepted hit the run leaves in the events table.
type plannedEvent struct{ watchID, clientID uint64 }

// sortPlanned sorts one date's planned events by WatchID and keeps one per WatchID (FINAL
// keeps one row of a WatchID, whatever its copies).
func sortPlanned(p []plannedEvent) []plannedEvent {
	slices.SortFunc(p, func(a, b plannedEvent) int {
		return cmp.Or(cmp.Compare(a.watchID, b.watchID), cmp.Compare(a.clientID, b.clientID))
	})
	return slices.CompactFunc(p, func(a, b plannedEvent) bool { return a.watchID == b.watchID })
}

// lister keeps the first max differences of a table and counts them all.
type lister[D any] struct {
	max   int
	list  []D
	count int
}

func (l *lister[D]) add(d D) {
	l.count++
	if len(l.list) < l.max {
		l.list = append(l.list, d)
	}
}

func (l *lister[D]) truncated() bool { return l.count > len(l.list) }

// eventMerge matches one date's store rows, in WatchID order, with its planned events
// (sorted by sortPlanned): FINAL's semantics, one row per WatchID, the others copies.
type eventMerge struct {
	planned     []plannedEvent
	date        string
	exactlyOnce bool
	diffs       *lister[EventDiff]

	c          EventCounts
	next       int    // the next planned event not yet met
	cur        uint64 // the WatchID of the group being read
	rows       int    // its rows so far (0: no group)
	plannedIdx int    // its planned event, −1 when unplanned
	client     uint64 // the ClientID of its first row
	clientOK   bool   // a row carries the planned ClientID
}

func newEventMerge(planned []plannedEvent, date string, exactlyOnce bool, diffs *lister[EventDiff]) *eventMerge {
	return &eventMerge{planned: planned, date: date, exactlyOnce: exactlyOnce, diffs: diffs,
		c: EventCounts{Planned: len(planned)}}
}

// row takes the next store row.
func (m *eventMerge) row(watchID, clientID uint64) {
	m.c.Rows++
	if m.rows > 0 && watchID == m.cur {
		m.rows++
		if m.plannedIdx >= 0 && clientID == m.planned[m.plannedIdx].clientID {
			m.clientOK = true
		}
		return
	}
	m.flush()
	for m.next < len(m.planned) && m.planned[m.next].watchID < watchID {
		m.missing(m.planned[m.next])
		m.next++
	}
	m.cur, m.rows, m.client, m.plannedIdx = watchID, 1, clientID, -1
	if m.next < len(m.planned) && m.planned[m.next].watchID == watchID {
		m.plannedIdx = m.next
		m.clientOK = clientID == m.planned[m.next].clientID
		m.next++
	}
}

func (m *eventMerge) missing(p plannedEvent) {
	m.c.Missing++
	m.diffs.add(EventDiff{Kind: KindMissing, Date: m.date, WatchID: p.watchID, ClientID: p.clientID})
}

// flush ends the group being read.
func (m *eventMerge) flush() {
	if m.rows == 0 {
		return
	}
	if m.plannedIdx >= 0 {
		m.c.Present++
		if !m.clientOK {
			m.c.Changed++
			m.diffs.add(EventDiff{Kind: KindChanged, Date: m.date, WatchID: m.cur, ClientID: m.client,
				PlannedClientID: m.planned[m.plannedIdx].clientID, Rows: m.rows})
		}
	} else {
		m.c.Unplanned++
		m.diffs.add(EventDiff{Kind: KindUnplanned, Date: m.date, WatchID: m.cur, ClientID: m.client, Rows: m.rows})
	}
	if m.rows > 1 {
		m.c.Copies += m.rows - 1
		if m.exactlyOnce && m.plannedIdx >= 0 {
			m.diffs.add(EventDiff{Kind: KindCopies, Date: m.date, WatchID: m.cur, ClientID: m.client, Rows: m.rows})
		}
	}
	m.rows = 0
}

// end ends the date: planned events not met are missing.
func (m *eventMerge) end() EventCounts {
	m.flush()
	for ; m.next < len(m.planned); m.next++ {
		m.missing(m.planned[m.next])
	}
	return m.c
}

// ok says whether the date reconciles.
func (c EventCounts) ok(exactlyOnce bool) bool {
	return c.Missing == 0 && c.Unplanned == 0 && c.Changed == 0 && c.Present == c.Planned && (!exactlyOnce || c.Copies == 0)
}
