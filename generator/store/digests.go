package store

import (
	"cmp"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"sync"

	"github.com/clickgen/clickgen/schema"
)

// digestEntry is one row a raw or error table must hold: the first 8 bytes of the MD5 of
// its bytes (a whole run at ×100 is tens of millions of rows: 16 bytes each, not the
// messages), the day (or snapshot) of its message, what the message is, and its error class.
type digestEntry struct {
	prefix uint64
	day    int32
	what   uint16 // index into digestPlan.whats
	class  uint8  // 1 + index into digestPlan.classes; 0 for none (the raw table)
}

// digestPlan is the rows a raw or error table must hold.
type digestPlan struct {
	entries []digestEntry
	whats   []string
	whatIdx map[string]uint16
	classes []string // the table's error classes; nil for the raw table
	units   []int    // the days (snapshots) planned, in order
}

func newDigestPlan(classes []string) *digestPlan {
	return &digestPlan{whatIdx: map[string]uint16{}, classes: classes}
}

func prefixOf(sum [16]byte) uint64 { return binary.BigEndian.Uint64(sum[:8]) }

// add plans one row of the message digested as sum, of day, described by what, with error
// class class ("" for none).
func (p *digestPlan) add(sum [16]byte, day int, what, class string) {
	w, ok := p.whatIdx[what]
	if !ok {
		w = uint16(len(p.whats))
		p.whats = append(p.whats, what)
		p.whatIdx[what] = w
	}
	c := uint8(0)
	if class != "" {
		c = uint8(slices.Index(p.classes, class) + 1)
	}
	p.entries = append(p.entries, digestEntry{prefix: prefixOf(sum), day: int32(day), what: w, class: c})
}

// unit notes that day (or snapshot) is planned, even with no row.
func (p *digestPlan) unit(day int) {
	if n := len(p.units); n == 0 || p.units[n-1] != day {
		p.units = append(p.units, day)
	}
}

// sort orders the entries by digest, keeping the entries of one digest (the same bytes sent on
// several days: "{}", a plain-text line) in day order.
func (p *digestPlan) sort() {
	slices.SortStableFunc(p.entries, func(a, b digestEntry) int { return cmp.Compare(a.prefix, b.prefix) })
}

func (p *digestPlan) className(c uint8) string {
	if c == 0 {
		return ""
	}
	return p.classes[c-1]
}

// digester computes MD5s of many values on a few goroutines.
type digester struct {
	workers int
}

// sums fills out[i] with the MD5 of value(i) for i < n.
func (d digester) sums(n int, value func(i int) []byte, out [][16]byte) {
	w := min(d.workers, max(1, n/256))
	if w <= 1 {
		for i := range n {
			out[i] = md5.Sum(value(i))
		}
		return
	}
	var wg sync.WaitGroup
	step := (n + w - 1) / w
	for k := range w {
		lo, hi := k*step, min(n, (k+1)*step)
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				out[i] = md5.Sum(value(i))
			}
		}()
	}
	wg.Wait()
}

// storeRow is one row of a raw or error table, of the digest group being read.
type storeRow struct {
	hint, class string
}

// digestMerge matches the rows of a raw or error table, in MD5 order, with a plan.
type digestMerge struct {
	plan        *digestPlan
	exactlyOnce bool
	inRange     func(schema.Date) bool // a date the range's rows name
	diffs       *lister[DigestDiff]

	byUnit     map[int32]*DigestUnit
	unplanned  int
	otherDates int
	next       int // the next planned entry not yet met
	cur        [16]byte
	group      []storeRow
	matched    []bool
	missed     []digestEntry // planned entries not found, judged at the end (expiry)
}

func newDigestMerge(plan *digestPlan, exactlyOnce bool, inRange func(schema.Date) bool, diffs *lister[DigestDiff]) *digestMerge {
	m := &digestMerge{plan: plan, exactlyOnce: exactlyOnce, inRange: inRange, diffs: diffs, byUnit: map[int32]*DigestUnit{}}
	for _, d := range plan.units {
		u := &DigestUnit{Day: d, Date: dayDate(d)}
		if plan.classes != nil {
			u.ByClass = map[string]DigestCounts{}
			for _, c := range plan.classes {
				u.ByClass[c] = DigestCounts{}
			}
		}
		m.byUnit[int32(d)] = u
	}
	redelivered, ok := plan.whatIdx[whatRedelivered]
	for _, e := range plan.entries {
		m.count(e, func(c *DigestCounts) {
			c.Planned++
			if ok && e.what == redelivered {
				c.Redelivered++
			}
		})
	}
	return m
}

// whatRedelivered describes a planned redelivery.
const whatRedelivered = "redelivered"

// present counts e found.
func (m *digestMerge) present(e digestEntry) {
	m.count(e, func(c *DigestCounts) {
		c.Present++
		if m.plan.whats[e.what] == whatRedelivered {
			c.RedeliveredPresent++
		}
	})
}

// count applies f to the counts of e's unit and of its class.
func (m *digestMerge) count(e digestEntry, f func(*DigestCounts)) {
	u := m.byUnit[e.day]
	f(&u.DigestCounts)
	if u.ByClass != nil && e.class != 0 {
		c := u.ByClass[m.plan.className(e.class)]
		f(&c)
		u.ByClass[m.plan.className(e.class)] = c
	}
}

// row takes the next store row.
func (m *digestMerge) row(sum [16]byte, hint, class []byte) {
	if len(m.group) > 0 && sum != m.cur {
		m.flush()
	}
	m.cur = sum
	m.group = append(m.group, storeRow{hint: string(hint), class: string(class)})
}

