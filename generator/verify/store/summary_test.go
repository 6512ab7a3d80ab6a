package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/generator/verify/summary"
	"github.com/clickgen/clickgen/generator/verify/topics"
	"github.com/clickgen/clickgen/internal/testenv"
	"github.com/clickgen/clickgen/schema"
)

// sentMsg is one message a run sends: its unit's model day, its topic, key and value.
type sentMsg struct {
	day        int
	hit        bool
	key, value []byte
}

// sentRun is every message of range r of w, unit by unit, as the playing verbs send them
// (the order does not matter to either source).
func sentRun(t *testing.T, w *world.World, r world.Range) []sentMsg {
	t.Helper()
	var out []sentMsg
	for u, err := range w.Units(context.Background(), r, world.UnitOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		hit := u.Kind == world.HitsUnit
		for b := range u.Batches() {
			for i := range b.Msgs {
				out = append(out, sentMsg{u.Day, hit, bytes.Clone(b.Key(i)), bytes.Clone(b.Value(i))})
			}
			b.Release()
		}
		for _, x := range u.Extras {
			out = append(out, sentMsg{u.Day, hit, x.Key, x.Value})
		}
	}
	return out
}

// landed is a store the stand's intake filled from msgs, as play fills one from a run.
func landed(msgs []sentMsg) *fakeStore {
	f := &fakeStore{loads: map[schema.Date][2]int64{}, now: 1_800_000_000, mu: &sync.Mutex{}, layout: fakeLayout(), reads: map[string]int{}}
	for _, m := range msgs {
		v := m.value
		if m.hit {
			f.loads[world.DayDate(m.day)] = [2]int64{f.now - 3600, f.now - 60}
		}
		if len(v) == 0 {
			continue
		}
		if m.hit {
			f.raw = append(f.raw, rawRow{v, m.day})
			if class, _ := intake.ClassifyHit(v); class != "" {
				f.errors = append(f.errors, errRow{v, class, m.day})
				continue
			}
			row, _ := intake.AcceptedHitRow(v)
			f.events = append(f.events, evRow{watchID: row.WatchID, clientID: row.ClientID, date: row.EventDate, msg: v, hit: &parsedHit{}})
			continue
		}
		if class, _ := intake.ClassifyOrder(v); class != "" {
			f.orderErrors = append(f.orderErrors, errRow{v, class, m.day})
			continue
		}
		id, _ := intake.OrderDedupKey(v)
		f.orders = append(f.orders, ordRow{id: id, date: world.DayDate(m.day), msg: v})
	}
	return f
}

// breakRun breaks a run's hits of day 1 one way each: a clean message lost, one changed in a
// byte of its Referer (its WatchID kept), one delivered once more, one moved to day 20 (another
// run's), and a message nothing sent. Each chosen message is sent once.
func breakRun(t *testing.T, msgs []sentMsg) []sentMsg {
	t.Helper()
	seen := map[string]int{}
	for _, m := range msgs {
		seen[string(m.value)]++
	}
	var picked []int
	for i, m := range msgs {
		if _, ok := intake.HitDedupKey(m.value); ok && m.hit && m.day == 1 && seen[string(m.value)] == 1 && bytes.HasPrefix(m.value, []byte(`{"WatchID":`)) {
			picked = append(picked, i)
			if len(picked) == 4 {
				break
			}
		}
	}
	if len(picked) < 4 {
		t.Fatal("day 1 has not 4 clean messages")
	}
	lost, changed, copied, moved := picked[0], picked[1], picked[2], picked[3]
	v := bytes.Clone(msgs[changed].value)
	v[bytes.Index(v, []byte(`"Referer":"`))+len(`"Referer":"`)] ^= 0x01
	msgs[changed].value = v
	other := msgs[moved]
	other.value = bytes.Replace(bytes.Clone(other.value), []byte(`"EventDate":"`+world.DayDate(1).String()), []byte(`"EventDate":"`+world.DayDate(20).String()), 1)
	if bytes.Equal(other.value, msgs[moved].value) {
		t.Fatal("the moved message names no day 1")
	}
	msgs = append(msgs, msgs[copied], other, sentMsg{1, true, []byte("1234567890"), []byte(`{"WatchID":1}`)})
	return append(msgs[:lost], msgs[lost+1:]...)
}

