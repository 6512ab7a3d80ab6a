package store

import (
	"cmp"
	"slices"
	"strconv"
	"sync"

	"github.com/clickgen/clickgen/schema"
)

// digestEntry is one row a raw or error table must hold: the [SipHash64] of its bytes (a
// whole run at ×100 is tens of millions of rows: 16 bytes each, not the messages), the day (or
// snapshot) of its message, what the message is, and its error class.
type digestEntry struct {
	hash  uint64
	day   int32
	what  uint16 // index into digestPlan.whats
	class uint8  // 1 + index into digestPlan.classes; 0 for none (the raw table)
}

// digestPlan is the rows a raw or error table must hold. The raw rows of the days' clean
// events, nearly all of a raw table's, are kept apart as their hashes alone, per day (8 bytes
// a row, where an entry takes 16: 41 MB of a ×100 day's raw plan, not 83), and sorted in place
// (the entries' radix sort needs a second array as large).
type digestPlan struct {
	entries []digestEntry
	clean   []cleanDay // the clean events' rows, per day in planned order
	whats   []string
	whatIdx map[string]uint16
	classes []string // the table's error classes; nil for the raw table
	units   []int    // the days (snapshots) planned, in order
}

// cleanDay is the raw rows of one day's clean events: the hashes of their bytes.
type cleanDay struct {
	day    int32
	hashes []uint64
}

// whatClean describes the raw row of a clean event.
const whatClean = "clean"

func newDigestPlan(classes []string) *digestPlan {
	return &digestPlan{whatIdx: map[string]uint16{}, classes: classes}
}

// add plans one row of the message hashed as hash, of day, described by what, with error
// class class ("" for none).
func (p *digestPlan) add(hash uint64, day int, what, class string) {
	c := uint8(0)
	if class != "" {
		c = uint8(slices.Index(p.classes, class) + 1)
	}
	p.entries = append(p.entries, digestEntry{hash: hash, day: int32(day), what: p.what(what), class: c})
}

// what is the index of what in p.whats, added when new.
func (p *digestPlan) what(what string) uint16 {
	w, ok := p.whatIdx[what]
	if !ok {
		w = uint16(len(p.whats))
		p.whats = append(p.whats, what)
		p.whatIdx[what] = w
	}
	return w
}

// addClean plans the raw rows of clean events of day, hashed as hashes: what add(hash, day,
// whatClean, "") plans for each, in 8 bytes a row. A day's clean rows are planned before its
// other rows, and days in order.
func (p *digestPlan) addClean(day int, hashes []uint64) {
	p.what(whatClean)
	n := len(p.clean)
	if n == 0 || p.clean[n-1].day != int32(day) {
		p.clean = append(p.clean, cleanDay{day: int32(day)})
		n++
	}
	c := &p.clean[n-1]
	c.hashes = append(slices.Grow(c.hashes, len(hashes)), hashes...)
}

// unit notes that day (or snapshot) is planned, even with no row.
func (p *digestPlan) unit(day int) {
	if n := len(p.units); n == 0 || p.units[n-1] != day {
		p.units = append(p.units, day)
	}
}

// sort orders the entries by hash, keeping the entries of one hash (the same bytes sent on
// several days: "{}", a plain-text line) in the order they were planned, which is day order,
// and each day's clean rows by hash.
func (p *digestPlan) sort() {
	p.entries = sortByHash(p.entries)
	for _, c := range p.clean {
		slices.Sort(c.hashes)
	}
}

// sortByHash sorts entries by hash, stably, and returns them (in entries' array or in another
// of the same length): a least-significant-digit radix sort, 16 bits a pass, each pass a
// stable counting sort. A stable comparison sort (slices.SortStableFunc) took a fifth of
// verify's CPU on the fill world's 405 714 raw rows; this is linear.
func sortByHash(entries []digestEntry) []digestEntry {
	if len(entries) < 256 {
		slices.SortStableFunc(entries, func(a, b digestEntry) int { return cmp.Compare(a.hash, b.hash) })
		return entries
	}
	src, dst := entries, make([]digestEntry, len(entries))
	var count [1 << 16]int
	for shift := uint(0); shift < 64; shift += 16 {
		clear(count[:])
		for i := range src {
			count[uint16(src[i].hash>>shift)]++
		}
		if count[uint16(src[0].hash>>shift)] == len(src) {
			continue // every entry has this digit: the pass would move nothing
		}
		sum := 0
		for d, n := range count {
			count[d] = sum
			sum += n
		}
		for i := range src {
			d := uint16(src[i].hash >> shift)
			dst[count[d]] = src[i]
			count[d]++
		}
		src, dst = dst, src
	}
	return src
}

