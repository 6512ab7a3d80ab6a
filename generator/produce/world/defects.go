package world

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v7"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/schema"
)

// Garbage says which malformed messages and re-sends are added to the clean streams. The zero
// value adds nothing. The clean messages never change, whatever the settings. It is the one
// garbage settings type: flags and profiles fill it, the generator, the inventory (which echoes
// it as JSON) and verify read it.
type Garbage struct {
	// Rate is the number of malformed messages added per clean message (0.01 = one in a
	// hundred), applied per day and per snapshot.
	Rate float64 `json:"rate" yaml:"rate"`
	// Mix weighs the classes, by name; nil means the default mix (every class of the topic
	// that is not opt-in, with its default weight: 1). Each topic uses the classes that apply
	// to it.
	Mix Mix `json:"mix,omitempty" yaml:"mix"`
	// Redeliver is the number of byte-identical re-sends of clean messages per clean message,
	// as at-least-once delivery produces.
	Redeliver float64 `json:"redeliver" yaml:"redeliver"`
}

const ppm = 1_000_000

// MaxMixWeight bounds a garbage class's weight in a [Mix]. The weights of a topic's classes
// are summed into a 32-bit pick table, so 4294967296 wrapped to 0 (a panic after a whole run
// was sent) and two weights of MaxInt64 became 5210 and 0; a million per class keeps the sum
// of every class (seven at most) far from the wrap, and weights up to it draw exactly as
// before.
const MaxMixWeight = 1_000_000

// Validate reports settings that describe no garbage, as a *field.Error naming the field as
// a profile spells it: garbage.rate, garbage.redeliver or garbage.mix.
func (g Garbage) Validate() error {
	for _, r := range []struct {
		field string
		v     float64
	}{{"garbage.rate", g.Rate}, {"garbage.redeliver", g.Redeliver}} {
		if math.IsNaN(r.v) || r.v < 0 || r.v > 10 {
			return &field.Error{Field: r.field, Value: fmt.Sprint(r.v), Err: errExtraRate}
		}
	}
	if err := g.Mix.validate(); err != nil {
		return &field.Error{Field: "garbage.mix", Err: err}
	}
	if g.Mix != nil && g.Mix.total() == 0 && g.Rate > 0 {
		return &field.Error{Field: "garbage.mix", Err: errors.New("no positive weight")}
	}
	return nil
}

var errExtraRate = errors.New("want a number of extra messages per clean message in [0, 10]")

// validate checks m's classes and weights.
func (m Mix) validate() error {
	for class, w := range m {
		if garbageClassNamed(class) == nil {
			return &UnknownClassError{Name: class}
		}
		if w < 0 {
			return fmt.Errorf("garbage class %s: negative weight %d", class, w)
		}
		if w > MaxMixWeight {
			return fmt.Errorf("garbage class %s: weight %d, want at most %d", class, w, MaxMixWeight)
		}
	}
	return nil
}

// UnknownClassError is a garbage class name that is none of [AllGarbageClasses]: a caller
// that knows what was typed can offer the classes spelled like it.
type UnknownClassError struct{ Name string }

func (e *UnknownClassError) Error() string {
	return fmt.Sprintf("garbage class %q: want one of %s", e.Name, strings.Join(AllGarbageClasses(), ", "))
}

// total is the sum of m's weights.
func (m Mix) total() int {
	t := 0
	for _, w := range m {
		t += w
	}
	return t
}

// Mix weighs garbage classes by name. Its text form is "class=weight,..." (weights are
// non-negative integers), e.g. not_an_object=2,keyset_mismatch=1; in JSON and as a YAML
// mapping it is an object of weights. A nil Mix is the default mix.
type Mix map[string]int

// ErrMix marks the errors of [Mix.UnmarshalText] and [Mix.Set], so that a decoder of many
// values can say which field held the bad text. The message is that of ParseMix.
var ErrMix = errors.New("not a garbage mix")

type mixError struct{ err error }

func (e mixError) Error() string   { return e.err.Error() }
func (e mixError) Unwrap() []error { return []error{ErrMix, e.err} }

// ParseMix reads "class=weight,..." (weights are integers 0 … [MaxMixWeight], classes those
// of AllGarbageClasses, each named once). The empty text is an error.
func ParseMix(s string) (Mix, error) {
	mix := Mix{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, weight, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("%q: want class=weight", part)
		}
		w, err := strconv.Atoi(strings.TrimSpace(weight))
		if err != nil || w < 0 {
			return nil, fmt.Errorf("%q: weight must be a non-negative integer", part)
		}
		name = strings.TrimSpace(name)
		if _, dup := mix[name]; dup {
			return nil, fmt.Errorf("class %s named twice", name)
		}
		mix[name] = w
	}
	if len(mix) == 0 {
		return nil, errors.New("empty mix")
	}
	if err := mix.validate(); err != nil {
		return nil, err
	}
	return mix, nil
}

