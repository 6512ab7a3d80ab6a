package topics

import (
	"bytes"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/schema"
)

// Tally counts messages of one day, snapshot or topic.
type Tally struct {
	// Messages is every message: clean ones, their redeliveries and garbage.
	Messages int `json:"messages"`
	// Clean is the distinct clean messages (events or order rows), Redelivered the further
	// copies of clean messages.
	Clean       int `json:"clean"`
	Redelivered int `json:"redelivered"`
	// Classes counts messages by what the stand's intake does with them: Accepted, an error
	// class, or NoRow (see [Outcomes]); every outcome of the topic is listed.
	Classes map[string]int `json:"classes"`
	// Partitions counts messages per partition.
	Partitions []int `json:"partitions"`
}

// Stand is what messages leave in the stand's tables.
type Stand struct {
	// StgRows is the raw rows (stg.hits_raw, stg.orders_raw): every message with a non-empty
	// value.
	StgRows int `json:"stg_rows"`
	// ODS is the rows of ods.event (hits: distinct WatchIDs of accepted messages, as count()
	// FINAL collapses them, across partitions) or ods.order (distinct order_ids).
	ODS int `json:"ods"`
	// ODSErrors counts the rows of the error table by error_class; every class is listed.
	ODSErrors map[string]int `json:"ods_errors"`
}

// UnitResult compares one day's hits or one snapshot's orders.
type UnitResult struct {
	Topic string `json:"topic"`
	Day   int    `json:"day"` // the model day (of the hits, or of the snapshot)
	Date  string `json:"date"`
	// Want is what was sent, Got what arrived of it (messages that match nothing sent are
	// counted in TopicResult.Unexpected, not here). Want's classes are what the generator's
	// garbage classes promise (accepted_bad: accepted, vanishing: no_row), Got's the intake's
	// verdict on the arrived bytes.
	Want Tally `json:"want"`
	Got  Tally `json:"got"`
	// StandWant is the inventory's expectation, StandGot what the arrived messages leave.
	StandWant Stand `json:"stand_want"`
	StandGot  Stand `json:"stand_got"`
	// SHA256 is the inventory's hash of the clean messages; SHA256OK says that every clean
	// message arrived, so that put back in canonical order they hash to SHA256.
	SHA256   string `json:"sha256"`
	SHA256OK bool   `json:"sha256_ok"`
	// SegmentSHA256 is, when the range was checked in windows ([PlanWindows]), the hash of
	// each window's share of the clean messages, in segment order, as a merged inventory's
	// SegmentSHA256; SHA256 is then empty.
	SegmentSHA256 []string `json:"segment_sha256,omitempty"`
	OK            bool     `json:"ok"`
}

// TopicResult compares one topic.
type TopicResult struct {
	Topic      string       `json:"topic"`
	Partitions int32        `json:"partitions"` // the count keys were placed with
	Units      []UnitResult `json:"units"`
	// Unexpected counts the arrived messages that match nothing sent (or more copies than
	// were sent), classified by the intake.
	Unexpected Tally `json:"unexpected"`
	// UnexpectedStand is what the unexpected messages alone leave in the stand.
	UnexpectedStand Stand `json:"unexpected_stand"`
	// Other counts the arrived messages that match nothing sent and name a model day outside
	// the run (hits by EventDate, orders by snapshot_date): other runs' messages in a topic
	// that holds more days than the run, counted and not judged, as verify --clickhouse
	// counts the rows of other dates. Unless [Verify.Strict]: they are then Unexpected.
	// OtherDays lists their model days, in order.
	Other     Tally `json:"other"`
	OtherDays []int `json:"other_days"`
	// Want and Got total the units; Got includes Unexpected.
	Want Tally `json:"want"`
	Got  Tally `json:"got"`
	// StandWant is the inventory's expectation for the whole topic, StandGot what everything
	// that arrived leaves.
	StandWant Stand `json:"stand_want"`
	StandGot  Stand `json:"stand_got"`
	// Differences counts the topic's messages that do not reconcile, by kind (see
	// [DiffKinds]); every kind is listed.
	Differences map[string]int `json:"differences"`
	// OK says that the topic reconciles: no difference, every count equal.
	OK bool `json:"ok"`

	// changed counts the missing messages whose changed bytes arrived instead (see
	// [Result.SummaryCounts]), copies the unexpected messages equal to a sent one.
	changed, copies int
}