// planned is the number of rows planned.
func (p *digestPlan) planned() int {
	n := len(p.entries)
	for _, c := range p.clean {
		n += len(c.hashes)
	}
	return n
}

// planCursor walks a sorted plan's rows in hash order, the rows of one hash in the order they
// were planned (day order; a day's clean rows before its others), as if all were entries
// sorted by sortByHash. The clean days' next rows are kept in a binary heap, so a row costs
// the logarithm of the range's days, not the days (a year is 365 clean days).
type planCursor struct {
	p     *digestPlan
	entry int         // the next of p.entries
	heads []cleanHead // the clean days with rows left, a min-heap by (hash, day)
	clw   uint16
}

// cleanHead is a clean day's next row: its hash, its day, and where it is.
type cleanHead struct {
	hash uint64
	day  int32
	i    int32 // p.clean[i]
	k    int   // p.clean[i].hashes[k]
}

func (a cleanHead) less(b cleanHead) bool {
	return a.hash < b.hash || a.hash == b.hash && a.day < b.day
}

func (p *digestPlan) cursor() *planCursor {
	c := &planCursor{p: p, clw: p.whatIdx[whatClean]}
	for i, cd := range p.clean {
		if len(cd.hashes) > 0 {
			c.heads = append(c.heads, cleanHead{hash: cd.hashes[0], day: cd.day, i: int32(i)})
		}
	}
	for k := len(c.heads)/2 - 1; k >= 0; k-- {
		c.down(k)
	}
	return c
}

// down restores the heap below heads[k].
func (c *planCursor) down(k int) {
	h := c.heads
	for {
		l := 2*k + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && h[r].less(h[l]) {
			l = r
		}
		if !h[l].less(h[k]) {
			return
		}
		h[k], h[l] = h[l], h[k]
		k = l
	}
}

// peek returns the next row, false when none is left.
func (c *planCursor) peek() (digestEntry, bool) {
	e, _, ok := c.head()
	return e, ok
}

// head returns the next row and whether it is a clean day's (the heap's first).
func (c *planCursor) head() (best digestEntry, clean bool, ok bool) {
	if c.entry < len(c.p.entries) {
		best, ok = c.p.entries[c.entry], true
	}
	if len(c.heads) > 0 {
		h := c.heads[0]
		// A clean row goes before an entry of the same hash of its day or a later one.
		if !ok || h.hash < best.hash || h.hash == best.hash && h.day <= best.day {
			best, clean, ok = digestEntry{hash: h.hash, day: h.day, what: c.clw}, true, true
		}
	}
	return best, clean, ok
}

// next returns the next row and moves past it, false when none is left.
func (c *planCursor) next() (digestEntry, bool) {
	e, clean, ok := c.head()
	switch {
	case !ok:
	case !clean:
		c.entry++
	default:
		h := &c.heads[0]
		if hashes := c.p.clean[h.i].hashes; h.k+1 < len(hashes) {
			h.k++
			h.hash = hashes[h.k]
		} else {
			last := len(c.heads) - 1
			c.heads[0] = c.heads[last]
			c.heads = c.heads[:last]
		}
		c.down(0)
	}
	return e, ok
}

func (p *digestPlan) className(c uint8) string {
	if c == 0 {
		return ""
	}
	return p.classes[c-1]
}

// digester hashes many values on a few goroutines.
type digester struct {
	workers int
}

// sums fills out[i] with the SipHash64 of value(i) for i < n.
func (d digester) sums(n int, value func(i int) []byte, out []uint64) {
	w := min(d.workers, max(1, n/256))
	if w <= 1 {
		for i := range n {
			out[i] = SipHash64(value(i))
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
				out[i] = SipHash64(value(i))
			}
		}()
	}
	wg.Wait()
}

// storeRow is one row of a raw or error table, of the hash group being read.
type storeRow struct {
	hint, class string
}

// digestMerge matches the rows of a raw or error table, in hash order, with a plan.
type digestMerge struct {
	plan        *digestPlan
	exactlyOnce bool
	inRange     func(schema.Date) bool // a date the range's rows name
	diffs       *lister[DigestDiff]

	byUnit     map[int32]*DigestUnit
	unplanned  int
	otherDates int
	next       *planCursor // the planned rows not yet met
	cur        uint64
	group      []storeRow
	planned    []digestEntry // the planned rows of the hash being matched
	matched    []bool
	missed     []digestEntry // planned entries not found, judged at the end (expiry)
	hint       string        // the last hint and class seen, reused while rows repeat them
	class      string
}

