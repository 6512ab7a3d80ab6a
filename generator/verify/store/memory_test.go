package store_test

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/internal/testenv"
	"github.com/clickgen/clickgen/schema"
)

// TestPlanMemoryPerEvent bounds what the check keeps per planned event of a day planned from
// its segment days, every table named, live after a full collection: while the day is judged,
// its events (a WatchID and the digest of the stored row: 16 bytes) and the raw table's rows
// of them (the SipHash64 of the bytes: 8), with a segment day's hashes being made (8 bytes an
// event of the segment): 26.8 bytes an event on day 1 at scale 2; once the run is planned,
// the raw table's rows and those hashes, 12.1. Raw rows kept as 16-byte entries made these
// 36 and 21.6 (at --scale 100 a day is 5.2 million events: 8 bytes an event are 41 MB). An
// empty store, so that nothing read weighs, and one difference listed (each listed one is
// kept); the world's cohorts are those of a first check of the same day, kept until it
// (world.KeepUntil), so that they cancel. Bytes, never time.
func TestPlanMemoryPerEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("plans a scale-2 day twice")
	}
	w, err := world.NewWorld(world.Params{Scale: 2})
	if err != nil {
		t.Fatal(err)
	}
	const day = 1
	w.KeepUntil(day)
	defer store.SetPlanScale(0.5)() // four segment days
	r := store.Range{From: day, Days: 1}
	empty := func() *fakeStore {
		return &fakeStore{loads: map[schema.Date][2]int64{}, now: 1_800_000_000, mu: &sync.Mutex{}, layout: fakeLayout(), reads: map[string]int{}}
	}
	check := func() *store.Result {
		t.Helper()
		res, err := store.Verify(context.Background(), w, r, empty(), store.Options{Tables: store.StandTables(), Workers: 2, MaxListed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	check() // the cohorts of the day, cached
	held := map[string]int64{}
	base := testenv.LiveHeap()
	defer store.SetMemoryHook(func(stage string) { held[stage] = testenv.LiveHeap() - base })()
	res := check()
	events := res.Events.Total.Planned
	if events < 50_000 || res.Raw.Total.Planned != events {
		t.Fatalf("planned %d events and %d raw rows; want the same number, a scale-2 day's", events, res.Raw.Total.Planned)
	}
	for _, c := range []struct {
		stage string
		most  float64
	}{{"judge", 30}, {"walked", 15}} {
		perEvent := float64(held[c.stage]) / float64(events)
		if perEvent > c.most {
			t.Errorf("%s: %d bytes held for %d planned events, %.1f an event; want at most %.0f", c.stage, held[c.stage], events, perEvent, c.most)
		} else {
			t.Logf("%s: %d bytes held for %d planned events, %.1f an event", c.stage, held[c.stage], events, perEvent)
		}
	}
	runtime.KeepAlive(res)
}
