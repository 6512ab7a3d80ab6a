package topics

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/clickgen/clickgen/schema"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/internal/testenv"
)

// sentMessages plays run days [from, from+n) the way clickgen batch and snapshot send them,
// independently of Expect: clean events from World.Play with the day's extras interleaved at
// their positions, then each snapshot's rows with theirs; keys placed by murmur2 over the
// stand's partition counts and numbered with per-partition offsets, as a broker would.
func sentMessages(t testing.TB, w *world.World, from, n int, g world.Garbage) (hitMsgs, orderMsgs []Message) {
	t.Helper()
	offsets := [2]map[int32]int64{{}, {}}
	put := func(dst *[]Message, tp topic, parts int32, key, value []byte) {
		p := schema.PartitionForKey(key, parts)
		*dst = append(*dst, Message{Partition: p, Offset: offsets[tp][p], Key: key, Value: value})
		offsets[tp][p]++
	}
	var extras []world.Extra
	next := 0
	err := w.Play(context.Background(), from, n, world.PlayOptions{}, func(b *world.Batch) error {
		if b.From == 0 {
			extras, next = b.Day.HitExtras(g), 0
		}
		for i := range b.Msgs {
			for ; next < len(extras) && extras[next].After <= b.From+i; next++ {
				put(&hitMsgs, hits, 2, extras[next].Key, extras[next].Value)
			}
			put(&hitMsgs, hits, 2, b.Key(i), b.Value(i))
		}
		if b.Last {
			for ; next < len(extras); next++ {
				put(&hitMsgs, hits, 2, extras[next].Key, extras[next].Value)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	book := world.NewOrderBook(w)
	for _, d := range world.SnapshotDays(from, n) {
		rows, keys, err := book.SnapshotRows(d)
		if err != nil {
			t.Fatal(err)
		}
		x := w.OrderExtras(d, rows, keys, g)
		next := 0
		for i := range rows {
			for ; next < len(x) && x[next].After <= i; next++ {
				put(&orderMsgs, orders, 1, x[next].Key, x[next].Value)
			}
			put(&orderMsgs, orders, 1, keys[i], rows[i])
		}
		for ; next < len(x); next++ {
			put(&orderMsgs, orders, 1, x[next].Key, x[next].Value)
		}
	}
	return hitMsgs, orderMsgs
}

// fixture is one expectation with the messages it describes, shared by the tests that each
// change one message.
type fixture struct {
	w                  *world.World
	e                  *Expectation
	hitMsgs, orderMsgs []Message
}

var (
	canonicalOnce sync.Once
	canonical     fixture
)

// fixtureRaceScale is the scale of the shared fixtures' world under the race detector: the
// expectation is still built on its workers and every message still goes through the
// checker, at a tenth of the volume; the detector finds races in interleavings, not in
// volume. Without -race the fixtures are of the canonical world.
const fixtureRaceScale = 0.1

// canonicalFixture is run days 0 and 1 of the canonical world (hits of days 0 and 1, the
// snapshot of day 0) with light garbage and redelivery.
func canonicalFixture(t *testing.T) *fixture {
	return sharedFixture(t, &canonicalOnce, &canonical, world.Garbage{Rate: 0.002, Redeliver: 0.002})
}

// sharedFixture builds *f once, for every test that asks: the expectation of run days 0 and
// 1 of the canonical world with garbage g, and the messages that run sends. Under the race
// detector the world is at fixtureRaceScale.
func sharedFixture(t *testing.T, once *sync.Once, f *fixture, g world.Garbage) *fixture {
	t.Helper()
	once.Do(func() {
		p := world.Params{}
		if testenv.Race {
			p.Scale = fixtureRaceScale
		}
		w, err := world.NewWorld(p)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Expect(context.Background(), w, world.Range{From: 0, Days: 2, Garbage: g}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		h, o := sentMessages(t, w, 0, 2, g)
		*f = fixture{w: w, e: e, hitMsgs: h, orderMsgs: o}
	})
	if f.e == nil {
		t.Fatal("fixture failed")
	}
	return f
}

func table(t *testing.T, r *Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// wantDiff checks that r is not OK, counts exactly want differences by kind, and returns the
// examples of kind.
func wantDiff(t *testing.T, r *Result, want map[string]int, kind string) []Difference {
	t.Helper()
	if r.OK {
		t.Fatalf("Result.OK = true, want differences %v\n%s", want, table(t, r))
	}
	for _, k := range DiffKinds {
		if r.Differences[k] != want[k] {
			t.Errorf("differences %s = %d, want %d\n%s", k, r.Differences[k], want[k], table(t, r))
		}
	}
	var out []Difference
	for _, d := range r.Examples {
		if d.Kind == kind {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no example of %s\n%s", kind, table(t, r))
	}
	return out
}

// TestSelfCheck: the messages the playing verbs send, in any order, reconcile with the
// expectation, which agrees with the inventory day by day.
func TestSelfCheck(t *testing.T) {
	f := canonicalFixture(t)
	hm := slices.Clone(f.hitMsgs)
	slices.Reverse(hm) // a multiset: the order of arrival does not matter
	r := f.e.Check(hm, f.orderMsgs)
	out := table(t, r)
	if !r.OK {
		t.Fatalf("self check not OK:\n%s", out)
	}
	inv := f.e.Inventory
	if len(r.Hits.Units) != 2 || len(r.Orders.Units) != 1 {
		t.Fatalf("units: %d days, %d snapshots; want 2 and 1", len(r.Hits.Units), len(r.Orders.Units))
	}
	for i, u := range r.Hits.Units {
		d := inv.Days[i]
		if u.Got.Messages != d.Messages || u.Got.Clean != d.Events || u.Got.Redelivered != d.Redelivered || u.SHA256 != d.SHA256 || !u.SHA256OK {
			t.Errorf("day %d: got %d messages, %d clean, %d redelivered, sha %s; inventory %d, %d, %d, %s",
				u.Day, u.Got.Messages, u.Got.Clean, u.Got.Redelivered, u.SHA256, d.Messages, d.Events, d.Redelivered, d.SHA256)
		}
		if u.Got.Redelivered == 0 || u.Got.Messages == u.Got.Clean+u.Got.Redelivered {
			t.Errorf("day %d: the fixture should carry redeliveries and garbage: %+v", u.Day, u.Got)
		}
	}
	if s := r.Orders.Units[0]; s.Got.Messages != inv.Snapshots[0].Messages || s.SHA256 != inv.Snapshots[0].SHA256 {
		t.Errorf("snapshot 0: %d messages, sha %s; inventory %d, %s", s.Got.Messages, s.SHA256, inv.Snapshots[0].Messages, inv.Snapshots[0].SHA256)
	}
	if n := len(f.hitMsgs); r.Hits.Got.Messages != n || r.Hits.Got.Partitions[0]+r.Hits.Got.Partitions[1] != n || r.Hits.Got.Partitions[0] == 0 || r.Hits.Got.Partitions[1] == 0 {
		t.Errorf("hits total %d, partitions %v; sent %d over both partitions", r.Hits.Got.Messages, r.Hits.Got.Partitions, n)
	}
	if !strings.Contains(out, "OK: every message") || regexp.MustCompile(`\d≠\d`).MatchString(out) {
		t.Errorf("table of a clean reconciliation:\n%s", out)
	}
	// Checking again, or checking nothing, does not disturb the expectation.
	if r := f.e.Check(nil, nil); r.OK || r.Differences[DiffMissing] != len(f.hitMsgs)+len(f.orderMsgs) {
		t.Errorf("empty topics: OK=%v, %d missing; want %d missing", r.OK, r.Differences[DiffMissing], len(f.hitMsgs)+len(f.orderMsgs))
	}
	if r := f.e.Check(f.hitMsgs, f.orderMsgs); !r.OK {
		t.Error("a second check of the same messages is not OK")
	}
}

// TestExtraMessage: one hand-made message more is named with its class and partition.
func TestExtraMessage(t *testing.T) {
	f := canonicalFixture(t)
	key := []byte("1234567890")
	p := schema.PartitionForKey(key, 2)
	extra := Message{Partition: p, Offset: 999_999, Key: key, Value: []byte(`{"WatchID":1}`)}
	r := f.e.Check(append(slices.Clone(f.hitMsgs), extra), f.orderMsgs)
	ds := wantDiff(t, r, map[string]int{DiffUnexpected: 1}, DiffUnexpected)
	d := ds[0]
	if d.Topic != TopicHits || d.Class != intake.KeysetMismatch || d.Partition != p || d.Key != string(key) || d.Offset != 999_999 || d.Preview != `{"WatchID":1}` {
		t.Errorf("unexpected message described as %+v", d)
	}
	if r.Hits.Unexpected.Messages != 1 || r.Hits.Unexpected.Classes[intake.KeysetMismatch] != 1 || r.Hits.Unexpected.Partitions[p] != 1 {
		t.Errorf("unexpected tally %+v", r.Hits.Unexpected)
	}
	if r.Hits.StandGot.ODSErrors[intake.KeysetMismatch] != r.Hits.StandWant.ODSErrors[intake.KeysetMismatch]+1 {
		t.Errorf("stand: errors %v, inventory %v; want one keyset_mismatch more", r.Hits.StandGot.ODSErrors, r.Hits.StandWant.ODSErrors)
	}
	out := table(t, r)
	for _, want := range []string{"unexpected: hits, keyset_mismatch, key 1234567890, partition " + string(rune('0'+p)), "DIFFERS"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// A further copy of a sent order is unexpected too, and says what it copies.
	r = f.e.Check(f.hitMsgs, append(slices.Clone(f.orderMsgs), f.orderMsgs[3]))
	d = wantDiff(t, r, map[string]int{DiffUnexpected: 1}, DiffUnexpected)[0]
	if d.Topic != TopicOrders || d.Class != Accepted || d.Day != 0 || !strings.Contains(d.Note, "copy") {
		t.Errorf("duplicated order described as %+v", d)
	}
}

// TestMissingMessage: a message that never arrived is named with its day, class, key and
// partition, and the day's clean hash no longer holds.
func TestMissingMessage(t *testing.T) {
	f := canonicalFixture(t)
	i := len(f.hitMsgs) - 10 // a day 1 message
	for !isClean(f.hitMsgs[i]) {
		i--
	}
	gone := f.hitMsgs[i]
	r := f.e.Check(slices.Delete(slices.Clone(f.hitMsgs), i, i+1), f.orderMsgs)
	d := wantDiff(t, r, map[string]int{DiffMissing: 1}, DiffMissing)[0]
	if d.Topic != TopicHits || d.Day != 1 || d.Class != "clean" || d.Key != string(gone.Key) || d.Partition != gone.Partition || d.What == "" {
		t.Errorf("missing message described as %+v, want day 1 clean key %s partition %d", d, gone.Key, gone.Partition)
	}
	if d.Index < 0 || !bytes.Equal(f.w.Day(1).AppendEvent(nil, d.Index), gone.Value) {
		t.Errorf("missing message's index %d is not the event that went missing", d.Index)
	}
	if u := r.Hits.Units[1]; u.SHA256OK || u.OK || !r.Hits.Units[0].OK {
		t.Errorf("day 1 sha ok %v, ok %v; day 0 ok %v", u.SHA256OK, u.OK, r.Hits.Units[0].OK)
	}
	if !strings.Contains(table(t, r), "DIFFERS: 1 of") {
		t.Errorf("table does not flag the clean hash:\n%s", table(t, r))
	}
}

func isClean(m Message) bool {
	_, ok := intake.HitDedupKey(m.Value)
	return ok && bytes.HasPrefix(m.Value, []byte(`{"WatchID":`))
}

// TestWrongPartition: a message stored in the other partition is named, with the partition
// murmur2 gives its key.
func TestWrongPartition(t *testing.T) {
	f := canonicalFixture(t)
	hm := slices.Clone(f.hitMsgs)
	m := &hm[100]
	want := m.Partition
	m.Partition = 1 - m.Partition
	r := f.e.Check(hm, f.orderMsgs)
	d := wantDiff(t, r, map[string]int{DiffWrongPartition: 1}, DiffWrongPartition)[0]
	if d.Partition != m.Partition || d.WantPartition != want || d.Key != string(m.Key) || d.Day != 0 {
		t.Errorf("wrong partition described as %+v", d)
	}
	if r.Hits.Units[0].OK || r.Hits.Units[0].Got.Partitions[want] != r.Hits.Units[0].Want.Partitions[want]-1 {
		t.Errorf("day 0 partitions got %v want %v", r.Hits.Units[0].Got.Partitions, r.Hits.Units[0].Want.Partitions)
	}
}

// TestWrongKey: sent bytes under another key are named with both keys.
func TestWrongKey(t *testing.T) {
	f := canonicalFixture(t)
	om := slices.Clone(f.orderMsgs)
	sent := om[5].Key
	om[5].Key = []byte("19700101-0001")
	r := f.e.Check(f.hitMsgs, om)
	d := wantDiff(t, r, map[string]int{DiffWrongKey: 1}, DiffWrongKey)[0]
	if d.Topic != TopicOrders || d.Key != "19700101-0001" || d.WantKey != string(sent) {
		t.Errorf("wrong key described as %+v", d)
	}
	// One partition: every count agrees, yet the topic does not reconcile.
	if r.Orders.OK || !r.Hits.OK || r.Orders.Differences[DiffWrongKey] != 1 {
		t.Errorf("orders OK %v, hits OK %v, orders differences %v", r.Orders.OK, r.Hits.OK, r.Orders.Differences)
	}
}

// TestChangedByte: one changed byte makes the message missing and its changed copy
// unexpected.
func TestChangedByte(t *testing.T) {
	f := canonicalFixture(t)
	hm := slices.Clone(f.hitMsgs)
	i := 5000
	for !isClean(hm[i]) {
		i++
	}
	v := bytes.Clone(hm[i].Value)
	j := bytes.Index(v, []byte(`"Referer":"`)) + len(`"Referer":"`)
	v[j] ^= 0x01
	hm[i].Value = v
	r := f.e.Check(hm, f.orderMsgs)
	wantDiff(t, r, map[string]int{DiffMissing: 1, DiffUnexpected: 1}, DiffUnexpected)
	if r.Hits.Units[0].SHA256OK {
		t.Error("day 0's clean hash still holds after a byte changed")
	}
}

// TestGarbageHeavy: every garbage class at a high rate, with redelivery, reconciles; the
// intake's verdict on each arrived class agrees with the generator's, and the stand's view
// with the inventory.
func TestGarbageHeavy(t *testing.T) {
	w, err := world.NewWorld(world.Params{Scale: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	mix := map[string]int{}
	for _, c := range world.AllGarbageClasses() {
		mix[c] = 1
	}
	g := world.Garbage{Rate: 0.05, Mix: mix, Redeliver: 0.01}
	e, err := Expect(context.Background(), w, world.Range{From: 3, Days: 3, Garbage: g}, Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	hm, om := sentMessages(t, w, 3, 3, g)
	slices.Reverse(om)
	r := e.Check(hm, om)
	if !r.OK {
		t.Fatalf("garbage-heavy run does not reconcile:\n%s", table(t, r))
	}
	for _, tr := range []TopicResult{r.Hits, r.Orders} {
		for o, n := range tr.Got.Classes {
			if n == 0 && !(tr.Topic == TopicOrders && o == NoRow) {
				t.Errorf("%s: no %s message: the test proves nothing for it", tr.Topic, o)
			}
		}
		if tr.Got.Redelivered == 0 {
			t.Errorf("%s: no redelivery", tr.Topic)
		}
	}
	if len(r.Orders.Units) != 3 || r.Hits.StandGot.ODS != *e.Inventory.Expect.Hits.ODSEvents {
		t.Errorf("snapshots %d, ods events %d, inventory %d", len(r.Orders.Units), r.Hits.StandGot.ODS, *e.Inventory.Expect.Hits.ODSEvents)
	}
	// Workers do not change the expectation.
	e1, err := Expect(context.Background(), w, world.Range{From: 3, Days: 3, Garbage: g}, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r1 := e1.Check(hm, om); !r1.OK || len(e1.slots) != len(e.slots) {
		t.Errorf("one worker: OK %v, %d slots; three workers %d", r1.OK, len(e1.slots), len(e.slots))
	}
}

func TestExpectRejects(t *testing.T) {
	w, _ := world.NewWorld(world.Params{})
	for _, tc := range []struct {
		from, n int
		g       world.Garbage
		field   string
	}{{-1, 1, world.Garbage{}, "from"}, {0, 0, world.Garbage{}, "days"}, {0, 1, world.Garbage{Rate: -1}, "garbage"}} {
		var re *world.RangeError
		if _, err := Expect(context.Background(), w, world.Range{From: tc.from, Days: tc.n, Garbage: tc.g}, Options{}); !errors.As(err, &re) || re.Field != tc.field {
			t.Errorf("Expect(from %d, n %d, %+v) = %v, want the range's %s refused", tc.from, tc.n, tc.g, err, tc.field)
		}
	}
	if _, err := Expect(context.Background(), w, world.Range{From: 0, Days: 1}, Options{HitPartitions: -1}); err == nil {
		t.Error("Expect with -1 hits partitions succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Expect(ctx, w, world.Range{From: 0, Days: 2}, Options{}); err == nil {
		t.Error("Expect with a cancelled context succeeded")
	}
}

// TestExpectationAgreesWithInventory is what Expect no longer checks at run time: that the
// expectation (built message by message, classes from the intake model) and the inventory
// (counted per unit) say the same for every day and snapshot of a garbage-heavy range with
// every class: the clean hash, messages, redeliveries, garbage per class, and the stand's raw
// and error rows. The inventory it carries must also be the one World.Inventory prints.
func TestExpectationAgreesWithInventory(t *testing.T) {
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]int{}
	for _, c := range world.AllGarbageClasses() {
		all[c] = 1
	}
	g := world.Garbage{Rate: 0.05, Mix: all, Redeliver: 0.03}
	const from, n = 0, 2 // hits of days 0, 1 and the snapshot of day 0
	e, err := Expect(context.Background(), w, world.Range{From: from, Days: n, Garbage: g}, Options{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := w.Inventory(context.Background(), world.Range{From: from, Days: n, Garbage: g}, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, want := mustJSON(t, e.Inventory), mustJSON(t, inv)
	if got != want {
		t.Fatalf("the expectation's inventory differs from World.Inventory:\n%s\nwant\n%s", got, want)
	}
	if len(e.units) != len(inv.Days)+len(inv.Snapshots) {
		t.Fatalf("%d units, the inventory has %d days and %d snapshots", len(e.units), len(inv.Days), len(inv.Snapshots))
	}
	for i := range e.units {
		u := &e.units[i]
		var sha string
		var msgs, redelivered int
		var garbage map[string]int
		var x world.Expect
		if i < len(inv.Days) {
			d := &inv.Days[i]
			sha, msgs, redelivered, garbage, x = d.SHA256, d.Messages, d.Redelivered, d.Garbage, d.Expect
		} else {
			s := &inv.Snapshots[i-len(inv.Days)]
			sha, msgs, redelivered, garbage, x = s.SHA256, s.Messages, s.Redelivered, s.Garbage, s.Expect
		}
		name := fmt.Sprintf("%s %d", u.topic, u.day)
		if u.sha != sha || u.want.Messages != msgs || u.want.Redelivered != redelivered {
			t.Errorf("%s: expectation (sha256 %s, %d messages, %d redelivered), inventory (%s, %d, %d)",
				name, u.sha, u.want.Messages, u.want.Redelivered, sha, msgs, redelivered)
		}
		byLabel := map[string]int{}
		for _, s := range e.slots[u.first:u.end] {
			if s.label != 0 {
				byLabel[labels[s.label]] += int(s.want)
			}
		}
		extras := 0
		for c, k := range garbage {
			extras += k
			if byLabel[c] != k {
				t.Errorf("%s: %d messages of garbage class %s expected, the inventory counts %d", name, byLabel[c], c, k)
			}
		}
		if extras == 0 {
			t.Errorf("%s: no garbage at rate %v: the test proves nothing", name, g.Rate)
		}
		if stg := u.want.Messages - u.want.Classes[NoRow]; stg != x.StgRows {
			t.Errorf("%s: %d messages leave a raw row, the inventory says stg_rows %d", name, stg, x.StgRows)
		}
		for c, k := range x.ODSErrors {
			if u.want.Classes[c] != k {
				t.Errorf("%s: %d messages expected in error class %s, the inventory says %d", name, u.want.Classes[c], c, k)
			}
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
