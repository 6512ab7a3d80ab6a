package store

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// plannedEvent is one accepted hit the run leaves in the events table: its WatchID and the
// digest of the row the intake stores of it (its judged columns).
type plannedEvent struct{ watchID, digest uint64 }

// sortPlanned sorts one date's planned events by WatchID and keeps one per WatchID (FINAL
// keeps one row of a WatchID, whatever its copies).
func sortPlanned(p []plannedEvent) []plannedEvent {
	slices.SortFunc(p, func(a, b plannedEvent) int {
		return cmp.Or(cmp.Compare(a.watchID, b.watchID), cmp.Compare(a.digest, b.digest))
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

// full says whether the next difference would only be counted, not listed.
func (l *lister[D]) full() bool { return len(l.list) >= l.max }

// eventMerge matches one date's store rows, in WatchID order, with its planned events
// (sorted by sortPlanned): one row per WatchID whose values are the planned ones; further
// equal rows are copies (what FINAL collapses), and a row whose values differ is a changed
// WatchID even when an equal row is there too. A WatchID whose rows came from more than one
// shard of a Distributed table's cluster is on_shards: FINAL, which collapses within a shard,
// keeps a row of it on each.
type eventMerge struct {
	planned     []plannedEvent
	date        string
	exactlyOnce bool
	diffs       *lister[EventDiff]
	l           *layout
	msgs        *dayMessages
	cols        *columnCounter

	c          EventCounts
	next       int    // the next planned event not yet met
	cur        uint64 // the WatchID of the group being read
	rows       int    // its rows so far (0: no group)
	plannedIdx int    // its planned event, −1 when unplanned
	client     uint64 // the ClientID of its first row
	equal      int    // its rows equal to the planned one
	changed    []string
	heldClient uint64       // the ClientID of its first changed row
	shards     shardSet     // the shards its rows came from
	byShard    shardCounter // the date's rows per shard
	planBuf    []byte
}

func newEventMerge(planned []plannedEvent, date string, exactlyOnce bool, diffs *lister[EventDiff], l *layout, msgs *dayMessages, cols *columnCounter) *eventMerge {
	return &eventMerge{planned: planned, date: date, exactlyOnce: exactlyOnce, diffs: diffs, l: l, msgs: msgs, cols: cols,
		c: EventCounts{Planned: len(planned)}}
}

// row takes the next store row: its judged values, split at ends, and its shard (0 for a
// table not read through a cluster).
func (m *eventMerge) row(row []byte, ends []int, shard int) error {
	l := m.l
	watchID := uintValue(l.cols[l.key1].Type, value(row, ends, l.key1))
	clientID := uintValue(l.cols[l.key2].Type, value(row, ends, l.key2))
	m.c.Rows++
	m.byShard.add(shard, 1)
	if m.rows == 0 || watchID != m.cur {
		if m.rows > 0 && watchID < m.cur {
			return fmt.Errorf("%s: the answer is not in WatchID order (%d after %d)", storeText([]byte(l.table)), watchID, m.cur)
		}
		m.flush()
		for m.next < len(m.planned) && m.planned[m.next].watchID < watchID {
			m.missing(m.planned[m.next])
			m.next++
		}
		m.cur, m.rows, m.client, m.plannedIdx, m.equal, m.changed = watchID, 0, clientID, -1, 0, m.changed[:0]
		m.shards.reset(shard)
		if m.next < len(m.planned) && m.planned[m.next].watchID == watchID {
			m.plannedIdx = m.next
			m.next++
		}
	}
	m.rows++
	m.shards.add(shard)
	if m.plannedIdx < 0 {
		return nil
	}
	if l.digest(row) == m.planned[m.plannedIdx].digest {
		m.equal++
		return nil
	}
	// A changed row: which columns differ, against the planned message's row.
	if len(m.changed) == 0 {
		m.heldClient = clientID
	}
	msg, ok := m.msgs.message(watchID)
	var prow []byte
	if ok {
		var err error
		if prow, err = l.hitRow(m.planBuf[:0], msg); err != nil {
			return err
		}
		m.planBuf = prow
	}
	for _, c := range l.compareRows(row, ends, prow, m.cols, m.date, func() string { return eventKey(watchID, clientID) }) {
		if !slices.Contains(m.changed, c) {
			m.changed = append(m.changed, c)
		}
	}
	return nil
}

func (m *eventMerge) missing(p plannedEvent) {
	m.c.Missing++
	d := EventDiff{Kind: KindMissing, Date: m.date, WatchID: p.watchID}
	if !m.diffs.full() {
		d.ClientID = m.msgs.clientID(p.watchID)
	}
	m.diffs.add(d)
}

// flush ends the group being read.
func (m *eventMerge) flush() {
	if m.rows == 0 {
		return
	}
	if m.shards.split() {
		m.c.OnShards++
		m.diffs.add(EventDiff{Kind: KindOnShards, Date: m.date, WatchID: m.cur, ClientID: m.client, Rows: m.rows, Shards: m.shards.list()})
	}
	if m.plannedIdx >= 0 {
		m.c.Present++
		if len(m.changed) > 0 {
			m.c.Changed++
			d := EventDiff{Kind: KindChanged, Date: m.date, WatchID: m.cur, ClientID: m.heldClient, Rows: m.rows, Columns: strings.Join(m.changed, ", ")}
			if slices.Contains(m.changed, hitClientID) && !m.diffs.full() {
				d.PlannedClientID = m.msgs.clientID(m.cur)
			}
			m.diffs.add(d)
		}
		if m.equal > 1 {
			m.c.Copies += m.equal - 1
			if m.exactlyOnce {
				m.diffs.add(EventDiff{Kind: KindCopies, Date: m.date, WatchID: m.cur, ClientID: m.client, Rows: m.rows})
			}
		}
	} else {
		m.c.Unplanned++
		m.diffs.add(EventDiff{Kind: KindUnplanned, Date: m.date, WatchID: m.cur, ClientID: m.client, Rows: m.rows})
		m.c.Copies += m.rows - 1
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
	return c.Missing == 0 && c.Unplanned == 0 && c.Changed == 0 && c.OnShards == 0 && c.Present == c.Planned && (!exactlyOnce || c.Copies == 0)
}