// String returns m in the syntax of ParseMix, classes in the order of AllGarbageClasses (any
// other name after them, sorted), and a nil or empty Mix as "".
func (m Mix) String() string {
	var b strings.Builder
	add := func(name string) {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(strconv.Itoa(m[name]))
	}
	known := AllGarbageClasses()
	for _, c := range known {
		if _, ok := m[c]; ok {
			add(c)
		}
	}
	var other []string
	for c := range m {
		if !slices.Contains(known, c) {
			other = append(other, c)
		}
	}
	slices.Sort(other)
	for _, c := range other {
		add(c)
	}
	return b.String()
}

// MarshalText returns m.String().
func (m Mix) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText sets m from text in the syntax of ParseMix. The empty text (or only spaces)
// is the nil Mix, the default mix.
func (m *Mix) UnmarshalText(text []byte) error {
	if strings.TrimSpace(string(text)) == "" {
		*m = nil
		return nil
	}
	mix, err := ParseMix(string(text))
	if err != nil {
		return mixError{err}
	}
	*m = mix
	return nil
}

// Set implements pflag.Value: it is UnmarshalText.
func (m *Mix) Set(s string) error { return m.UnmarshalText([]byte(s)) }

// Type implements pflag.Value; it names the value in a flag's help.
func (*Mix) Type() string { return "mix" }

// MarshalJSON writes m as an object of weights (keys sorted), not as its text form: the
// inventory's JSON has always spelled it so.
func (m Mix) MarshalJSON() ([]byte, error) { return json.Marshal(map[string]int(m)) }

// UnmarshalJSON reads an object of weights (or null, the nil Mix). Names and weights are
// checked by [Garbage.Validate], as for a YAML mapping.
func (m *Mix) UnmarshalJSON(data []byte) error {
	var w map[string]int
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*m = w
	return nil
}

// mixFor returns the classes and weights that apply to a topic, in the topic's class order.
func (g Garbage) mixFor(classes []string) ([]string, table, bool) {
	mix := g.Mix
	if mix == nil {
		mix = defaultMix
	}
	var names []string
	var weights []int
	for _, c := range classes {
		if w := mix[c]; w > 0 {
			names = append(names, c)
			weights = append(weights, w)
		}
	}
	if len(names) == 0 {
		return nil, table{}, false
	}
	return names, newTable(weights...), true
}

// Extra is a message added to a clean stream: a malformed one (Class set) or a redelivery.
type Extra struct {
	// After is the number of clean messages sent before this one: it goes right after clean
	// message After−1 (0 = before the first).
	After int
	// Source is the clean message it was derived from (its key), −1 when none.
	Source int
	Class  string // "" for a redelivery
	Kind   string // what exactly is wrong, e.g. "truncated", "missing_key"
	Key    []byte // nil: no key
	Value  []byte // nil: a tombstone; empty: an empty message
}

// Redelivered reports whether e is a byte-identical re-send of a clean message.
func (e *Extra) Redelivered() bool { return e.Class == "" }

// countOf turns a rate into a count for n clean messages: the integer part of n × rate and one
// more with the probability of the fraction, drawn from s (integer arithmetic in ppm).
func countOf(s *stream, n int, rate float64) int {
	micros := int64(math.Round(rate * ppm))
	total := int64(n) * micros
	c := total / ppm
	if s.Below(ppm) < uint64(total%ppm) {
		c++
	}
	return int(c)
}

// placement draws, for count extras over n clean messages, their positions and sources in
// stream order. Redeliveries come after their source.
func placement(s *stream, n, count int, after bool) []Extra {
	return placementIn(nil, s, n, count, after)
}

// placementIn is placement into dst's memory, when it has room.
func placementIn(dst []Extra, s *stream, n, count int, after bool) []Extra {
	out := slices.Grow(dst[:0], count)[:count]
	for i := range out {
		src := -1
		if n > 0 {
			src = s.Int(n)
		}
		lo := 0
		if after && src >= 0 {
			lo = src + 1
		}
		out[i] = Extra{Source: src, After: lo + s.Int(n-lo+1)}
	}
	return out
}

// sortExtras sorts x by After, keeping the order of extras with the same After; each extra
// moves once (a stable sort of the extras themselves, 88 bytes each, cost a tenth of
// --garbage's time).
func sortExtras(x []Extra) {
	slots := extraSlots(x, nil)
	moved := make([]Extra, len(x))
	for i := range x {
		moved[slots[i]] = x[i]
	}
	copy(x, moved)
}

// extraSlots returns where each extra of a, then of b, goes in their stream order: sorted by
// After, in the order given among equal Afters. After is a position among a day's clean
// messages, so a counting sort does it in two passes.
func extraSlots(a, b []Extra) []int {
	after := func(i int) int {
		if i < len(a) {
			return a[i].After
		}
		return b[i-len(a)].After
	}
	slots := make([]int, len(a)+len(b))
	top := 0
	for i := range slots {
		top = max(top, after(i))
		if after(i) < 0 || top > 8*len(slots)+1<<16 { // not positions in a day: no counting
			for i := range slots {
				slots[i] = i
			}
			slices.SortStableFunc(slots, func(i, j int) int { return after(i) - after(j) })
			rank := make([]int, len(slots)) // slots holds the extras in order: invert it
			for r, i := range slots {
				rank[i] = r
			}
			return rank
		}
	}
	at := make([]int, top+2) // at[p+1]: how many extras go after p; then where the first does
	for i := range slots {
		at[after(i)+1]++
	}
	for p := 1; p < len(at); p++ {
		at[p] += at[p-1]
	}
	for i := range slots {
		p := after(i)
		slots[i] = at[p]
		at[p]++
	}
	return slots
}