// Kinds of [Difference], in the order tables list them.
const (
	DiffMissing        = "missing"         // sent, never arrived
	DiffUnexpected     = "unexpected"      // arrived, never sent (or more copies than sent)
	DiffWrongPartition = "wrong_partition" // arrived in another partition than murmur2 of its key says
	DiffWrongKey       = "wrong_key"       // arrived with bytes that were sent, under another key
	DiffMisclassified  = "misclassified"   // the intake treats sent bytes otherwise than the generator says
)

// DiffKinds lists the kinds of [Difference] in table order.
var DiffKinds = []string{DiffMissing, DiffUnexpected, DiffWrongPartition, DiffWrongKey, DiffMisclassified}

// Difference is one message that does not reconcile.
type Difference struct {
	Kind  string `json:"kind"`
	Topic string `json:"topic"`
	// Day is the model day of the hits or snapshot the message belongs to, −1 when unknown.
	Day int `json:"day"`
	// Class is the generator's class of a sent message ("clean" or a garbage class), or the
	// intake's verdict on an unexpected one (see [Outcomes]); What says more (the event
	// type, the garbage kind, "redelivered").
	Class string `json:"class"`
	What  string `json:"what,omitempty"`
	// Key is the message's key (as sent for missing ones), NoKey when it has none; WantKey the
	// key it was sent with (wrong_key).
	Key     string `json:"key"`
	NoKey   bool   `json:"no_key,omitempty"`
	WantKey string `json:"want_key,omitempty"`
	// Partition is where the message arrived, or should have (missing); WantPartition where
	// murmur2 of its key puts it; Offset is −1 for missing messages.
	Partition     int32 `json:"partition"`
	WantPartition int32 `json:"want_partition"`
	Offset        int64 `json:"offset"`
	// Index is a clean message's position in its day (the line of batch --file, 0-based) or
	// snapshot, −1 for other messages.
	Index int `json:"index"`
	// Count is how many copies this line stands for (missing ones), at least 1.
	Count int `json:"count"`
	// Preview is the first 120 bytes of the value (unexpected messages).
	Preview string `json:"preview,omitempty"`
	// Note explains further, e.g. that an unexpected message copies one that was sent.
	Note string `json:"note,omitempty"`
}

// PreviewBytes is the length of [Difference.Preview].
const PreviewBytes = 120

// Result is the outcome of [Expectation.Check]: OK when every message sent arrived exactly as
// many times as it was sent, with its key, in its partition, and nothing else arrived.
type Result struct {
	OK     bool        `json:"ok"`
	Hits   TopicResult `json:"hits"`
	Orders TopicResult `json:"orders"`
	// Differences counts the messages that do not reconcile by kind (see [DiffKinds]); every
	// kind is listed.
	Differences map[string]int `json:"differences"`
	// Examples are at most [MaxExamples] differences of each kind per topic and day (or
	// snapshot), ordered by kind, topic and day.
	Examples []Difference `json:"examples"`

	exp *Expectation
}

// Check compares what was read back from the hits and orders topics with the expectation.
// The order of the messages does not matter (they are matched as a multiset); e is not
// modified, so one expectation may check several reads.
func (e *Expectation) Check(hitMsgs, orderMsgs []Message) *Result {
	c := e.NewChecker()
	for i := range hitMsgs {
		c.AddHit(hitMsgs[i])
	}
	for i := range orderMsgs {
		c.AddOrder(orderMsgs[i])
	}
	return c.Result()
}

