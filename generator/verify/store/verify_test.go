package store_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/internal/testenv"
	"github.com/clickgen/clickgen/schema"
)

// every is every garbage class with weight 1, one malformed message in twenty and one
// redelivery in a hundred: the garbage profile's settings.
var every = world.Garbage{Rate: 0.05, Redeliver: 0.01, Mix: map[string]int{
	world.GarbageNotAnObject: 1, world.GarbageKeysetMismatch: 1, world.GarbageKeyUnparsed: 1,
	world.GarbageAcceptedBad: 1, world.GarbageVanishing: 1, world.GarbageFieldInvalid: 1,
}}

// The run of these tests: eight days of a world at scale 0.05 (about 2 600 events a day),
// with every garbage class and redelivery: days 0…7, snapshots 0…6, day 0 closed.
const (
	runFrom = 0
	runDays = 8
)

var fixture struct {
	once sync.Once
	w    *world.World
	f    *fakeStore
	inv  *world.Inventory
	err  error
}

// filled returns the world and a store filled with the run, as the stand's intake fills it.
func filled(t *testing.T) (*world.World, *fakeStore, *world.Inventory) {
	t.Helper()
	fixture.once.Do(func() {
		fixture.w, fixture.err = world.NewWorld(world.Params{Scale: 0.05})
		if fixture.err != nil {
			return
		}
		fixture.f = play(t, fixture.w, runFrom, runDays, every)
		fixture.inv, fixture.err = fixture.w.Inventory(context.Background(), world.Range{From: runFrom, Days: runDays, Garbage: every}, 0)
	})
	if fixture.err != nil {
		t.Fatal(fixture.err)
	}
	return fixture.w, fixture.f.clone(), fixture.inv
}

