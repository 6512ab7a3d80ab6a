// Package topics says whether what was read back from topics hits and orders is exactly what
// clickgen's batch and snapshot verbs sent for a range of model days, and if not, what differs.
//
// [Expect] consumes the range's planned units (World.Units: what the playing verbs send, in
// their order) once, counting the inventory from the same units, and keeps, per distinct
// message, a 128-bit digest of its value and key, 64 bits of its value's digest, its key (a
// ClientID as its number), its dedup id, its class and what the stand's intake does with it
// (package intake): about 61 bytes a message, never the message itself, so a --scale 100 day
// (5.2 M hits, 5.9 GB of JSON) takes 330 MB and 8 canonical days some tens of megabytes;
// [Verify.Run] checks a large clean range in windows of its segments ([PlanWindows]), a quarter
// of such a day at a time. [Expectation.Check] (or a [Checker] fed one message at a time) matches what
// arrived against it as a multiset and reports per day and per snapshot, per intake class and
// per partition, with the stand's view and a list of differences.
//
// Everything here is pure: no I/O, no clock. An Expectation is immutable once built and safe
// for concurrent use; each Checker belongs to one goroutine.
package topics

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/clickgen/clickgen/schema"
	"hash"
	"maps"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/intake"
)

// Message is one record read back from a topic.
type Message struct {
	Partition  int32
	Offset     int64
	Key, Value []byte // Key nil: no key; Value nil: a tombstone, empty: an empty message
}

// Options tune [Expect]: what the expectation needs besides the planned range. The zero value
// is the stand's layout on all cores.
type Options struct {
	// HitPartitions and OrderPartitions are the partition counts of topics hits and orders;
	// every message's expected partition is computed with them. 0 means 2 and 1, the stand's.
	HitPartitions, OrderPartitions int32
	// Workers digests and classifies the expected messages on this many goroutines; 0 means
	// GOMAXPROCS. The expectation does not depend on it.
	Workers int
	// Windows is how many windows [Verify.Run] plans and reads a range in (see [PlanWindows]):
	// 0 chooses by the range's size, 1 plans the range whole. A range with garbage or
	// redeliveries, or a segment's, is always planned whole.
	Windows int
}

// Topic names, as the tables and differences spell them.
const (
	TopicHits   = "hits"
	TopicOrders = "orders"
)

// What the stand's intake does with a message besides the error classes of package intake:
// Accepted is a row in ods.event (ods.order), NoRow is an empty value or a tombstone, which
// leaves no row anywhere.
const (
	Accepted = intake.Accepted
	NoRow    = intake.NoRow
)

// MaxExamples is how many differences of each kind a [Result] keeps as examples per topic and
// day (or snapshot), and how many its table shows in all; the rest are only counted.
const MaxExamples = 20

type topic uint8

const (
	hits topic = iota
	orders
)

func (t topic) String() string { return [...]string{TopicHits, TopicOrders}[t] }

// outcomes are, per topic, what the intake does with a message, in table order: accepted, the
// error classes in the order the intake checks them, no row.
var outcomes = [2][]string{intake.HitOutcomes[:], intake.OrderOutcomes[:]}

const (
	outAccepted uint8 = 0
	outNoRow    uint8 = 4
)

// labelClean labels the clean messages (and their redeliveries); the garbage classes follow.
const labelClean = "clean"

var labels = append([]string{labelClean}, world.AllGarbageClasses()...)

// Outcomes returns what the intake of topic ("hits" or "orders") can do with a message, in the
// order tables list them: Accepted, the error classes, NoRow.
func Outcomes(topic string) []string {
	if topic == TopicOrders {
		return slices.Clone(outcomes[orders])
	}
	return slices.Clone(outcomes[hits])
}

// labelOutcome is what the generator says the intake does with a message of label l on topic
// t: the garbage table's word ([world.GarbageOutcome]), as an index into outcomes; false when
// the topic carries no such class.
func labelOutcome(t topic, l uint8) (uint8, bool) {
	o := promised[t][l]
	return uint8(o), o >= 0
}