func newDigestMerge(plan *digestPlan, exactlyOnce bool, inRange func(schema.Date) bool, diffs *lister[DigestDiff]) *digestMerge {
	m := &digestMerge{plan: plan, exactlyOnce: exactlyOnce, inRange: inRange, diffs: diffs, byUnit: map[int32]*DigestUnit{}, next: plan.cursor()}
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
	for _, c := range plan.clean {
		m.byUnit[c.day].Planned += len(c.hashes) // of no class, not redeliveries
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
func (m *digestMerge) row(hash uint64, hint, class []byte) {
	if len(m.group) > 0 && hash != m.cur {
		m.flush()
	}
	m.cur = hash
	// Rows repeat a few hints (dates) and classes: one string each, not one per row.
	if string(hint) != m.hint {
		m.hint = string(hint)
	}
	if string(class) != m.class {
		m.class = string(class)
	}
	m.group = append(m.group, storeRow{hint: m.hint, class: m.class})
}

// hashText writes a hash as the store prints sipHash64 (SELECT raw FROM t WHERE
// sipHash64(raw) = … finds the row).
func hashText(h uint64) string { return strconv.FormatUint(h, 10) }

// flush matches the group of store rows of one hash with the planned entries of that hash.
func (m *digestMerge) flush() {
	if len(m.group) == 0 {
		return
	}
	p := m.cur
	for e, ok := m.next.peek(); ok && e.hash < p; e, ok = m.next.peek() {
		m.missed = append(m.missed, e)
		m.next.next()
	}
	planned := m.planned[:0]
	for e, ok := m.next.peek(); ok && e.hash == p; e, ok = m.next.peek() {
		planned = append(planned, e)
		m.next.next()
	}
	m.planned = planned
	m.matched = append(m.matched[:0], make([]bool, len(planned))...)
	copies := 0
	text := hashText(m.cur)
	// First the rows under a planned class, then the others: a row under a wrong class is a
	// difference even when a row under the right one is there too; only a row equal to a
	// planned one (its bytes and its class) beyond the planned number is a copy.
	var rest []storeRow
	for _, r := range m.group {
		if i := m.pick(planned, r, true); i >= 0 {
			m.matched[i] = true
			m.present(planned[i])
			continue
		}
		rest = append(rest, r)
	}
	misclassified := func(e digestEntry, r storeRow) {
		m.count(e, func(c *DigestCounts) { c.Misclassified++ })
		m.diffs.add(DigestDiff{Kind: KindMisclassified, Day: int(e.day), Date: dayDate(int(e.day)), What: m.plan.whats[e.what],
			Class: m.plan.className(e.class), GotClass: storeText([]byte(r.class)), Hash: text, Rows: 1})
	}
	for _, r := range rest {
		if i := m.pick(planned, r, false); i >= 0 {
			m.matched[i] = true
			misclassified(planned[i], r)
			continue
		}
		if len(planned) > 0 && !slices.ContainsFunc(planned, func(e digestEntry) bool { return m.plan.className(e.class) == r.class }) {
			misclassified(planned[m.owner(planned, r.hint)], r)
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
					Class: m.plan.className(e.class), Hash: text, Rows: len(m.group)})
			}
		} else {
			hint := m.group[0].hint
			if d, ok := parseDate(hint); ok && !m.inRange(d) {
				m.otherDates += copies
			} else {
				m.unplanned += copies
				m.diffs.add(DigestDiff{Kind: KindUnplanned, Day: -1, GotClass: storeText([]byte(m.group[0].class)), Hash: text, Hint: storeText([]byte(hint)), Rows: copies})
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

// missedAny says whether a planned entry was not met so far or is still to come: only then
// must expired raw rows be told from lost ones.
func (m *digestMerge) missedAny() bool {
	_, left := m.next.peek()
	return len(m.missed) > 0 || left
}

// end ends the table: planned entries never met are missing, or expired when expired says
// their day's raw rows are past the table's retention.
func (m *digestMerge) end(res *DigestResult, expired func(day int) bool) {
	m.flush()
	for e, ok := m.next.next(); ok; e, ok = m.next.next() {
		m.missed = append(m.missed, e)
	}
	for _, e := range m.missed {
		if expired != nil && expired(int(e.day)) {
			m.count(e, func(c *DigestCounts) { c.Expired++ })
			continue
		}
		m.count(e, func(c *DigestCounts) { c.Missing++ })
	}
	// List the missing ones grouped per day: a missing redelivery is one row more of its
	// message.
	slices.SortStableFunc(m.missed, func(a, b digestEntry) int { return int(a.day) - int(b.day) })
	for _, e := range m.missed {
		if expired != nil && expired(int(e.day)) {
			continue
		}
		m.diffs.add(DigestDiff{Kind: KindMissing, Day: int(e.day), Date: dayDate(int(e.day)), What: m.plan.whats[e.what],
			Class: m.plan.className(e.class), Hash: hashText(e.hash), Rows: 1})
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