// bubbleWorld is a world like the fixture's for one synctest bubble, made outside it: the
// world makes a day's cohort lists when first asked (and again after it released them) on
// channels of the bubble that asked, which a test in another bubble must not wait on (`go
// test -run TestWait` failed so: "receive on synctest channel from outside bubble").
func bubbleWorld(t *testing.T) *world.World {
	t.Helper()
	w, err := world.NewWorld(world.Params{Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func verify(t *testing.T, w *world.World, src store.Source, opt store.Options) *store.Result {
	t.Helper()
	if opt.Tables == (store.Tables{}) {
		opt.Tables = store.StandTables()
	}
	res, err := store.Verify(context.Background(), w, store.Range{From: runFrom, Days: runDays, Garbage: every}, src, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func table(t *testing.T, res *store.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := res.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestExact: a store holding exactly the run reconciles, and what Verify plans is the
// inventory's: per date the accepted events, the raw rows, the error rows per class, the
// distinct orders, the closed day's classes.
func TestExact(t *testing.T) {
	w, f, inv := filled(t)
	res := verify(t, w, f, store.Options{})
	out := table(t, res)
	if !res.OK {
		t.Fatalf("an exact store differs:\n%s", out)
	}
	t.Logf("\n%s", out)
	for i, d := range res.Events.Dates {
		if want := *inv.Days[i].Expect.ODSEvents; d.Planned != want || d.Present != want {
			t.Errorf("events %s: planned %d present %d, inventory ods_events %d", d.Date, d.Planned, d.Present, want)
		}
	}
	for i, u := range res.Raw.Units {
		if want, r := inv.Days[i].Expect.StgRows, inv.Days[i].Redelivered; u.Planned != want || u.Redelivered != r || u.RedeliveredPresent != r {
			t.Errorf("raw %s: planned %d (redelivered %d, present %d), inventory stg_rows %d (redelivered %d)",
				u.Date, u.Planned, u.Redelivered, u.RedeliveredPresent, want, r)
		}
	}
	for i, u := range res.Errors.Units {
		for c, want := range inv.Days[i].Expect.ODSErrors {
			if u.ByClass[c].Planned != want || u.ByClass[c].Present != want {
				t.Errorf("errors %s %s: planned %d present %d, inventory %d", u.Date, c, u.ByClass[c].Planned, u.ByClass[c].Present, want)
			}
		}
	}
	for i, u := range res.OrderErrors.Units {
		for c, want := range inv.Snapshots[i].Expect.ODSErrors {
			if u.ByClass[c].Planned != want {
				t.Errorf("order errors %s %s: planned %d, inventory %d", u.Date, c, u.ByClass[c].Planned, want)
			}
		}
	}
	if want := *inv.Expect.Orders.ODSOrders; res.Orders.Total.Planned != want || res.Orders.Total.Present != want {
		t.Errorf("orders: planned %d present %d, inventory ods_orders %d", res.Orders.Total.Planned, res.Orders.Total.Present, want)
	}
	if len(res.Marts.Days) != 1 || !res.Marts.Days[0].OK {
		t.Errorf("marts: %+v, want day 0 reconciled", res.Marts.Days)
	}
	redelivered := 0
	for _, d := range inv.Days {
		redelivered += d.Redelivered
	}
	if inv.Expect.Hits.ODSErrors["key_field_unparsed"] == 0 || redelivered == 0 || res.Events.Total.Copies != redelivered {
		t.Errorf("the run has no key_field_unparsed garbage or redelivery, or the exact store's copies %d are not its %d redeliveries",
			res.Events.Total.Copies, redelivered)
	}
}

// dayRows returns the indexes of f's events on date d.
func dateOf(d int) schema.Date { return world.DayDate(d) }

// TestFaults: each fault in an otherwise exact store is found, exactly, in its table alone.
func TestFaults(t *testing.T) {
	testenv.SkipUnderRace(t, watchedReadAhead)
	w, _, inv := filled(t)
	day1 := dateOf(1)
	for _, tc := range []struct {
		name   string
		opt    store.Options
		damage func(f *fakeStore)
		check  func(t *testing.T, res *store.Result)
	}{
		{name: "a day's events deleted", damage: func(f *fakeStore) {
			f.events = slicesDelete(f.events, func(e evRow) bool { return e.date == day1 })
		}, check: func(t *testing.T, res *store.Result) {
			d := res.Events.Dates[1]
			want := *inv.Days[1].Expect.ODSEvents
			if d.Missing != want || d.Present != 0 || res.Events.Differences != want {
				t.Errorf("day 1: missing %d present %d differences %d; want all %d missing", d.Missing, d.Present, res.Events.Differences, want)
			}
			for _, e := range res.Events.Diffs {
				if e.Kind != store.KindMissing || e.Date != day1.String() || e.ClientID == 0 {
					t.Errorf("listed %+v; want missing on %s with a ClientID", e, day1)
				}
			}
			onlyFailing(t, res, "events")
		}},
		{name: "unplanned rows inserted", damage: func(f *fakeStore) {
			for i := range 3 {
				f.events = append(f.events, evRow{watchID: 1<<60 + uint64(i), clientID: 77 + uint64(i), date: day1})
			}
		}, check: func(t *testing.T, res *store.Result) {
			if res.Events.Dates[1].Unplanned != 3 || res.Events.Differences != 3 {
				t.Errorf("day 1: unplanned %d, differences %d; want 3", res.Events.Dates[1].Unplanned, res.Events.Differences)
			}
			for i, e := range res.Events.Diffs {
				if e.Kind != store.KindUnplanned || e.WatchID != 1<<60+uint64(i) || e.ClientID != 77+uint64(i) || e.Date != day1.String() {
					t.Errorf("listed %+v", e)
				}
			}
			onlyFailing(t, res, "events")
		}},
		{name: "a day replayed", damage: replayDay1, check: func(t *testing.T, res *store.Result) {
			// Day 1's N events and R redeliveries, twice: 2N+2R rows of N WatchIDs.
			d, day := res.Events.Dates[1], inv.Days[1]
			n, r := *day.Expect.ODSEvents, day.Redelivered
			if !res.OK || d.Copies != n+2*r || d.Present != n {
				t.Errorf("replayed day 1: OK %v, copies %d present %d; want OK with %d copies", res.OK, d.Copies, d.Present, n+2*r)
			}
			errs := 0
			for _, k := range day.Expect.ODSErrors {
				errs += k
			}
			// (Totals: the same bytes sent on several days, a "{}", may be counted on another.)
			if res.Raw.Total.Copies != day.Expect.StgRows || res.Errors.Total.Copies != errs {
				t.Errorf("raw copies %d (want stg_rows of day 1, %d), error copies %d (want %d)", res.Raw.Total.Copies, day.Expect.StgRows, res.Errors.Total.Copies, errs)
			}
		}},
		{name: "a day replayed, exactly once", opt: store.Options{ExactlyOnce: true}, damage: replayDay1, check: func(t *testing.T, res *store.Result) {
			if res.OK || res.Events.OK || res.Raw.OK || res.Errors.OK {
				t.Errorf("copies under ExactlyOnce: OK %v, events %v raw %v errors %v; want differences", res.OK, res.Events.OK, res.Raw.OK, res.Errors.OK)
			}
			// Every WatchID of day 1 has copies, and so has every redelivered one.
			if want := *inv.Days[1].Expect.ODSEvents; res.Events.Dates[1].Copies < want || res.Events.Differences < want {
				t.Errorf("events differences %d, want at least one per WatchID of day 1: %d", res.Events.Differences, want)
			}
			for _, d := range res.Events.Diffs {
				if d.Kind != store.KindCopies || d.Rows < 2 {
					t.Errorf("listed %+v; want copies only", d)
				}
			}
		}},
		{name: "a ClientID changed", damage: func(f *fakeStore) {
			for i := range f.events {
				if f.events[i].date == day1 {
					f.events[i].clientID++
					f.events[i].set = map[string][]byte{"ClientID": u64(f.events[i].clientID)}
					break
				}
			}
		}, check: func(t *testing.T, res *store.Result) {
			if res.Events.Differences != 1 || res.Events.Diffs[0].Kind != store.KindChanged ||
				res.Events.Diffs[0].ClientID != res.Events.Diffs[0].PlannedClientID+1 || res.Events.Diffs[0].Columns != "ClientID" {
				t.Errorf("differences %+v; want one changed ClientID", res.Events.Diffs)
			}
			onlyFailing(t, res, "events")
		}},
		{name: "the errors table dropped", damage: func(f *fakeStore) { f.dropped[store.StandTables().Errors] = true },
			check: func(t *testing.T, res *store.Result) {
				if res.Errors.OK || !strings.Contains(res.Errors.Error, "ods.event_errors_dist does not exist") {
					t.Errorf("errors: OK %v, error %q; want a difference naming the table", res.Errors.OK, res.Errors.Error)
				}
				onlyFailing(t, res, "errors")
			}},
		{name: "raw rows expired", damage: func(f *fakeStore) {
			f.raw = slicesDelete(f.raw, func(r rawRow) bool { return r.day == 0 })
			f.loads[dateOf(0)] = [2]int64{f.now - 80*3600, f.now - 79*3600}
		}, check: func(t *testing.T, res *store.Result) {
			u := res.Raw.Units[0]
			if !res.OK || u.Expired != u.Planned || u.Missing != 0 || u.Present != 0 {
				t.Errorf("day 0 loaded 80 h ago without its raw rows: OK %v, %+v; want them expired", res.OK, u.DigestCounts)
			}
		}},
		{name: "raw rows lost", damage: func(f *fakeStore) {
			f.raw = slicesDelete(f.raw, func(r rawRow) bool { return r.day == 0 })
		}, check: func(t *testing.T, res *store.Result) {
			u := res.Raw.Units[0]
			if u.Missing != u.Planned || u.Expired != 0 || res.Raw.Differences != u.Missing {
				t.Errorf("day 0 loaded an hour ago without its raw rows: %+v; want them missing", u.DigestCounts)
			}
			onlyFailing(t, res, "raw")
		}},
		{name: "a redelivery lost", damage: func(f *fakeStore) {
			// One of the two copies of a redelivered message of day 2 is gone.
			seen := map[string]bool{}
			for i, r := range f.raw {
				if r.day != 2 {
					continue
				}
				if seen[string(r.raw)] {
					f.raw = append(f.raw[:i], f.raw[i+1:]...)
					return
				}
				seen[string(r.raw)] = true
			}
		}, check: func(t *testing.T, res *store.Result) {
			u := res.Raw.Units[2]
			if res.Raw.Differences != 1 || u.Missing != 1 || u.RedeliveredPresent != u.Redelivered-1 ||
				res.Raw.Diffs[0].Kind != store.KindMissing || res.Raw.Diffs[0].What != "redelivered" {
				t.Errorf("raw day 2: %+v, differences %+v; want the redelivery missing", u.DigestCounts, res.Raw.Diffs)
			}
			onlyFailing(t, res, "raw")
		}},
		{name: "an error row misclassified", damage: func(f *fakeStore) {
			f.errors[0].class = "not_a_class"
		}, check: func(t *testing.T, res *store.Result) {
			if res.Errors.Differences != 1 || res.Errors.Diffs[0].Kind != store.KindMisclassified || res.Errors.Diffs[0].GotClass != "not_a_class" {
				t.Errorf("errors differences %+v; want one misclassified", res.Errors.Diffs)
			}
			onlyFailing(t, res, "errors")
		}},
		{name: "an order's latest version lost", damage: func(f *fakeStore) {
			// The order carried by the most snapshots loses its latest version.
			last := map[string]schema.Date{}
			for _, o := range f.orders {
				last[o.id] = max(last[o.id], o.date)
			}
			id := f.orders[0].id
			f.orders = slicesDelete(f.orders, func(o ordRow) bool { return o.id == id && o.date == last[id] })
		}, check: func(t *testing.T, res *store.Result) {
			if res.Orders.Total.Stale+res.Orders.Total.Missing != 1 || res.Orders.Differences != 1 {
				t.Errorf("orders %+v; want one stale (or missing) order", res.Orders.Total)
			}
			onlyFailing(t, res, "orders")
		}},
		{name: "unplanned orders", damage: func(f *fakeStore) {
			// An order first carried by snapshot 3 gets a version of snapshot 1.
			first := map[string]schema.Date{}
			for _, o := range f.orders {
				if d, ok := first[o.id]; !ok || o.date < d {
					first[o.id] = o.date
				}
			}
			var late string
			for id, d := range first {
				if d == dateOf(3) && (late == "" || id < late) {
					late = id
				}
			}
			f.orders = append(f.orders, ordRow{id: "20260602-9999", date: dateOf(3)}, ordRow{id: "20250101-0001", date: dateOf(-30)}, ordRow{id: late, date: dateOf(1)})
		}, check: func(t *testing.T, res *store.Result) {
			c := res.Orders.Total
			if c.Unplanned != 1 || c.OtherDates != 1 || c.UnplannedVersions != 1 || res.Orders.Differences != 2 {
				t.Errorf("orders %+v; want one unplanned, one unplanned version, one of other dates", c)
			}
			onlyFailing(t, res, "orders")
		}},
		{name: "a mart class off", damage: func(f *fakeStore) {
			f.marts[0].Count++
			f.marts = append(f.marts, store.MartCount{Day: dateOf(0), Class: "awaiting_order", Count: 2})
		}, check: func(t *testing.T, res *store.Result) {
			if res.Marts.Differences != 2 {
				t.Errorf("marts differences %+v; want two", res.Marts.Diffs)
			}
			onlyFailing(t, res, "marts")
		}},
		{name: "rows of other dates", damage: func(f *fakeStore) {
			other := []byte(`{"EventDate":"2025-01-01","WatchID":1}`)
			f.raw = append(f.raw, rawRow{other, -1})
			f.errors = append(f.errors, errRow{other, "keyset_mismatch", -1})
			f.events = append(f.events, evRow{watchID: 1, clientID: 2, date: dateOf(-100)})
		}, check: func(t *testing.T, res *store.Result) {
			if !res.OK || res.Raw.OtherDates != 1 || res.Errors.OtherDates != 1 {
				t.Errorf("OK %v, raw of other dates %d, errors %d; want OK with one each", res.OK, res.Raw.OtherDates, res.Errors.OtherDates)
			}
		}},
		{name: "a table changing under the read", damage: func(f *fakeStore) { f.changes[store.StandTables().Raw] = 2 },
			check: func(t *testing.T, res *store.Result) {
				if !res.OK {
					t.Errorf("a table that settled on the third read: %v", res.Raw.Error)
				}
			}},
		{name: "a table that keeps changing", damage: func(f *fakeStore) { f.changes[store.StandTables().Raw] = 3 },
			check: func(t *testing.T, res *store.Result) {
				if res.Raw.OK || !strings.Contains(res.Raw.Error, "changed while it was read") {
					t.Errorf("raw: OK %v, error %q; want the table unreadable", res.Raw.OK, res.Raw.Error)
				}
				onlyFailing(t, res, "raw")
			}},
		{name: "a bounded list", opt: store.Options{MaxListed: 5}, damage: func(f *fakeStore) {
			f.events = slicesDelete(f.events, func(e evRow) bool { return e.date == day1 })
		}, check: func(t *testing.T, res *store.Result) {
			if len(res.Events.Diffs) != 5 || !res.Events.Truncated || res.Events.Differences != *inv.Days[1].Expect.ODSEvents {
				t.Errorf("%d listed of %d, truncated %v", len(res.Events.Diffs), res.Events.Differences, res.Events.Truncated)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, f, _ := filled(t)
			tc.damage(f)
			res := verify(t, w, f, tc.opt)
			tc.check(t, res)
			out := table(t, res)
			if res.OK != strings.Contains(out, "\nOK: ") || !res.OK != strings.Contains(out, "\nDIFFERS: ") {
				t.Errorf("the table's verdict is not the result's (OK %v):\n%s", res.OK, out)
			}
			if t.Failed() {
				t.Logf("\n%s", out)
			}
		})
	}
}

func replayDay1(f *fakeStore) {
	d := dateOf(1)
	for _, e := range f.events {
		if e.date == d {
			f.events = append(f.events, e)
		}
	}
	for _, r := range f.raw {
		if r.day == 1 {
			f.raw = append(f.raw, r)
		}
	}
	for _, r := range f.errors {
		if r.day == 1 {
			f.errors = append(f.errors, r)
		}
	}
}

// onlyFailing checks that the table named is the one that differs.
func onlyFailing(t *testing.T, res *store.Result, name string) {
	t.Helper()
	if res.OK {
		t.Errorf("the result is OK; want %s to differ", name)
	}
	for n, ok := range map[string]bool{"events": res.Events.OK, "raw": res.Raw.OK, "errors": res.Errors.OK, "orders": res.Orders.OK,
		"order errors": res.OrderErrors.OK, "marts": res.Marts.OK} {
		if ok == (n == name) {
			t.Errorf("table %s: OK %v", n, ok)
		}
	}
}

func slicesDelete[S ~[]E, E any](s S, del func(E) bool) S {
	out := s[:0]
	for _, e := range s {
		if !del(e) {
			out = append(out, e)
		}
	}
	return out
}

// TestUnreadableStore: a store that does not answer, or refuses the credentials, ends Verify
// with that error and no result, whichever table it happens at.
func TestUnreadableStore(t *testing.T) {
	w, f, _ := filled(t)
	f.fail = &clickhouse.TimeoutError{Phase: clickhouse.PhaseFirstByte, After: 1, Addr: "x"}
	res, err := store.Verify(context.Background(), w, store.Range{From: runFrom, Days: runDays, Garbage: every}, f, store.Options{Tables: store.StandTables()})
	var te *clickhouse.TimeoutError
	if res != nil || !errors.As(err, &te) {
		t.Fatalf("Verify = %v, %v; want no result and the timeout", res != nil, err)
	}
}

// TestSkippedTables: an empty name skips a table; nothing is read from it.
func TestSkippedTables(t *testing.T) {
	w, f, _ := filled(t)
	res := verify(t, w, f, store.Options{Tables: store.Tables{Events: "ods.event_dist"}})
	if !res.OK || res.Raw != nil || res.Errors != nil || res.Orders != nil || res.Marts != nil || len(f.reads) != 1 || f.reads["ods.event_dist"] != runDays {
		t.Fatalf("only events read: OK %v, reads %v", res.OK, f.reads)
	}
}

// TestWithoutRaw: without the raw table, the hits are planned from the days' models, not
// rendered, on a goroutine ahead of the judging; the other tables reconcile as with it, and a
// fault is still found where it is.
func TestWithoutRaw(t *testing.T) {
	testenv.SkipUnderRace(t, watchedReadAhead)
	w, f, inv := filled(t)
	tables := store.StandTables()
	tables.Raw = ""
	res := verify(t, w, f, store.Options{Tables: tables})
	if !res.OK || res.Raw != nil || res.Events.Total.Present != *inv.Expect.Hits.ODSEvents {
		t.Fatalf("without the raw table: OK %v, events %+v\n%s", res.OK, res.Events.Total, table(t, res))
	}
	errs := 0
	for _, n := range inv.Expect.Hits.ODSErrors {
		errs += n
	}
	if res.Errors.Total.Present != errs {
		t.Errorf("errors present %d, inventory %d", res.Errors.Total.Present, errs)
	}
	f.events = slicesDelete(f.events, func(e evRow) bool { return e.date == dateOf(5) })
	res = verify(t, w, f, store.Options{Tables: tables})
	if want := *inv.Days[5].Expect.ODSEvents; res.OK || res.Events.Dates[5].Missing != want {
		t.Errorf("day 5 deleted: OK %v, missing %d, want %d", res.OK, res.Events.Dates[5].Missing, want)
	}
}

// watchedReadAhead names the tests that run the verifier's concurrent paths (reading a table
// while the day is planned, the read-ahead, its waits) under the race detector; tests of one
// verdict after another leave -race to them.
const watchedReadAhead = "TestExact, TestEarlyReadOverlapsPlanning, TestEarlyReadWaits, TestReadAheadBrokeOff and TestWait"