// promised holds labelOutcome's answers, per topic and label, read once from the garbage
// table (−1: not carried): it is asked for every expected message.
var promised = func() (p [2][]int) {
	for t := range p {
		p[t] = make([]int, len(labels))
		for l, class := range labels {
			if l == 0 {
				class = "" // clean
			}
			p[t][l] = -1
			if o, ok := world.GarbageOutcome(topic(t).String(), class); ok {
				p[t][l] = slices.Index(outcomes[t], o)
			}
		}
	}
	return p
}()

// digest is the first 128 bits of a SHA-256.
type digest [16]byte

// hasher computes digests without allocating; one per goroutine.
type hasher struct {
	h   hash.Hash
	sum [sha256.Size]byte
}

func newHasher() *hasher { return &hasher{h: sha256.New()} }

// value digests a message value; a tombstone (nil) and an empty value differ, as on the wire.
func (x *hasher) value(v []byte) digest {
	x.h.Reset()
	if v == nil {
		x.h.Write([]byte{0})
	} else {
		x.h.Write([]byte{1})
		x.h.Write(v)
	}
	return digest(x.h.Sum(x.sum[:0])[:16])
}

// keyed digests a value digest with a key (nil and empty keys differ).
func (x *hasher) keyed(vd digest, key []byte) digest {
	x.h.Reset()
	x.h.Write(vd[:])
	if key == nil {
		x.h.Write([]byte{0})
	} else {
		x.h.Write([]byte{1})
		x.h.Write(key)
	}
	return digest(x.h.Sum(x.sum[:0])[:16])
}

// classify is what the intake of topic t does with value v, and the dedup id of an accepted
// row (hits: the WatchID as ClickHouse reads it; orders: the order_id).
func classify(t topic, v []byte) (out uint8, watchID uint64, orderID string) {
	var class string
	var row bool
	if t == hits {
		if k, ok := intake.HitDedupKey(v); ok {
			return outAccepted, k.WatchID, ""
		}
		class, row = intake.ClassifyHit(v)
	} else {
		if id, ok := intake.OrderDedupKey(v); ok {
			return outAccepted, 0, id
		}
		class, row = intake.ClassifyOrder(v)
	}
	if !row {
		return outNoRow, 0, ""
	}
	return uint8(slices.Index(outcomes[t], class)), 0, ""
}

// slot is one distinct expected message of a unit (day or snapshot): a value with a key, sent
// want times. It is kept small (24 bytes; its digests are in Expectation.kds and vds): a
// --scale 100 day plans five million of them. Its unit is the one whose slots hold it
// ([Expectation.unitOf]), its partition murmur2 of its key ([Expectation.partOf]); the next
// slot with its key and value, or with its value, and its clean copies when they are not the
// usual ones are kept aside, for the few slots that have them ([Expectation.nextKey],
// [Expectation.nextValue], [Expectation.base]).
type slot struct {
	id      uint64 // accepted: the WatchID (hits) or the index of the order_id (orders)
	key     uint64 // keyNumber: the key's value; keyStored: where it is in Expectation.keys
	want    int32  // copies sent
	kind    uint8  // index into Expectation.kinds
	label   uint8  // index into labels
	outcome uint8  // what the intake does with the bytes
	flags   uint8  // the key's form (keyNone, keyNumber, keyStored), hasNextKey, hasNextValue
}

// Bits of slot.flags besides the key's form.
const (
	keyFormBits  = 0x3
	hasNextKey   = 0x4
	hasNextValue = 0x8
)

// keyForm is how s holds its key.
func (s *slot) keyForm() uint8 { return s.flags & keyFormBits }

// nextKey is the next slot with slot i's key and value, −1.
func (e *Expectation) nextKey(i int32) int32 {
	if e.slots[i].flags&hasNextKey == 0 {
		return -1
	}
	return e.nextKeys[i]
}

// nextValue is the next slot with slot i's value under any key, −1.
func (e *Expectation) nextValue(i int32) int32 {
	if e.slots[i].flags&hasNextValue == 0 {
		return -1
	}
	return e.nextValues[i]
}

// base is how many of slot i's copies are clean messages (the rest are redeliveries): one for
// a clean message's slot unless equal clean messages share it, none for garbage.
func (e *Expectation) base(i int32) int32 {
	if e.slots[i].label != 0 {
		return 0
	}
	return 1 + e.moreBase[i]
}