// flush matches the group of store rows of one MD5 with the planned entries of its prefix.
func (m *digestMerge) flush() {
	if len(m.group) == 0 {
		return
	}
	p := prefixOf(m.cur)
	for m.next < len(m.plan.entries) && m.plan.entries[m.next].prefix < p {
		m.missed = append(m.missed, m.plan.entries[m.next])
		m.next++
	}
	lo := m.next
	for m.next < len(m.plan.entries) && m.plan.entries[m.next].prefix == p {
		m.next++
	}
	planned := m.plan.entries[lo:m.next]
	m.matched = append(m.matched[:0], make([]bool, len(planned))...)
	copies := 0
	hex := hex.EncodeToString(m.cur[:])
	for _, r := range m.group {
		if i := m.pick(planned, r, true); i >= 0 {
			m.matched[i] = true
			m.present(planned[i])
			continue
		}
		if i := m.pick(planned, r, false); i >= 0 {
			m.matched[i] = true
			e := planned[i]
			m.count(e, func(c *DigestCounts) { c.Misclassified++ })
			m.diffs.add(DigestDiff{Kind: KindMisclassified, Day: int(e.day), Date: dayDate(int(e.day)), What: m.plan.whats[e.what],
				Class: m.plan.className(e.class), GotClass: r.class, MD5: hex, Rows: 1})
			continue
		}
		copies++
	}
	for i, e := range planned {
		if !m.matched[i] {
			m.missed = append(m.missed, e)
		}
	}
	if copies > 0 {
		if len(planned) > 0 {
			e := planned[m.owner(planned, m.group[0].hint)]
			m.count(e, func(c *DigestCounts) { c.Copies += copies })
			if m.exactlyOnce {
				m.diffs.add(DigestDiff{Kind: KindCopies, Day: int(e.day), Date: dayDate(int(e.day)), What: m.plan.whats[e.what],
					Class: m.plan.className(e.class), MD5: hex, Rows: len(m.group)})
			}
		} else {
			hint := m.group[0].hint
			if d, ok := parseDate(hint); ok && !m.inRange(d) {
				m.otherDates += copies
			} else {
				m.unplanned += copies
				m.diffs.add(DigestDiff{Kind: KindUnplanned, Day: -1, GotClass: m.group[0].class, MD5: hex, Hint: hint, Rows: copies})
			}
		}
	}
	m.group = m.group[:0]
}

// pick chooses the planned entry a store row stands for, among those of its digest not yet
// matched: of its class (sameClass) or of any class (a misclassified row); preferring the
// one of the day the row's raw JSON names, then a message over its redelivery (one copy of
// two found: the redelivery is the one missing), then the latest day (the same bytes sent on
// several days, a "{}", are told apart by nothing; an older day's row is the likelier to
// have expired). −1 when none is left.
func (m *digestMerge) pick(planned []digestEntry, r storeRow, sameClass bool) int {
	hinted, ok := parseDate(r.hint)
	best, bestScore := -1, -1
	for i, e := range planned {
		if m.matched[i] || sameClass && m.plan.className(e.class) != r.class {
			continue
		}
		score := 0
		if ok && dateOfDay(int(e.day)) == hinted {
			score += 2
		}
		if m.plan.whats[e.what] != whatRedelivered {
			score++
		}
		if score >= bestScore { // entries are in day order: ties go to the latest
			best, bestScore = i, score
		}
	}
	return best
}

// owner is the planned entry that copies of a digest are counted against: the one of the day
// the rows name, else the latest.
func (m *digestMerge) owner(planned []digestEntry, hint string) int {
	if d, ok := parseDate(hint); ok {
		for i, e := range planned {
			if dateOfDay(int(e.day)) == d {
				return i
			}
		}
	}
	return len(planned) - 1
}

// end ends the table: planned entries never met are missing, or expired when expired says
// their day's raw rows are past the table's retention.
func (m *digestMerge) end(res *DigestResult, expired func(day int) bool) {
	m.flush()
	m.missed = append(m.missed, m.plan.entries[m.next:]...)
	m.next = len(m.plan.entries)
	for _, e := range m.missed {
		if expired != nil && expired(int(e.day)) {
			m.count(e, func(c *DigestCounts) { c.Expired++ })
			continue
		}
		m.count(e, func(c *DigestCounts) { c.Missing++ })
	}
	// List the missing ones grouped per digest: a missing redelivery is one row more of its
	// message.
	slices.SortStableFunc(m.missed, func(a, b digestEntry) int { return cmp.Compare(a.day, b.day) })
	for _, e := range m.missed {
		if expired != nil && expired(int(e.day)) {
			continue
		}
		m.diffs.add(DigestDiff{Kind: KindMissing, Day: int(e.day), Date: dayDate(int(e.day)), What: m.plan.whats[e.what],
			Class: m.plan.className(e.class), MD5: hex.EncodeToString(binary.BigEndian.AppendUint64(nil, e.prefix)) + "…", Rows: 1})
	}
	res.Classes = m.plan.classes
	res.Unplanned, res.OtherDates = m.unplanned, m.otherDates
	for _, d := range m.plan.units {
		u := m.byUnit[int32(d)]
		u.OK = u.Missing == 0 && u.Misclassified == 0 && u.Present == u.Planned-u.Expired && (!m.exactlyOnce || u.Copies == 0)
		res.Total.add(u.DigestCounts)
		res.Units = append(res.Units, *u)
	}
}

// parseDate reads YYYY-MM-DD.
func parseDate(s string) (schema.Date, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, false
	}
	n := func(t string) int {
		v := 0
		for _, c := range t {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	return schema.DateOf(n(s[:4]), n(s[5:7]), n(s[8:]))
}