// Checker is [Expectation.Check] one message at a time, for reading a topic without holding
// it: it keeps counters and examples, never the messages. A Checker is not safe for concurrent
// use.
type Checker struct {
	e          *Expectation
	got        []int32
	h          *hasher
	parts      [][]int // per unit: arrived messages per partition
	unexp      [2]Tally
	unexpStand [2]Stand
	unexpIDs   [2]map[uint64]struct{}
	newOrders  map[string]uint64 // accepted order_ids that no sent message has
	counts     [2]map[string]int // by topic and kind
	examples   map[exampleGroup][]Difference
	reading    atomic.Pointer[reading] // the topic ReadTopics reads, nil between topics
	// strict makes messages of other model days unexpected (Verify.Strict); other counts
	// them otherwise, per topic, with their days; wasOther says whether the message last
	// added was one.
	strict    bool
	other     [2]Tally
	otherDays [2]map[int]struct{}
	wasOther  bool
	// copies counts the unexpected messages equal to a sent one; accepted the other
	// unexpected messages of the run that the intake accepts, by their dedup id (and
	// snapshot, for orders), to tell a changed message from a missing and an unplanned one.
	copies   [2]int
	accepted [2]map[idDay]int
	// win, when the range is checked in windows, says which arrived messages this checker
	// judges (see window); skipped says whether the message last added was left to another.
	win     *window
	skipped bool
}

// idDay is an accepted message's dedup id (a hit's WatchID, an order's order_id numbered as
// the expectation numbers them) and, for orders, its snapshot's model day (0 for hits: a
// WatchID is the run's one event).
type idDay struct {
	id  uint64
	day int
}

// exampleGroup is what examples are capped by: kind, topic and day.
type exampleGroup struct {
	kind  string
	topic string
	day   int
}

func groupOf(d *Difference) exampleGroup { return exampleGroup{d.Kind, d.Topic, d.Day} }

// addExample keeps d if its group has room.
func addExample(m map[exampleGroup][]Difference, d Difference) {
	if g := groupOf(&d); len(m[g]) < MaxExamples {
		m[g] = append(m[g], d)
	}
}

// NewChecker returns a Checker of e with nothing arrived yet.
func (e *Expectation) NewChecker() *Checker {
	c := &Checker{e: e, got: make([]int32, len(e.slots)), h: newHasher(), parts: make([][]int, len(e.units)),
		newOrders: map[string]uint64{}, counts: [2]map[string]int{{}, {}}, examples: map[exampleGroup][]Difference{}}
	for i := range c.parts {
		c.parts[i] = make([]int, e.partitions(e.units[i].topic))
	}
	for t := range c.unexp {
		c.other[t] = newTally(topic(t), e.partitions(topic(t)))
		c.otherDays[t] = map[int]struct{}{}
		c.accepted[t] = map[idDay]int{}
		c.unexp[t] = newTally(topic(t), e.partitions(topic(t)))
		c.unexpStand[t] = Stand{ODSErrors: zeroErrors(topic(t))}
		c.unexpIDs[t] = map[uint64]struct{}{}
	}
	return c
}

// AddHit counts one message read from topic hits.
func (c *Checker) AddHit(m Message) { c.add(hits, &m) }

// AddOrder counts one message read from topic orders.
func (c *Checker) AddOrder(m Message) { c.add(orders, &m) }

func (c *Checker) add(t topic, m *Message) {
	e := c.e
	c.wasOther = false
	if c.skipped = c.win != nil && !c.win.owns(t, m); c.skipped {
		return
	}
	vd := c.h.value(m.Value)
	kd := c.h.keyed(vd, m.Key)
	copyOf := int32(-1)
	// The same bytes under the same key, with a copy still due.
	if i, ok := e.findKey(t, kd); ok {
		copyOf = i
		for ; i >= 0; i = e.nextKey(i) {
			if c.got[i] < e.slots[i].want {
				c.match(t, i, m, false)
				return
			}
		}
	}
	// The same bytes under another key.
	if i, ok := e.findValue(t, vd64(vd)); ok {
		if copyOf < 0 {
			copyOf = i
		}
		for ; i >= 0; i = e.nextValue(i) {
			if c.got[i] < e.slots[i].want {
				c.match(t, i, m, true)
				return
			}
		}
	}
	c.unexpected(t, m, copyOf)
}