// How a slot holds its key: none (a message without key), a number (the key is its canonical
// decimal, as every ClientID key is), or stored (its length, a uvarint, then its bytes, in
// Expectation.keys).
const (
	keyNone uint8 = iota
	keyNumber
	keyStored
)

// decimal is the number whose canonical decimal (no sign, no leading zero) key is.
func decimal(key []byte) (uint64, bool) {
	if len(key) == 0 || len(key) > 1 && key[0] == '0' {
		return 0, false
	}
	var n uint64
	for _, c := range key {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// setKey makes s hold key.
func (e *Expectation) setKey(s *slot, key []byte) {
	s.flags &^= keyFormBits
	if key == nil {
		s.flags |= keyNone
		return
	}
	if n, ok := decimal(key); ok {
		s.flags, s.key = s.flags|keyNumber, n
		return
	}
	s.flags, s.key = s.flags|keyStored, uint64(len(e.keys))
	e.keys = binary.AppendUvarint(e.keys, uint64(len(key)))
	e.keys = append(e.keys, key...)
}

// appendKey appends slot i's key to dst, or returns nil when it has none; a stored key is
// returned in place, not appended.
func (e *Expectation) appendKey(dst []byte, i int32) []byte {
	s := &e.slots[i]
	switch s.keyForm() {
	case keyNumber:
		return strconv.AppendUint(dst, s.key, 10)
	case keyStored:
		n, w := binary.Uvarint(e.keys[s.key:])
		at := s.key + uint64(w)
		return e.keys[at : at+n : at+n]
	}
	return nil
}

// keyOf is slot i's key as [Difference] spells it, and whether it has none.
func (e *Expectation) keyOf(i int32) (key string, none bool) {
	var b [24]byte
	k := e.appendKey(b[:0], i)
	return string(k), k == nil
}

// partOf is slot i's expected partition on topic t: murmur2 of its key, −1 without key.
func (e *Expectation) partOf(i int32, t topic) int32 {
	var b [24]byte
	return schema.PartitionForKey(e.appendKey(b[:0], i), e.partitions(t))
}

// unitOf is the unit whose slots hold slot i: units hold consecutive ranges of slots, in
// order (an empty unit holds none).
func (e *Expectation) unitOf(i int32) int32 {
	return int32(sort.Search(len(e.units), func(u int) bool { return e.units[u].first > i }) - 1)
}

// unit is the expectation of one day's hits or one snapshot's orders.
type unit struct {
	topic      topic
	day        int
	sha        string // over the clean messages, each followed by "\n", in sending order
	want       Tally
	stand      Stand // the inventory's
	first, end int32 // slots [first, end)
}

// Expectation is what a range of run days sends on topics hits and orders: every message's
// digest, key, partition and intake class, per day and per snapshot, with the inventory of the
// same range. It is immutable and safe for concurrent use.
type Expectation struct {
	// Inventory is the inventory of the same range: what the stand must hold.
	Inventory *world.Inventory
	// Range is what was planned: the run days, the segment and the garbage the messages were
	// sent with.
	Range world.Range
	// HitPartitions and OrderPartitions are the partition counts keys were placed with.
	HitPartitions, OrderPartitions int32

	units []unit
	slots []slot
	// kds and vds are, per slot, the digest of its key and value and the first 64 bits of
	// the digest of its value (matched by value alone, a slot can only be a difference).
	kds     []digest
	vds     []uint64
	byKey   [2]slotIndex // first slot of a (key, value), by kds
	byValue [2]slotIndex // last added slot of a value, by vds
	keys    []byte       // the keys that are no number (see keyStored)
	// nextKeys and nextValues chain the slots that share a key and value, or a value (see
	// slot.flags); moreBase counts the clean copies of a slot beyond its first.
	nextKeys, nextValues map[int32]int32
	moreBase             map[int32]int32
	kinds                []string
	orderIDs             map[string]uint64
	days                 [2]map[int]struct{} // the model days of the units, per topic
}

// Messages returns how many messages the range sends on hits and on orders.
func (e *Expectation) Messages() (hitMsgs, orderMsgs int) {
	for i := range e.units {
		if e.units[i].topic == hits {
			hitMsgs += e.units[i].want.Messages
		} else {
			orderMsgs += e.units[i].want.Messages
		}
	}
	return hitMsgs, orderMsgs
}

// partitions is topic t's partition count.
func (e *Expectation) partitions(t topic) int32 {
	if t == hits {
		return e.HitPartitions
	}
	return e.OrderPartitions
}

// builder accumulates an Expectation.
type builder struct {
	e       *Expectation
	workers int
	kindIdx map[string]uint8
	work    []*dayWork
	h       *hasher
	err     error
}

// Expect builds the expectation of r: the clean hits of its run days with the extras of its
// garbage interleaved, and the snapshots those run days send (of days From−1 … From+Days−2)
// with theirs, exactly as clickgen batch and snapshot send them; with r.Segment only the
// share that segment sends (a topic it filled alone), the whole run being also the union of
// all shares. It consumes the units of [world.World.Units] once, counting the inventory of
// the same range from the same units (an [world.InventoryBuilder]), so the two cannot
// disagree. Its result does not depend on opt.Workers. A range [world.Range.Validate] refuses
// is an error wrapping its *[world.RangeError].
func Expect(ctx context.Context, w *world.World, r world.Range, opt Options) (*Expectation, error) {
	return expect(ctx, w, r, opt, nil)
}

// expect is [Expect], counting the units built into built when it is not nil.
func expect(ctx context.Context, w *world.World, r world.Range, opt Options, built *atomic.Int64) (*Expectation, error) {
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("topics: %w", err)
	}
	if opt.HitPartitions < 0 || opt.OrderPartitions < 0 {
		return nil, errors.New("topics: negative partition count")
	}
	e := &Expectation{Range: r, HitPartitions: opt.HitPartitions, OrderPartitions: opt.OrderPartitions,
		orderIDs: map[string]uint64{},
		nextKeys: map[int32]int32{}, nextValues: map[int32]int32{}, moreBase: map[int32]int32{},
		days: [2]map[int]struct{}{{}, {}},
	}
	if e.HitPartitions == 0 {
		e.HitPartitions = 2
	}
	if e.OrderPartitions == 0 {
		e.OrderPartitions = 1
	}
	b := &builder{e: e, workers: opt.Workers, kindIdx: map[string]uint8{}, h: newHasher()}
	if b.workers <= 0 {
		b.workers = runtime.GOMAXPROCS(0)
	}
	b.workers = min(b.workers, world.MaxWorkers)
	for range b.workers {
		b.work = append(b.work, &dayWork{h: newHasher()})
	}
	inv := w.NewInventoryBuilder(r)
	for u, err := range w.Units(ctx, r, world.UnitOptions{Workers: opt.Workers}) {
		if err != nil {
			return nil, err
		}
		if err := b.addUnit(inv, u); err != nil {
			return nil, err
		}
		if built != nil {
			built.Add(1)
		}
	}
	e.Inventory = inv.Inventory()
	return e, nil
}

// newTally returns a zero tally of topic t with every outcome listed.
func newTally(t topic, parts int32) Tally {
	c := make(map[string]int, len(outcomes[t]))
	for _, o := range outcomes[t] {
		c[o] = 0
	}
	return Tally{Classes: c, Partitions: make([]int, parts)}
}

func (t *Tally) addPartition(p int32, n int) {
	if p < 0 {
		return
	}
	for int(p) >= len(t.Partitions) {
		t.Partitions = append(t.Partitions, 0)
	}
	t.Partitions[p] += n
}

// newUnit starts the unit of day d on topic t.
func (b *builder) newUnit(t topic, d int) int32 {
	e := b.e
	e.days[t][d] = struct{}{}
	e.units = append(e.units, unit{topic: t, day: d, want: newTally(t, e.partitions(t)),
		first: int32(len(e.slots))})
	return int32(len(e.units) - 1)
}

// expected is one message to add to the expectation.
type expected struct {
	vd, kd  digest
	key     []byte
	label   uint8
	kind    string
	outcome uint8
	id      uint64
	oid     string // an accepted order row's order_id, to be interned in order
	clean   bool
}

// add records one sent message of unit u, merging it with an equal message of the same
// unit, label and kind, and returns its slot.
func (b *builder) add(u int32, m *expected) (int32, error) {
	e := b.e
	t := e.units[u].topic
	kind, ok := b.kindIdx[m.kind]
	if !ok {
		if len(e.kinds) > math.MaxUint8 {
			return -1, fmt.Errorf("topics: more than %d kinds of message", math.MaxUint8+1)
		}
		kind = uint8(len(e.kinds))
		e.kinds = append(e.kinds, m.kind)
		b.kindIdx[m.kind] = kind
	}
	last := int32(-1)
	head, found := e.findKey(t, m.kd)
	for i := head; found && i >= 0; i = e.nextKey(i) {
		s := &e.slots[i]
		if i >= e.units[u].first && s.label == m.label && s.kind == kind {
			s.want++
			if m.clean {
				e.moreBase[i]++
			}
			return i, nil
		}
		last = i
	}
	i := int32(len(e.slots))
	s := slot{id: m.id, want: 1, label: m.label, outcome: m.outcome, kind: kind}
	e.setKey(&s, m.key)
	v := vd64(m.vd)
	if prev, ok := e.findValue(t, v); ok {
		s.flags |= hasNextValue
		e.nextValues[i] = prev
	}
	e.slots = append(e.slots, s)
	e.kds = append(e.kds, m.kd)
	e.vds = append(e.vds, v)
	e.byValue[t].put(v, func(j int32) bool { return e.vds[j] == v }, i, func(j int32) uint64 { return e.vds[j] })
	if last >= 0 {
		e.slots[last].flags |= hasNextKey
		e.nextKeys[last] = i
	} else {
		e.byKey[t].put(kd64(m.kd), func(j int32) bool { return e.kds[j] == m.kd }, i, func(j int32) uint64 { return kd64(e.kds[j]) })
	}
	return i, nil
}

// findKey is the first slot of topic t whose key and value have the digest kd.
func (e *Expectation) findKey(t topic, kd digest) (int32, bool) {
	return e.byKey[t].get(kd64(kd), func(j int32) bool { return e.kds[j] == kd })
}

// findValue is the last added slot of topic t whose value's digest begins with v.
func (e *Expectation) findValue(t topic, v uint64) (int32, bool) {
	return e.byValue[t].get(v, func(j int32) bool { return e.vds[j] == v })
}

// tallyWant counts one sent message of label l into unit u's expectation.
func (b *builder) tallyWant(u int32, key []byte, l uint8) error {
	un := &b.e.units[u]
	o, ok := labelOutcome(un.topic, l)
	if !ok {
		return fmt.Errorf("topics: %s carries garbage class %s", un.topic, labels[l])
	}
	un.want.Messages++
	un.want.Classes[outcomes[un.topic][o]]++
	un.want.addPartition(schema.PartitionForKey(key, b.e.partitions(un.topic)), 1)
	return nil
}

// dayWork is one worker's share of a batch: its messages' digests and intake classes.
type dayWork struct {
	h   *hasher
	res []expected
}

// addUnit adds the messages of u, counting it into inv too: its clean messages (digested and
// classified on the workers, batch by batch), then its extras.
func (b *builder) addUnit(inv *world.InventoryBuilder, u *world.Unit) error {
	t := hits
	if u.Kind == world.SnapshotUnit {
		t = orders
	}
	ui := b.newUnit(t, u.Day)
	// Room for every message of the unit at once: growing by doubling held twice the plan.
	n := u.Len + len(u.Extras)
	b.e.slots = slices.Grow(b.e.slots, n)
	b.e.kds = slices.Grow(b.e.kds, n)
	b.e.vds = slices.Grow(b.e.vds, n)
	cleanSlot := make([]int32, 0, u.Len)
	for bt := range u.Batches() {
		inv.AddBatch(u, bt)
		err := b.addBatch(ui, u, bt, &cleanSlot)
		bt.Release()
		if err != nil {
			return err
		}
	}
	sha, exp := inv.EndUnit(u)
	un := &b.e.units[ui]
	un.sha, un.stand = sha, standOf(t, exp)
	un.want.Clean = u.Len
	for i := range u.Extras {
		if err := b.addExtra(ui, &u.Extras[i], cleanSlot); err != nil {
			return err
		}
	}
	b.e.units[ui].end = int32(len(b.e.slots))
	return nil
}

// addBatch adds a batch of unit u's clean messages: the workers digest and classify shares of
// it, then the messages are added in order, so the expectation does not depend on the workers.
func (b *builder) addBatch(ui int32, u *world.Unit, bt *world.Batch, cleanSlot *[]int32) error {
	t := b.e.units[ui].topic
	n := len(bt.Msgs)
	step := (n + len(b.work) - 1) / len(b.work)
	var wg sync.WaitGroup
	for k, wk := range b.work {
		lo, hi := min(n, k*step), min(n, (k+1)*step)
		wk.res = wk.res[:0]
		if lo == hi {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk.digest(t, bt, lo, hi)
		}()
	}
	wg.Wait()
	i := 0
	for _, wk := range b.work {
		for j := range wk.res {
			m := &wk.res[j]
			m.key = bt.Key(i)
			if t == hits {
				m.kind = bt.EventType(i)
			} else if m.outcome == outAccepted {
				m.id = b.orderID(m.oid)
			}
			si, err := b.add(ui, m)
			if err != nil {
				return err
			}
			*cleanSlot = append(*cleanSlot, si)
			if err := b.tallyWant(ui, m.key, 0); err != nil {
				return err
			}
			i++
		}
	}
	return nil
}

// digest digests and classifies the clean messages [lo, hi) of bt, of topic t.
func (wk *dayWork) digest(t topic, bt *world.Batch, lo, hi int) {
	for i := lo; i < hi; i++ {
		v := bt.Value(i)
		m := expected{vd: wk.h.value(v), clean: true}
		m.kd = wk.h.keyed(m.vd, bt.Key(i))
		// A clean message is accepted by the intake with the world's own WatchID or order_id
		// (TestCleanMessagesClassifyAsPlanned proves it message by message), so it is not
		// parsed again here: parsing every clean message was two thirds of verify's work.
		m.outcome = outAccepted
		if t == hits {
			m.id = bt.WatchID(i)
		} else {
			m.oid = string(bt.Key(i))
		}
		wk.res = append(wk.res, m)
	}
}

// addExtra adds a malformed message or a redelivery of unit u; cleanSlot maps the unit's
// clean messages to their slots.
func (b *builder) addExtra(u int32, x *world.Extra, cleanSlot []int32) error {
	e := b.e
	un := &e.units[u]
	if x.Redelivered() {
		i := cleanSlot[x.Source]
		if key, none := e.keyOf(i); key != string(x.Key) || none != (x.Key == nil) {
			return fmt.Errorf("topics: %s %d: a redelivery's key %q is not its source's %q", un.topic, un.day, x.Key, key)
		}
		e.slots[i].want++
		un.want.Redelivered++
		return b.tallyWant(u, x.Key, 0)
	}
	l := slices.Index(labels, x.Class)
	if l <= 0 {
		return fmt.Errorf("topics: unknown garbage class %q", x.Class)
	}
	m := expected{vd: b.h.value(x.Value), key: x.Key, label: uint8(l), kind: x.Kind}
	m.kd = b.h.keyed(m.vd, x.Key)
	var oid string
	m.outcome, m.id, oid = classify(un.topic, x.Value)
	if un.topic == orders && m.outcome == outAccepted {
		m.id = b.orderID(oid)
	}
	if _, err := b.add(u, &m); err != nil {
		return err
	}
	return b.tallyWant(u, x.Key, uint8(l))
}

// orderID interns an order_id.
func (b *builder) orderID(id string) uint64 {
	n, ok := b.e.orderIDs[id]
	if !ok {
		n = uint64(len(b.e.orderIDs))
		b.e.orderIDs[id] = n
	}
	return n
}

// standOf turns the inventory's Expect into a Stand with every error class of topic t listed.
func standOf(t topic, x world.Expect) Stand {
	s := Stand{StgRows: x.StgRows, ODSErrors: map[string]int{}}
	for _, o := range outcomes[t][1:outNoRow] {
		s.ODSErrors[o] = x.ODSErrors[o]
	}
	if t == hits && x.ODSEvents != nil {
		s.ODS = *x.ODSEvents
	}
	if t == orders && x.ODSOrders != nil {
		s.ODS = *x.ODSOrders
	}
	return s
}

// cloneTally deep-copies t.
func cloneTally(t Tally) Tally {
	t.Classes = maps.Clone(t.Classes)
	t.Partitions = slices.Clone(t.Partitions)
	return t
}