// TestSummaryOfOneBrokenRun: the same broken run, read from its topics and from the store
// the stand filled from them, says each fault in the same word where both sources can tell
// it, exactly: the lost message is missing in the hits topic and the events table; the
// changed one changed in both (the raw table, which knows rows by their bytes only, says it
// missing and unplanned); the broker's extra copy and the other run's message are one copy
// and one other run in the hits topic and the raw table; the message nothing sent is
// unplanned in the topic, the raw and the error table. Every line speaks the same words.
func TestSummaryOfOneBrokenRun(t *testing.T) {
	// The words of one goroutine's summary; the reads behind it are watched elsewhere.
	testenv.SkipUnderRace(t, watchedReadAhead)
	w, err := world.NewWorld(world.Params{Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	rg := world.Range{From: 0, Days: 3, Garbage: every}
	msgs := breakRun(t, sentRun(t, w, rg))

	e, err := topics.Expect(context.Background(), w, rg, topics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := e.NewChecker()
	for i, m := range msgs {
		parts := int32(1)
		if m.hit {
			parts = 2
		}
		msg := topics.Message{Partition: schema.PartitionForKey(m.key, parts), Offset: int64(i), Key: m.key, Value: m.value}
		if m.hit {
			c.AddHit(msg)
		} else {
			c.AddOrder(msg)
		}
	}
	ks := c.Result().SummaryCounts()

	tables := store.StandTables()
	tables.Marts = ""
	res, err := store.Verify(context.Background(), w, rg, landed(msgs), store.Options{Tables: tables})
	if err != nil {
		t.Fatal(err)
	}
	ss := res.SummaryCounts()
	line := func(s summary.Summary, unit string) summary.Counts {
		for _, l := range s.Lines {
			if l.Unit == unit {
				return l.Counts
			}
		}
		t.Fatalf("no line %s in %+v", unit, s)
		return summary.Counts{}
	}
	hits, orders := line(ks, topics.TopicHits), line(ks, topics.TopicOrders)
	events, raw, errs := line(ss, store.RoleEvents), line(ss, store.RoleRaw), line(ss, store.RoleErrors)
	ords, ordErrs := line(ss, store.RoleOrders), line(ss, store.RoleOrderErrors)
	for _, x := range []struct {
		what      string
		got, want int
	}{
		{"hits missing", hits.Missing, 1}, {"hits changed", hits.Changed, 1}, {"hits copies", hits.Copies, 1},
		{"hits unplanned", hits.Unplanned, 1}, {"hits other runs", hits.OtherRuns, 1}, {"hits present", hits.Present, hits.Planned - 1},
		{"events missing", events.Missing, hits.Missing}, {"events changed", events.Changed, hits.Changed},
		{"events unplanned", events.Unplanned, 0}, {"events other runs", events.OtherRuns, 0},
		{"raw copies", raw.Copies, hits.Copies}, {"raw other runs", raw.OtherRuns, hits.OtherRuns},
		{"raw missing", raw.Missing, hits.Missing + hits.Changed}, {"raw unplanned", raw.Unplanned, hits.Unplanned + hits.Changed},
		{"raw changed", raw.Changed, 0}, {"raw present", raw.Present, raw.Planned - 2},
		{"errors unplanned", errs.Unplanned, 1}, {"errors present", errs.Present, errs.Planned},
		{"errors missing+changed+copies+other runs", errs.Missing + errs.Changed + errs.Copies + errs.OtherRuns, 0},
		{"orders topic differences", orders.Missing + orders.Unplanned + orders.Changed + orders.Copies + orders.OtherRuns, 0},
		{"orders table differences", ords.Missing + ords.Unplanned + ords.Changed + ords.OtherRuns, 0},
		{"orders table copies (the run's redeliveries, collapsed by FINAL)", ords.Copies, res.Orders.Total.Copies},
		{"order errors differences", ordErrs.Missing + ordErrs.Unplanned + ordErrs.Changed + ordErrs.Copies + ordErrs.OtherRuns, 0},
		{"orders present", ords.Present, ords.Planned}, {"orders topic present", orders.Present, orders.Planned},
	} {
		if x.got != x.want {
			t.Errorf("%s = %d, want %d\ntopics:\n%s\nstore:\n%s", x.what, x.got, x.want, text(t, ks), text(t, ss))
		}
	}
	// The events table counts the run's redeliveries as copies (FINAL collapses them), the
	// topic as planned: the extra copy is one more than them.
	if r := res.Events.Total; events.Copies != r.Copies || events.Planned != r.Planned || r.Copies < 2 {
		t.Errorf("events copies %d planned %d, the table's %d and %d", events.Copies, events.Planned, r.Copies, r.Planned)
	}
	// The same words: one heading over both sources' rows.
	kh, _, _ := strings.Cut(text(t, ks), "\n")
	sh, _, _ := strings.Cut(text(t, ss), "\n")
	if want := strings.Join(summary.Head, " "); strings.Join(strings.Fields(kh), " ") != want || strings.Join(strings.Fields(sh), " ") != want {
		t.Errorf("headings %q and %q, want the words %q", kh, sh, want)
	}
}

func text(t *testing.T, s summary.Summary) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSummaryCountsStore: each table's counts map to the vocabulary exactly: the exact store
// says every planned item present (its redeliveries copies in the events table alone), and a
// fault of each kind moves its figure: a lost event missing, a changed ClientID changed, an
// unplanned WatchID unplanned, a raw row of another date another run's, expired raw rows an
// extra (neither present nor missing), a table that cannot be read a line saying so.
func TestSummaryCountsStore(t *testing.T) {
	testenv.SkipUnderRace(t, watchedReadAhead)
	w, f, inv := filled(t)
	planned := func(get func(d world.InventoryDay) int) int {
		n := 0
		for _, d := range inv.Days {
			n += get(d)
		}
		return n
	}
	nev := planned(func(d world.InventoryDay) int { return *d.Expect.ODSEvents })
	nraw := planned(func(d world.InventoryDay) int { return d.Expect.StgRows })
	nred := planned(func(d world.InventoryDay) int { return d.Redelivered })
	s := verify(t, w, f, store.Options{}).SummaryCounts()
	if ev := s.Lines[0]; ev.Unit != store.RoleEvents || ev.Of != "WatchIDs" || ev.Planned != nev || ev.Present != nev || ev.Copies != nred ||
		ev.Missing+ev.Unplanned+ev.Changed+ev.OtherRuns != 0 {
		t.Errorf("exact store, events: %+v; want %d planned and present, %d copies", ev, nev, nred)
	}
	if raw := s.Lines[1]; raw.Unit != store.RoleRaw || raw.Planned != nraw || raw.Present != nraw || raw.Copies != 0 {
		t.Errorf("exact store, raw: %+v; want %d planned and present", raw, nraw)
	}
	if len(s.Lines) != 5 {
		t.Errorf("%d lines, want events, raw, errors, orders, order errors (marts have none)", len(s.Lines))
	}

	day1 := dateOf(1)
	var lost uint64
	for _, e := range f.events {
		if e.date == day1 {
			lost = e.watchID
			break
		}
	}
	f.events = slicesDelete(f.events, func(e evRow) bool { return e.watchID == lost })
	for i := range f.events {
		if f.events[i].date == dateOf(2) {
			f.events[i].clientID++
			f.events[i].set = map[string][]byte{"ClientID": u64(f.events[i].clientID)}
			break
		}
	}
	f.events = append(f.events, evRow{watchID: 1 << 60, clientID: 7, date: day1})
	var other []byte
	for _, r := range f.raw {
		if r.day == 3 && bytes.HasPrefix(r.raw, []byte(`{"WatchID":`)) {
			other = bytes.Replace(bytes.Clone(r.raw), []byte(`"EventDate":"`+dateOf(3).String()), []byte(`"EventDate":"`+dateOf(30).String()), 1)
			break
		}
	}
	f.raw = append(f.raw, rawRow{other, 30})
	f.raw = slicesDelete(f.raw, func(r rawRow) bool { return r.day == 0 })
	f.loads[dateOf(0)] = [2]int64{f.now - 80*3600, f.now - 79*3600}
	f.dropped[store.StandTables().OrderErrors] = true
	res := verify(t, w, f, store.Options{})
	s = res.SummaryCounts()
	raw0 := inv.Days[0].Expect.StgRows
	want := summary.New("store",
		summary.Line{Unit: store.RoleEvents, Table: res.Events.Table, Of: "WatchIDs", Counts: summary.Counts{Planned: nev, Present: nev - 1, Missing: 1, Unplanned: 1,
			Changed: 1, Copies: res.Events.Total.Copies, Extra: map[string]int{store.ExtraOnShards: 0}}},
		summary.Line{Unit: store.RoleRaw, Table: res.Raw.Table, Of: "rows", Counts: summary.Counts{Planned: nraw, Present: nraw - raw0, OtherRuns: 1,
			Extra: map[string]int{store.ExtraExpired: raw0}}},
		summary.Line{Unit: store.RoleErrors, Table: res.Errors.Table, Of: "rows", Counts: summary.Counts{Planned: res.Errors.Total.Planned,
			Present: res.Errors.Total.Planned, Extra: map[string]int{store.ExtraMisclassified: 0}}},
		summary.Line{Unit: store.RoleOrders, Table: res.Orders.Table, Of: "order_ids", Counts: summary.Counts{Planned: *inv.Expect.Orders.ODSOrders,
			Present: *inv.Expect.Orders.ODSOrders, Copies: res.Orders.Total.Copies, Extra: map[string]int{store.ExtraStale: 0, store.ExtraNewer: 0,
				store.ExtraUnplannedVersions: 0, store.ExtraOnShards: 0}}},
		summary.Line{Unit: store.RoleOrderErrors, Table: res.OrderErrors.Table, Of: "rows", Counts: summary.Counts{Extra: map[string]int{store.ExtraUnreadable: 1}}},
	)
	if g, w := mustJSON(t, s), mustJSON(t, want); g != w {
		t.Errorf("SummaryCounts =\n%s\nwant\n%s\n%s", g, w, table(t, res))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