// HitExtras returns the malformed messages and redeliveries added to day's hits, sorted by
// position. They are drawn from the DEFECTS and REDELIVERY substreams of the day, so the clean
// events do not change; a malformed message derived from an event carries a fresh WatchID,
// unique in the day and distinct from every clean one.
func (day *Day) HitExtras(g Garbage) []Extra {
	x, _ := day.HitExtrasContext(context.Background(), g)
	return x
}

// AddsHitExtras reports whether g adds malformed messages or redeliveries to the hits: they
// are drawn over the whole day's events, so a segment then builds its days whole and shares
// them ([PlayOptions.WholeDays]), and a day's extras cannot be made from segment days.
func (g Garbage) AddsHitExtras() bool {
	_, _, malformed := g.mixFor(HitGarbageClasses)
	return malformed && g.Rate > 0 || g.Redeliver > 0
}

// HitExtrasContext is [Day.HitExtras] that gives up when ctx is done, returning ctx's error
// and no extras: at --garbage 10 a day's extras take seconds to build. The checks draw
// nothing, so extras that complete are those HitExtras returns.
func (day *Day) HitExtrasContext(ctx context.Context, g Garbage) ([]Extra, error) {
	return day.hitExtras(ctx, g, nil)
}

// hitExtras is [Day.HitExtrasContext]; with chunks not nil, the extras' bytes are made into
// memory used again ([freeChunks]), whose pieces it appends to *chunks: [releaseChunks] hands
// them back once nothing refers to the extras.
func (day *Day) hitExtras(ctx context.Context, g Garbage, chunks *[][]byte) ([]Extra, error) {
	n := day.Len()
	xs := takeExtrasScratch()
	defer xs.release()
	s, bad := day.hitGarbagePlanIn(xs.bad, g)
	if bad != nil {
		xs.bad = bad
	}
	var again []Extra // the re-sends, drawn from a stream of their own
	if g.Redeliver > 0 {
		rs := newStream(day.World.seed, streamRedelivery, day.N, 0)
		again = placementIn(xs.again, rs, n, countOf(rs, n, g.Redeliver), true)
		xs.again = again
	}
	if len(bad)+len(again) == 0 {
		return nil, nil
	}
	// Each extra is made straight into its place in the stream: sorting the day's extras
	// afterwards moved each twice.
	slots := extraSlots(bad, again)
	out := make([]Extra, len(bad)+len(again))
	if s != nil {
		count := len(bad)
		set := newIDSetIn(xs.set, n+count) // the draws of uniqueIDsBelow, avoiding the day's ids
		xs.set = set.slots
		for i := range day.events {
			set.add(day.events[i].watchID)
		}
		fresh := set.drawBelow(xs.fresh, s, count, 1<<52)
		xs.fresh = fresh
		faker := gofakeit.NewFaker(newPCGSource(s), false)
		sc := defectScratch{chunks: chunks}
		edits := slices.Grow(xs.edits[:0], count)[:count] // each is set
		xs.edits = edits
		ids := day.clientIDs(xs, bad)
		var keys []byte // the extras' keys, one allocation for many
		for i := range bad {
			if i%ctxEvery == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			e := &bad[i]
			m := defect{s: s, faker: faker, fresh: fresh[i], sc: &sc}
			if e.Source >= 0 {
				m.from, m.source = day, e.Source // rendered if the maker reads it
				e.Key, keys = appendKey(keys, ids[i], count-i)
			}
			e.Kind, e.Value, edits[i] = makeHit(e.Class, m)
		}
		// Every draw is made: the edits follow the events' order, which renders events about
		// twice as fast as the draws' (their visits and pages are cached).
		edited := bySourceIf(xs, bad, n, func(i int) bool { return edits[i].op != editNone })
		for j, i := range edited {
			if j%ctxEvery == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			e := &bad[i]
			m := defect{from: day, source: e.Source, fresh: fresh[i], sc: &sc} // no stream: nothing is drawn
			e.Kind, e.Value = m.applyHit(e.Kind, edits[i])
		}
		for i := range bad {
			out[slots[i]] = bad[i]
		}
	}
	// The re-sends are rendered in the order of their events too, as the malformed hits.
	m := defect{sc: &defectScratch{chunks: chunks}}
	var keys []byte // the re-sends' keys, one allocation for many
	for j, i := range bySource(again, n) {
		if j%ctxEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		e := &again[i]
		e.Kind = "redelivered"
		e.Value = m.keep(day.AppendEvent(m.room(8<<10), e.Source)) // a purchase of 16 lines is about 4 KB
		e.Key, keys = appendKey(keys, day.ClientID(e.Source), len(again)-j)
	}
	for i := range again {
		out[slots[len(bad)+i]] = again[i]
	}
	return out, nil
}

// bySource returns the indices of the extras of x derived from an event (Source ≥ 0, below n),
// in the order of their events.
func bySource(x []Extra, n int) []int { return bySourceIf(nil, x, n, nil) }