// match counts m, read from topic t, as a copy of slot i.
func (c *Checker) match(t topic, i int32, m *Message, wrongKey bool) {
	c.got[i]++
	p := &c.parts[c.e.unitOf(i)]
	for int(m.Partition) >= len(*p) {
		*p = append(*p, 0)
	}
	if m.Partition >= 0 {
		(*p)[m.Partition]++
	}
	if part := c.e.partOf(i, t); !wrongKey && (part < 0 || m.Partition == part) {
		return
	}
	d := c.slotDiff(i, DiffWrongPartition)
	d.Key, d.NoKey, d.Partition, d.Offset = string(m.Key), m.Key == nil, m.Partition, m.Offset
	if wrongKey {
		d.Kind = DiffWrongKey
		d.WantKey, _ = c.e.keyOf(i)
	}
	c.note(d)
}

// slotDiff describes slot i as a difference of kind.
func (c *Checker) slotDiff(i int32, kind string) Difference {
	s := &c.e.slots[i]
	u := &c.e.units[c.e.unitOf(i)]
	part := c.e.partOf(i, u.topic)
	d := Difference{Kind: kind, Topic: u.topic.String(), Day: u.day, Class: labels[s.label], What: c.e.kinds[s.kind],
		Partition: part, WantPartition: part, Offset: -1, Index: -1, Count: 1}
	d.Key, d.NoKey = c.e.keyOf(i)
	if s.label == 0 {
		// Clean messages take the first slots of their unit, one each, in sending order.
		d.Index = int(i - u.first)
	}
	return d
}

// unexpected counts m, which matches no message still due; copyOf is a sent message with the
// same bytes, or −1.
func (c *Checker) unexpected(t topic, m *Message, copyOf int32) {
	var out uint8
	var id uint64
	d := Difference{Kind: DiffUnexpected, Topic: t.String(), Day: -1, Key: string(m.Key), NoKey: m.Key == nil,
		Partition: m.Partition, WantPartition: schema.PartitionForKey(m.Key, c.e.partitions(t)), Offset: m.Offset, Index: -1, Count: 1,
		Preview: string(m.Value[:min(len(m.Value), PreviewBytes)])}
	if copyOf >= 0 {
		// Equal bytes get the intake's equal verdict: no need to parse them again.
		s := &c.e.slots[copyOf]
		out, id = s.outcome, s.id
		d.Day = c.e.units[c.e.unitOf(copyOf)].day
		c.copies[t]++
		d.Note = strings.Join(strings.Fields("a further copy of a sent "+labels[s.label]+" "+c.e.kinds[s.kind]+" message"), " ")
	} else {
		var oid string
		out, id, oid = classify(t, m.Value)
		if day, ok := c.otherDay(t, m.Value); ok {
			c.wasOther = true
			c.otherDays[t][day] = struct{}{}
			tl := &c.other[t]
			tl.Messages++
			tl.Classes[outcomes[t][out]]++
			tl.addPartition(m.Partition, 1)
			return
		}
		if t == orders && out == outAccepted {
			id = c.orderID(oid)
		}
		if out == outAccepted {
			k := idDay{id: id}
			if t == orders {
				if day, ok := namedDay(t, m.Value); ok {
					k.day = day
				} else {
					k.day = -1 // no snapshot's: it changed none
				}
			}
			c.accepted[t][k]++
		}
	}
	d.Class = outcomes[t][out]
	tl := &c.unexp[t]
	tl.Messages++
	tl.Classes[outcomes[t][out]]++
	tl.addPartition(m.Partition, 1)
	st := &c.unexpStand[t]
	switch out {
	case outNoRow:
	case outAccepted:
		st.StgRows++
		c.unexpIDs[t][id] = struct{}{}
	default:
		st.StgRows++
		st.ODSErrors[outcomes[t][out]]++
	}
	c.note(d)
}

// otherDay is the model day a message of topic t names, when it is a day the expectation has
// no unit of on t (another run's message) and the check is not strict: a hit's EventDate, an
// order's snapshot_date, read as ClickHouse's visitParamExtractString reads it (the string
// after the first "EventDate":), the way verify --clickhouse files raw and error rows by
// date. A message that names no such day is the run's: a difference when nothing sent
// matches it.
func (c *Checker) otherDay(t topic, v []byte) (int, bool) {
	if c.strict {
		return 0, false
	}
	day, ok := namedDay(t, v)
	if !ok {
		return 0, false
	}
	if _, planned := c.e.days[t][day]; planned {
		return 0, false
	}
	return day, true
}