// bySourceIf is bySource of the extras keep keeps (every one when keep is nil), in xs's
// memory when xs is not nil (the result is valid until the next call with xs).
func bySourceIf(xs *extrasScratch, x []Extra, n int, keep func(i int) bool) []int {
	var at, order []int
	if xs != nil {
		at, order = xs.at, xs.order
	}
	at = slices.Grow(at[:0], n+1)[:n+1] // at[s+1]: how many derive from event s; then where the first goes
	clear(at)
	m := 0
	for i := range x {
		if s := x[i].Source; s >= 0 && (keep == nil || keep(i)) {
			at[s+1]++
			m++
		}
	}
	for s := 1; s <= n; s++ {
		at[s] += at[s-1]
	}
	order = slices.Grow(order[:0], m)[:m]
	for i := range x {
		if s := x[i].Source; s >= 0 && (keep == nil || keep(i)) {
			order[at[s]] = i
			at[s]++
		}
	}
	if xs != nil {
		xs.at, xs.order = at, order
	}
	return order
}

// clientIDs returns the ClientID of the source of each extra of x derived from an event, in
// xs's memory, looked up in the order of the events: in the order of x, each missed the
// cache twice.
func (day *Day) clientIDs(xs *extrasScratch, x []Extra) []uint64 {
	ids := slices.Grow(xs.ids[:0], len(x))[:len(x)]
	for _, i := range bySourceIf(xs, x, day.Len(), nil) {
		ids[i] = day.ClientID(x[i].Source)
	}
	xs.ids = ids
	return ids
}

// appendKey appends the decimal id to keys, which it grows for up to left more keys when it
// is full, and returns the key (its capacity its length) and keys.
func appendKey(keys []byte, id uint64, left int) (key, rest []byte) {
	if cap(keys)-len(keys) < 20 {
		keys = make([]byte, 0, 20*min(max(left, 1), 4096))
	}
	from := len(keys)
	keys = strconv.AppendUint(keys, id, 10)
	return keys[from:len(keys):len(keys)], keys
}

// hitGarbagePlan draws where day's malformed hits go, what each derives from and its class:
// the first draws of the day's DEFECTS stream, which it returns positioned for the rest (the
// fresh WatchIDs, then each message's bytes). It returns a nil stream when g adds no
// malformed hit. A whole day is required: sources are indices of the whole day's events.
func (day *Day) hitGarbagePlan(g Garbage) (*stream, []Extra) { return day.hitGarbagePlanIn(nil, g) }

// hitGarbagePlanIn is hitGarbagePlan into dst's memory, when it has room.
func (day *Day) hitGarbagePlanIn(dst []Extra, g Garbage) (*stream, []Extra) {
	names, table, ok := g.mixFor(HitGarbageClasses)
	if !ok || g.Rate <= 0 {
		return nil, nil
	}
	n := day.Len()
	s := newStream(day.World.seed, streamDefects, day.N, 0)
	count := countOf(s, n, g.Rate)
	extras := placementIn(dst, s, n, count, false)
	for i := range extras {
		extras[i].Class = names[s.Pick(&table)]
	}
	return s, extras
}

// acceptedBadCopies counts, per purchase of day (an index into day.Purchases), the
// accepted_bad hits derived from its purchase event or from that event's duplicate copy.
// Whatever their kind, they keep the purchase's EventType, purchaseID and revenue and get a
// fresh WatchID, and their EventDate reads back as the day's own ([acceptedBadDate]): each
// lands in ods.event as one more purchase of the order, on the order's date. It returns nil
// when g adds none. It draws only the plan ([Day.hitGarbagePlan]), not the messages.
func (day *Day) acceptedBadCopies(g Garbage) []int {
	if g.Rate <= 0 || g.Mix[GarbageAcceptedBad] <= 0 { // opt-in: never in the default mix
		return nil
	}
	if !day.seg.Whole() {
		day = day.World.Day(day.N) // the extras are drawn over the whole day's events
	}
	_, extras := day.hitGarbagePlan(g)
	var copies []int
	for _, e := range extras {
		if e.Class != GarbageAcceptedBad || e.Source < 0 {
			continue
		}
		if ev := &day.events[e.Source]; ev.kind == evPurchase || ev.kind == evDupPurchase {
			if copies == nil {
				copies = make([]int, len(day.Purchases))
			}
			copies[ev.ref]++
		}
	}
	return copies
}

// OrderExtras returns the malformed rows and redeliveries added to snapshot d, whose clean
// rows are given (encoded, without newlines) with their keys.
func (w *World) OrderExtras(d int, rows, keys [][]byte, g Garbage) []Extra {
	n := len(rows)
	var out []Extra
	if names, table, ok := g.mixFor(OrderGarbageClasses); ok && g.Rate > 0 {
		s := newStream(w.seed, streamDefects, d, 1)
		count := countOf(s, n, g.Rate)
		extras := placement(s, n, count, false)
		faker := gofakeit.NewFaker(newPCGSource(s), false)
		for i := range extras {
			e := &extras[i]
			e.Class = names[s.Pick(&table)]
			var clean []byte
			if e.Source >= 0 {
				clean, e.Key = rows[e.Source], keys[e.Source]
			}
			e.Kind, e.Value = orderDefect(s, faker, e.Class, clean, d)
		}
		out = append(out, extras...)
	}
	if g.Redeliver > 0 {
		s := newStream(w.seed, streamRedelivery, d, 1)
		extras := placement(s, n, countOf(s, n, g.Redeliver), true)
		for i := range extras {
			e := &extras[i]
			e.Kind, e.Value, e.Key = "redelivered", rows[e.Source], keys[e.Source]
		}
		out = append(out, extras...)
	}
	sortExtras(out)
	return out
}