// namedDay is the model day a message of topic t names (otherDay says how it is read).
func namedDay(t topic, v []byte) (int, bool) {
	key := `"EventDate":"`
	if t == orders {
		key = `"snapshot_date":"`
	}
	i := bytes.Index(v, []byte(key))
	if i < 0 || len(v) < i+len(key)+11 || v[i+len(key)+10] != '"' {
		return 0, false
	}
	d, ok := parseDate(v[i+len(key) : i+len(key)+10])
	if !ok {
		return 0, false
	}
	return int(d) - int(world.DayDate(0)), true
}

// parseDate reads YYYY-MM-DD.
func parseDate(b []byte) (schema.Date, bool) {
	if len(b) != 10 || b[4] != '-' || b[7] != '-' {
		return 0, false
	}
	n := func(b []byte) int {
		v := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	y, m, d := n(b[:4]), n(b[5:7]), n(b[8:])
	if y < 0 || m < 0 || d < 0 {
		return 0, false
	}
	return schema.DateOf(y, m, d)
}

// orderID numbers an order_id as the expectation does, or beyond its numbers if it has none.
func (c *Checker) orderID(id string) uint64 {
	if n, ok := c.e.orderIDs[id]; ok {
		return n
	}
	n, ok := c.newOrders[id]
	if !ok {
		n = uint64(len(c.e.orderIDs) + len(c.newOrders))
		c.newOrders[id] = n
	}
	return n
}

func (c *Checker) note(d Difference) {
	t := hits
	if d.Topic == TopicOrders {
		t = orders
	}
	c.counts[t][d.Kind] += d.Count
	addExample(c.examples, d)
}

// compareGroups orders example groups by kind (as DiffKinds lists them), topic and day.
func compareGroups(a, b exampleGroup) int {
	if c := slices.Index(DiffKinds, a.kind) - slices.Index(DiffKinds, b.kind); c != 0 {
		return c
	}
	if c := strings.Compare(a.topic, b.topic); c != 0 {
		return c
	}
	return a.day - b.day
}

// arrivedIDs is an empty slice with room for the dedup ids of topic t's arrived accepted
// messages: those of the slots that got any, and the unexpected ones.
func (c *Checker) arrivedIDs(t topic) []uint64 {
	n := len(c.unexpIDs[t])
	for ui := range c.e.units {
		if u := &c.e.units[ui]; u.topic == t {
			for i := u.first; i < u.end; i++ {
				if c.got[i] > 0 && c.e.slots[i].outcome == outAccepted {
					n++
				}
			}
		}
	}
	return make([]uint64, 0, n)
}

// distinct is how many distinct values sorted ids holds.
func distinct(ids []uint64) int {
	n := 0
	for i := range ids {
		if i == 0 || ids[i] != ids[i-1] {
			n++
		}
	}
	return n
}

func zeroErrors(t topic) map[string]int {
	m := map[string]int{}
	for _, o := range outcomes[t][1:outNoRow] {
		m[o] = 0
	}
	return m
}

// Result compares what was added so far with the expectation. It may be called again after
// more messages are added.
func (c *Checker) Result() *Result {
	e := c.e
	r := &Result{OK: true, Differences: map[string]int{}, exp: e}
	counts := [2]map[string]int{maps.Clone(c.counts[hits]), maps.Clone(c.counts[orders])}
	examples := map[exampleGroup][]Difference{}
	for k, v := range c.examples {
		examples[k] = slices.Clone(v)
	}
	note := func(d Difference) {
		t := hits
		if d.Topic == TopicOrders {
			t = orders
		}
		counts[t][d.Kind] += d.Count
		addExample(examples, d)
	}
	for t, tr := range [2]*TopicResult{&r.Hits, &r.Orders} {
		t := topic(t)
		*tr = TopicResult{Topic: t.String(), Partitions: e.partitions(t), Want: newTally(t, e.partitions(t)), Got: newTally(t, e.partitions(t)),
			Unexpected: cloneTally(c.unexp[t]), StandGot: Stand{ODSErrors: zeroErrors(t)}, OK: true}
		// The dedup ids the arrived messages leave, per unit and in all, counted distinct by
		// sorting: sets of them (maps) took some 40 bytes an id, a --scale 100 day's five
		// million ids twice over.
		all := c.arrivedIDs(t)
		accepted := maps.Clone(c.accepted[t])
		for ui := range e.units {
			u := &e.units[ui]
			if u.topic != t {
				continue
			}
			ur := UnitResult{Topic: t.String(), Day: u.day, Date: world.DayDate(u.day).String(), Want: cloneTally(u.want),
				Got: newTally(t, e.partitions(t)), StandWant: cloneStand(u.stand), StandGot: Stand{ODSErrors: zeroErrors(t)}, SHA256: u.sha}
			for p, n := range c.parts[ui] {
				ur.Got.addPartition(int32(p), n)
			}
			from := len(all)
			for i := u.first; i < u.end; i++ {
				s, got, base := &e.slots[i], int(c.got[i]), int(e.base(i))
				if got < int(s.want) {
					d := c.slotDiff(i, DiffMissing)
					d.Count = int(s.want) - got
					if s.label == 0 && got >= base {
						d.What = strings.TrimSpace(d.What + " (a redelivered copy)")
					}
					note(d)
					if s.outcome == outAccepted {
						k := idDay{id: s.id}
						if t == orders {
							k.day = u.day
						}
						n := min(d.Count, accepted[k])
						tr.changed += n
						accepted[k] -= n
					}
				}
				if got == 0 {
					continue
				}
				ur.Got.Messages += got
				if s.label == 0 {
					ur.Got.Clean += min(got, base)
					ur.Got.Redelivered += max(0, got-base)
				}
				name := outcomes[t][s.outcome]
				ur.Got.Classes[name] += got
				switch s.outcome {
				case outNoRow:
				case outAccepted:
					ur.StandGot.StgRows += got
					all = append(all, s.id)
				default:
					ur.StandGot.StgRows += got
					ur.StandGot.ODSErrors[name] += got
				}
				if want, _ := labelOutcome(t, s.label); want != s.outcome {
					d := c.slotDiff(i, DiffMisclassified)
					d.Count = got
					d.Note = "the generator says " + outcomes[t][want] + ", the intake " + name
					note(d)
				}
			}
			slices.Sort(all[from:])
			ur.StandGot.ODS = distinct(all[from:])
			ur.SHA256OK = ur.Got.Clean == ur.Want.Clean
			ur.OK = ur.SHA256OK && tallyEqual(ur.Want, ur.Got) && standEqual(ur.StandWant, ur.StandGot)
			tr.OK = tr.OK && ur.OK
			addTally(&tr.Want, ur.Want)
			addTally(&tr.Got, ur.Got)
			addStand(&tr.StandGot, ur.StandGot)
			tr.Units = append(tr.Units, ur)
		}
		addTally(&tr.Got, tr.Unexpected)
		tr.Other = cloneTally(c.other[t])
		tr.copies = c.copies[t]
		tr.OtherDays = slices.Sorted(maps.Keys(c.otherDays[t]))
		tr.UnexpectedStand = cloneStand(c.unexpStand[t])
		tr.UnexpectedStand.ODS = len(c.unexpIDs[t])
		addStand(&tr.StandGot, c.unexpStand[t])
		for id := range c.unexpIDs[t] {
			all = append(all, id)
		}
		slices.Sort(all)
		tr.StandGot.ODS = distinct(all)
		if t == hits {
			tr.StandWant = standOf(t, e.Inventory.Expect.Hits)
		} else {
			tr.StandWant = standOf(t, e.Inventory.Expect.Orders)
		}
		tr.OK = tr.OK && tr.Unexpected.Messages == 0 && tallyEqual(tr.Want, tr.Got) && standEqual(tr.StandWant, tr.StandGot)
		tr.Differences = map[string]int{}
		for _, k := range DiffKinds {
			tr.Differences[k] = counts[t][k]
			tr.OK = tr.OK && counts[t][k] == 0
		}
		r.OK = r.OK && tr.OK
	}
	for _, k := range DiffKinds {
		r.Differences[k] = counts[hits][k] + counts[orders][k]
	}
	groups := slices.SortedFunc(maps.Keys(examples), compareGroups)
	for _, g := range groups {
		r.Examples = append(r.Examples, examples[g]...)
	}
	return r
}

func cloneStand(s Stand) Stand {
	s.ODSErrors = maps.Clone(s.ODSErrors)
	return s
}

func addTally(dst *Tally, t Tally) {
	dst.Messages += t.Messages
	dst.Clean += t.Clean
	dst.Redelivered += t.Redelivered
	for k, n := range t.Classes {
		dst.Classes[k] += n
	}
	for p, n := range t.Partitions {
		dst.addPartition(int32(p), n)
	}
}

func addStand(dst *Stand, s Stand) {
	dst.StgRows += s.StgRows
	dst.ODS += s.ODS
	for k, n := range s.ODSErrors {
		dst.ODSErrors[k] += n
	}
}

func tallyEqual(a, b Tally) bool {
	if a.Messages != b.Messages || a.Clean != b.Clean || a.Redelivered != b.Redelivered || !countsEqual(a.Classes, b.Classes) {
		return false
	}
	for p := range max(len(a.Partitions), len(b.Partitions)) {
		if at(a.Partitions, p) != at(b.Partitions, p) {
			return false
		}
	}
	return true
}

func standEqual(a, b Stand) bool {
	return a.StgRows == b.StgRows && a.ODS == b.ODS && countsEqual(a.ODSErrors, b.ODSErrors)
}

// countsEqual compares two count maps, a missing key counting as 0.
func countsEqual(a, b map[string]int) bool {
	for k, n := range a {
		if b[k] != n {
			return false
		}
	}
	for k, n := range b {
		if a[k] != n {
			return false
		}
	}
	return true
}

func at(xs []int, i int) int {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}

// String describes the difference on one line.
func (d Difference) String() string {
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(d.Kind, "_", " "))
	b.WriteString(": ")
	b.WriteString(d.Topic)
	if d.Day >= 0 {
		if d.Topic == TopicOrders {
			b.WriteString(" snapshot ")
		} else {
			b.WriteString(" day ")
		}
		b.WriteString(strconv.Itoa(d.Day))
	}
	b.WriteString(", ")
	b.WriteString(d.Class)
	if d.What != "" {
		b.WriteString(" " + d.What)
	}
	if d.Index >= 0 {
		if d.Topic == TopicOrders {
			b.WriteString(" row " + strconv.Itoa(d.Index))
		} else {
			b.WriteString(" event " + strconv.Itoa(d.Index))
		}
	}
	b.WriteString(", key " + showKey(d.Key, d.NoKey))
	switch d.Kind {
	case DiffMissing, DiffMisclassified:
		if d.Partition >= 0 {
			b.WriteString(", partition " + strconv.Itoa(int(d.Partition)))
		}
	default:
		b.WriteString(", partition " + strconv.Itoa(int(d.Partition)))
		if d.Kind == DiffWrongPartition || d.Kind == DiffWrongKey {
			b.WriteString(" (murmur2 of the sent key says " + strconv.Itoa(int(d.WantPartition)) + ")")
		}
		b.WriteString(", offset " + strconv.FormatInt(d.Offset, 10))
	}
	if d.Kind == DiffWrongKey {
		b.WriteString(", sent with key " + showKey(d.WantKey, false))
	}
	if d.Count > 1 {
		b.WriteString(", ×" + strconv.Itoa(d.Count))
	}
	if d.Note != "" {
		b.WriteString(" (" + d.Note + ")")
	}
	if d.Kind == DiffUnexpected {
		b.WriteString(": " + strconv.Quote(d.Preview))
	}
	return b.String()
}

// showKey prints a key plainly when it is printable ASCII without spaces, quoted otherwise.
func showKey(k string, none bool) string {
	if none {
		return "(none)"
	}
	for i := 0; i < len(k); i++ {
		if k[i] <= ' ' || k[i] >= 0x7f || k[i] == '"' {
			return strconv.Quote(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}