// uniqueIDsBelow draws n distinct ids in [1, limit) avoiding the ids of avoid, in any order.
// The draws, and so the ids and their order, are those of a linear scan of the ids so far;
// one set of avoid's ids and the ids so far makes the check O(1) (a scan made --garbage 3 take
// 18 s; sorting a day's ids for a binary search and a map of the ids so far were a third of
// the cost of a day's vanishing hits).
func uniqueIDsBelow(s *stream, n int, limit uint64, avoid []uint64) []uint64 {
	set := newIDSet(len(avoid) + n)
	for _, id := range avoid {
		set.add(id)
	}
	return set.drawBelow(nil, s, n, limit)
}

// drawBelow draws n ids in [1, limit) that are not in set yet, adding them, into dst's memory
// when it has room.
func (set *idSet) drawBelow(dst []uint64, s *stream, n int, limit uint64) []uint64 {
	ids := slices.Grow(dst[:0], n)
	for len(ids) < n {
		if id := 1 + s.Below(limit-1); set.add(id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// idSet is a set of ids, open addressing in a table at most half full.
type idSet struct {
	slots []uint64 // 0: a free slot
	zero  bool     // whether 0 is in the set
	shift uint     // 64 − log2(len(slots))
}

// newIDSet returns an empty set for up to n ids.
func newIDSet(n int) idSet { return newIDSetIn(nil, n) }

// newIDSetIn is newIDSet in the memory of slots, when it has room.
func newIDSetIn(slots []uint64, n int) idSet {
	bits := uint(4)
	for 1<<bits < 2*n {
		bits++
	}
	if cap(slots) < 1<<bits {
		return idSet{slots: make([]uint64, 1<<bits), shift: 64 - bits}
	}
	slots = slots[:1<<bits]
	clear(slots)
	return idSet{slots: slots, shift: 64 - bits}
}

// add adds id to the set, reporting whether it was not in it yet.
func (set *idSet) add(id uint64) bool {
	if id == 0 {
		had := set.zero
		set.zero = true
		return !had
	}
	mask := uint64(len(set.slots) - 1)
	for h := id * 0x9E3779B97F4A7C15 >> set.shift; ; h = (h + 1) & mask {
		switch set.slots[h] {
		case id:
			return false
		case 0:
			set.slots[h] = id
			return true
		}
	}
}

// pcgSource adapts a stream to math/rand/v2's Source for gofakeit's seeded faker.
type pcgSource struct{ s *stream }

func newPCGSource(s *stream) pcgSource  { return pcgSource{s} }
func (p pcgSource) Uint64() uint64      { return p.s.Uint64() }
func pickOf[T any](s *stream, xs []T) T { return xs[s.Int(len(xs))] }

// keyset is a contract's keys as [fields] splits an object by them: each name as bytes (shared
// by every split: a maker replaces a key, never writes into one) and quoted with its colon.
type keyset struct {
	names   []string
	keys    [][]byte
	markers [][]byte // `"name":`
}

func newKeyset(names []string) *keyset {
	ks := &keyset{names: names}
	for _, k := range names {
		ks.keys = append(ks.keys, []byte(k))
		ks.markers = append(ks.markers, []byte(strconv.Quote(k)+":"))
	}
	return ks
}

// hitKeyset and orderKeyset are the contracts' keysets, built once: quoting the keys of every
// malformed message cost a third of --garbage's time, and looking them up in a cache a tenth.
var (
	hitKeyset   = newKeyset(hitKeys)
	orderKeyset = newKeyset(orderKeys)
)

// keysetOf returns the keyset of keys: the contract's when keys are its keys.
func keysetOf(keys []string) *keyset {
	switch {
	case slices.Equal(keys, hitKeys):
		return hitKeyset
	case slices.Equal(keys, orderKeys):
		return orderKeyset
	}
	return newKeyset(keys)
}

// fields splits canonical JSON object bytes into its top-level (key, raw value) pairs. It
// relies on the canonical form (compact, keys known), not on a general parser.
func fields(obj []byte, keys []string) [][2][]byte { return keysetOf(keys).split(nil, obj) }

// split is [fields] into dst's memory (reused when it has room); the values alias obj.
func (ks *keyset) split(dst [][2][]byte, obj []byte) [][2][]byte {
	out := slices.Grow(dst[:0], len(ks.names))[:len(ks.names)]
	pos := 1 // after '{'
	for i, marker := range ks.markers {
		// A later key's marker is where the previous value's search found it.
		if i == 0 && !bytes.HasPrefix(obj[pos:], marker) {
			panic(fmt.Sprintf("generator: canonical object lacks %s at %d", ks.names[i], pos))
		}
		start := pos + len(marker)
		end := len(obj) - 1
		if i+1 < len(ks.markers) {
			end = start + bytes.Index(obj[start:], ks.markers[i+1]) - 1
			if end < start || obj[end] != ',' {
				panic(fmt.Sprintf("generator: canonical object lacks , before %s at %d", ks.names[i+1], end))
			}
		}
		out[i] = [2][]byte{ks.keys[i], obj[start:end:end]}
		pos = end + 1
	}
	return out
}

// join writes (key, raw value) pairs back as a compact object, in memory of its exact size.
func join(fs [][2][]byte) []byte { return joinTo(make([]byte, 0, joinedLen(fs)), fs) }

// joinedLen is at least the length of the object join writes of fs (its exact length when
// no key needs escaping).
func joinedLen(fs [][2][]byte) int {
	n := 2
	for _, f := range fs {
		n += len(f[0]) + len(f[1]) + 4
	}
	return n
}

// join writes fs as join does, carving the memory out of m's scratch when it has one: a
// malformed message's bytes then share an allocation with the messages made after it.
func (m defect) join(fs [][2][]byte) []byte {
	if m.sc == nil {
		return join(fs)
	}
	return m.keep(joinTo(m.room(joinedLen(fs)), fs))
}

// room returns empty memory with room for a message of n bytes: new, or the rest of m's
// scratch for messages. Append the message to it and pass it to keep.
func (m defect) room(n int) []byte {
	if m.sc == nil {
		return make([]byte, 0, n)
	}
	if cap(m.sc.out)-len(m.sc.out) < n {
		m.sc.out = m.sc.chunk(n)
	}
	return m.sc.out[len(m.sc.out):]
}

// chunkBytes is the size of a piece of memory for messages.
const chunkBytes = 256 << 10

// freeChunks recycles the memory of the malformed messages and re-sends of units a sender
// released ([Unit.ReleaseExtras]): writing a day's extras into fresh memory (about 32 MB at
// --garbage 0.5: zeroing, page faults, collection) cost as much as rendering them. It keeps at
// most cap(freeChunks) pieces (64 MB), about two days' extras at --garbage 0.5.
var freeChunks = make(chan []byte, 256)

// chunk returns empty memory for messages of at least n bytes: a piece of chunkBytes, used
// again when sc records its pieces, or new memory.
func (sc *defectScratch) chunk(n int) []byte {
	if sc.chunks == nil || n > chunkBytes {
		return make([]byte, 0, max(n, chunkBytes))
	}
	var c []byte
	select {
	case c = <-freeChunks:
	default:
		c = make([]byte, 0, chunkBytes)
	}
	*sc.chunks = append(*sc.chunks, c)
	return c[:0]
}

// releaseChunks hands the pieces of memory for messages back for reuse: nothing may refer to
// the messages in them any more.
func releaseChunks(chunks [][]byte) {
	for _, c := range chunks {
		select {
		case freeChunks <- c:
		default: // enough kept: the collector takes this one
		}
	}
}

// extrasScratch is the memory a day's extras are made with but do not keep (the plan, the
// edits, the set of WatchIDs, the fresh ones: about 9 MB at --garbage 0.5), used again from
// day to day: fresh memory is zeroed, faulted in and collected.
type extrasScratch struct {
	bad, again      []Extra
	edits           []hitEdit
	set, fresh, ids []uint64
	at, order       []int // bySourceIf's
}

// freeExtrasScratch holds the scratch of a day done, for the next.
var freeExtrasScratch = make(chan *extrasScratch, 1)

// maxKeptScratch bounds the extras of a day whose scratch is kept for the next (about 16 MB).
const maxKeptScratch = 1 << 16

// takeExtrasScratch returns scratch memory, used again when some was released.
func takeExtrasScratch() *extrasScratch {
	select {
	case xs := <-freeExtrasScratch:
		return xs
	default:
		return &extrasScratch{}
	}
}

// release hands xs back for the next day, unless it grew too large to keep.
func (xs *extrasScratch) release() {
	if cap(xs.bad) > maxKeptScratch || cap(xs.again) > maxKeptScratch {
		return
	}
	select {
	case freeExtrasScratch <- xs:
	default:
	}
}

// keep returns msg as a message (its capacity its length); when it lies in the memory room
// returned, it takes the memory up to its end out of m's scratch for messages.
func (m defect) keep(msg []byte) []byte {
	if m.inRoom(msg) {
		m.sc.out = m.sc.out[:cap(m.sc.out)-(cap(msg)-len(msg))]
	}
	return msg[:len(msg):len(msg)]
}

// inRoom reports whether b lies in the unused part of m's scratch for messages, up to its end.
func (m defect) inRoom(b []byte) bool {
	if m.sc == nil || cap(b) == 0 || cap(m.sc.out) == len(m.sc.out) {
		return false
	}
	end, out := b[:cap(b)], m.sc.out[:cap(m.sc.out)]
	return &end[len(end)-1] == &out[len(out)-1] && cap(b) <= cap(out)-len(m.sc.out)
}

// replace returns obj with obj[from:to] replaced by the concatenation of ins, as a message:
// edited in place when obj lies in m's memory for messages ([defect.hitObject]) with room to
// grow, else copied.
func (m defect) replace(obj []byte, from, to int, ins ...[]byte) []byte {
	n := 0
	for _, p := range ins {
		n += len(p)
	}
	grown := len(obj) + n - (to - from)
	if !m.inRoom(obj) || grown > cap(obj) { // a copy in memory of its own
		b := make([]byte, 0, grown)
		b = append(b, obj[:from]...)
		for _, p := range ins {
			b = append(b, p...)
		}
		return append(b, obj[to:]...)
	}
	tail := len(obj) - to
	obj = obj[:max(len(obj), grown)]
	copy(obj[from+n:], obj[to:to+tail])
	at := from
	for _, p := range ins {
		at += copy(obj[at:], p)
	}
	return m.keep(obj[:grown])
}

// joined returns the concatenation of parts (strings, or bytes outside m's memory for
// messages) as a new message, carved out of m's memory for messages.
func joined[P ~string | ~[]byte](m defect, parts ...P) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	b := m.room(n)
	for _, p := range parts {
		b = append(b, p...)
	}
	return m.keep(b)
}

// locate finds field k of canonical object obj (of ks's keys, in order), searching its key
// from offset from on: the offsets of its key's marker `"Key":`, of its value and of the end
// of its value (the comma after it, or the closing brace). In a canonical hit a key's marker
// occurs only as that key, as a string value escapes its quotes, so a search from anywhere
// before it finds what [keyset.split] finds, field after field (TestLocateIsSplit checks every
// field of every event of several days).
func (ks *keyset) locate(obj []byte, k, from int) (key, val, end int) {
	key = from + bytes.Index(obj[from:], ks.markers[k])
	if key < 1 || key < from || obj[key-1] != ',' && (k > 0 || obj[key-1] != '{') {
		panic(fmt.Sprintf("generator: canonical object lacks %s", ks.names[k]))
	}
	val = key + len(ks.markers[k])
	end = len(obj) - 1
	if k+1 < len(ks.markers) {
		end = val + bytes.Index(obj[val:], ks.markers[k+1]) - 1
		if end < val || obj[end] != ',' {
			panic(fmt.Sprintf("generator: canonical object lacks , before %s at %d", ks.names[k+1], end))
		}
	}
	return key, val, end
}

// joinTo appends the object join writes of fs to b.
func joinTo(b []byte, fs [][2][]byte) []byte {
	// A key still in its place of the contract's keyset is written as its marker.
	var ks *keyset
	switch len(fs) {
	case len(hitKeyset.keys):
		ks = hitKeyset
	case len(orderKeyset.keys):
		ks = orderKeyset
	}
	b = append(b, '{')
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		if ks != nil && len(f[0]) > 0 && len(f[0]) == len(ks.keys[i]) && &f[0][0] == &ks.keys[i][0] {
			b = append(b, ks.markers[i]...)
			b = append(b, f[1]...)
			continue
		}
		b = appendName(b, f[0])
		b = append(b, ':')
		b = append(b, f[1]...)
	}
	return append(b, '}')
}

// appendName appends key k as a JSON string.
func appendName(b, k []byte) []byte {
	if plainKey(k) {
		b = append(b, '"')
		b = append(b, k...)
		return append(b, '"')
	}
	return schema.AppendString(b, string(k))
}

// plainKey reports whether schema.AppendString writes k between quotes as it is: printable
// ASCII without '"' and '\\' (every contract key, and the makers' renamings of them).
func plainKey(k []byte) bool {
	for _, c := range k {
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func setField(fs [][2][]byte, key string, raw string) {
	for i := range fs {
		if string(fs[i][0]) == key {
			fs[i][1] = []byte(raw)
			return
		}
	}
	panic("generator: no field " + key)
}

func quoted(s string) string { return string(schema.AppendString(nil, s)) }

var notAnObjectKinds = []string{"truncated", "binary", "plain_text", "scalar", "array"}

// notAnObject builds a message whose root is not a JSON object (or not JSON at all); object
// returns the object it may derive from, called only when it does. With array true the
// message is that object in an array, left to the caller to make.
func notAnObject(m defect, object func() []byte) (kind string, value []byte, array bool) {
	s, faker := m.s, m.faker
	kind = pickOf(s, notAnObjectKinds)
	switch kind {
	case "truncated":
		if clean := object(); len(clean) > 2 {
			cut := clean[:1+s.Int(len(clean)-2)]
			if m.inRoom(cut) { // a hit's object, made for this message
				return kind, m.keep(cut), false
			}
			return kind, joined(m, cut), false
		}
		return kind, []byte(`{"WatchID":`), false
	case "binary":
		n := 8 + s.Int(56)
		b := m.room(n)[:n]
		for i := range b {
			b[i] = byte(0x80 + s.Int(0x80)) // high bytes only: never valid UTF-8 text, never '\n'
		}
		b[0], b[1] = 0xFF, 0xFE
		return kind, m.keep(b), false
	case "plain_text":
		prefix := pickOf(s, []string{"ERROR ", "WARN ", "502 Bad Gateway: ", "upstream timed out: "})
		return kind, joined(m, prefix, faker.Sentence()), false
	case "scalar":
		return kind, joined(m, pickOf(s, []string{"123", `"hello"`, "true", "null", "-7.5", `""`})), false
	}
	return kind, nil, true
}

// keysetEdit is one keyset_mismatch as drawn: applied alike to an object's fields (orders) or
// to its bytes (hits).
type keysetEdit struct {
	kind string
	at   int    // missing_key, renamed_key, wrong_case: the field; extra_key: the field it goes before
	name []byte // extra_key, renamed_key, wrong_case: the new key
	raw  []byte // extra_key: its value
}

var keysetKinds = []string{"missing_key", "extra_key", "renamed_key", "wrong_case", "empty_object"}

// drawKeysetEdit draws a keyset_mismatch of an object of keys.
func drawKeysetEdit(s *stream, faker *gofakeit.Faker, keys []string) keysetEdit {
	e := keysetEdit{kind: pickOf(s, keysetKinds)}
	switch e.kind {
	case "missing_key":
		e.at = s.Int(len(keys))
	case "extra_key":
		e.name = []byte(pickOf(s, []string{"UserAgent", "SessionStart", "debug", "_ts"}))
		e.at = s.Int(len(keys) + 1)
		e.raw = []byte(quoted(faker.Word()))
	case "renamed_key":
		e.at = s.Int(len(keys))
		e.name = append([]byte(keys[e.at]), pickOf(s, []string{"_v2", "Old", "_"})...)
	case "wrong_case":
		e.at = s.Int(len(keys))
		name := keys[e.at]
		if lower := strings.ToLower(name); lower != name {
			e.name = []byte(lower)
		} else {
			e.name = []byte(strings.ToUpper(name))
		}
	}
	return e
}

// applyToFields makes e's message of an object split into fs.
func (e keysetEdit) applyToFields(m defect, fs [][2][]byte) []byte {
	switch e.kind {
	case "missing_key":
		return m.join(slices.Delete(fs, e.at, e.at+1))
	case "extra_key":
		return m.join(slices.Insert(fs, e.at, [2][]byte{e.name, e.raw}))
	case "renamed_key", "wrong_case":
		fs[e.at][0] = e.name
		return m.join(fs)
	}
	return []byte("{}")
}

// applyToHit makes e's message of hit object obj ([defect.hitObject]) by editing its bytes:
// the bytes applyToFields makes of obj's fields.
func (e keysetEdit) applyToHit(m defect, obj []byte) []byte {
	last := len(hitKeys) - 1
	switch e.kind {
	case "missing_key":
		key, _, end := m.locate(obj, e.at)
		if e.at == last {
			return m.replace(obj, key-1, end) // from the comma before it
		}
		return m.replace(obj, key, end+1)
	case "extra_key":
		var buf [64]byte
		field := appendName(buf[:0], e.name)
		field = append(field, ':')
		field = append(field, e.raw...)
		if e.at > last {
			return m.replace(obj, len(obj)-1, len(obj)-1, []byte{','}, field)
		}
		key, _, _ := m.locate(obj, e.at)
		return m.replace(obj, key, key, field, []byte{','})
	case "renamed_key", "wrong_case":
		var buf [64]byte
		key, val, _ := m.locate(obj, e.at)
		return m.replace(obj, key, val, append(appendName(buf[:0], e.name), ':'))
	}
	return []byte("{}")
}

// dateSpelling is an EventDate the stand's intake accepts: the kind of accepted_bad it is and
// the raw JSON value.
type dateSpelling struct{ name, raw string }

// acceptedBadDate returns, for the canonical EventDate raw value (`"2026-07-01"`), a wrong
// spelling that ClickHouse's JSONExtract(…, 'Nullable(Date)') reads back as that very date, so
// the row lands in ods.event under its own day, inside any range that plays the day. (The
// stand's session build takes its scope from min(EventDate) in ODS: one row filed outside
// the world moves every later build there.) Measured on ClickHouse 26.7: a day of month up
// to 31 rolls over into the next month ("2026-06-31" is 2026-07-01, "2026-02-30" 2026-03-02),
// 32 and more give 1970-01-01; "2026/07/01" and "20260701" are read as 2026-07-01.
//
//   - impossible_date: a day past the end of the previous month that rolls over onto this date;
//     possible when the previous month is short enough (the 1st after a 30-day month, the 1st
//     to 3rd of March);
//   - date_spelling otherwise: slashes on odd days of the month, no separators on even days.
func acceptedBadDate(raw []byte) dateSpelling {
	t, err := time.Parse(time.DateOnly, string(bytes.Trim(raw, `"`)))
	if err != nil {
		panic("generator: canonical EventDate " + string(raw))
	}
	y, m, d := t.Date()
	last := time.Date(y, m, 0, 0, 0, 0, 0, time.UTC) // the previous month's last day
	if pd := last.Day() + d; pd <= 31 {
		return dateSpelling{"impossible_date", fmt.Sprintf(`"%04d-%02d-%02d"`, last.Year(), int(last.Month()), pd)}
	}
	if d%2 == 1 {
		return dateSpelling{"date_spelling", fmt.Sprintf(`"%04d/%02d/%02d"`, y, int(m), d)}
	}
	return dateSpelling{"date_spelling", fmt.Sprintf(`"%04d%02d%02d"`, y, int(m), d)}
}
