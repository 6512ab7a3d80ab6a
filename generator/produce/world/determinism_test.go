package world

// Determinism (product.md decision 3, world.md §6): the bytes of a day are a pure function of
// (seed, parameters, day, Version), whatever the run around them.

import (
	"context"
	"math/bits"
	"runtime"
	"sync"
	"testing"

	"github.com/clickgen/clickgen/internal/testenv"
	"github.com/clickgen/clickgen/schema"
)

// Golden SHA-256 of the canonical world (seed 20260601, scale 1, embedded catalog): over every
// clean event of the day followed by "\n", the inventory's day hash and the bytes of
// `batch --file`.
//
// Do not edit these values to make a test pass; change them only with a generator Version bump
// (a deliberate change of the world), and say so in the commit.
const (
	goldenVersion    = "0.3.1"
	goldenDay0SHA256 = "addb04abbf452d12a2d8d1566abf549378a741f7067ff81ea4f9d50b4bfd5a0e"
	goldenDay0Events = 52100
	goldenDay7SHA256 = "766fcb2e191c42b807488e3a1b1c69d07b7bdf0931f0e8b7830b88b04536342f"
	goldenDay7Events = 50915
)

// canonInventory is the inventory of the stand's starting world (run days 0–7, no garbage),
// shared by the tests that read it.
var canonInventory = sync.OnceValues(func() (*Inventory, error) {
	return canonWorld().Inventory(context.Background(), Range{From: 0, Days: 8}, 0)
})

func TestGoldenDayHashes(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	if Version != goldenVersion {
		t.Fatalf("Version = %q but the goldens were pinned for %q: recompute them deliberately with the bump", Version, goldenVersion)
	}
	w := canonical(t)
	inv, err := canonInventory()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct {
		day    int
		sha    string
		events int
	}{{0, goldenDay0SHA256, goldenDay0Events}, {7, goldenDay7SHA256, goldenDay7Events}} {
		day := w.Day(g.day)
		if got := daySHA(day); got != g.sha {
			t.Errorf("day %d SHA-256 = %s, want %s", g.day, got, g.sha)
		}
		if day.Len() != g.events {
			t.Errorf("day %d events = %d, want %d", g.day, day.Len(), g.events)
		}
		if got := inv.Days[g.day]; got.SHA256 != g.sha || got.Events != g.events {
			t.Errorf("Inventory day %d = %d events %s, want %d events %s", g.day, got.Events, got.SHA256, g.events, g.sha)
		}
	}
}

func TestDaySameBytesTwice(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	const d = 3
	a := daySHA(freshWorld(t, Params{}).Day(d))
	b := daySHA(freshWorld(t, Params{}).Day(d))
	if a != b {
		t.Errorf("day %d from two fresh worlds: SHA-256 %s and %s, want equal", d, a, b)
	}
	// The same world again (cohorts now cached) and an explicit canonical seed.
	w := freshWorld(t, Params{Seed: CanonicalSeed, Scale: 1})
	w.Day(d)
	if c := daySHA(w.Day(d)); c != a {
		t.Errorf("day %d regenerated in a warm world: SHA-256 %s, want %s", d, c, a)
	}
}

// The cohort LRU is a cache only: evicting every cohort between uses changes no byte.
func TestCohortCacheIsOnlyACache(t *testing.T) {
	const d = 2
	want := daySHA(canonical(t).Day(d))
	w := freshWorld(t, Params{})
	w.cohorts = newCohortCache(1)
	if got := daySHA(w.Day(d)); got != want {
		t.Errorf("day %d with a one-cohort cache: SHA-256 %s, want %s", d, got, want)
	}
}

func TestDayAloneEqualsDayInsideARun(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	run := playDays(t, freshWorld(t, Params{}), 0, 8, PlayOptions{Workers: 2})
	alone := playDays(t, freshWorld(t, Params{}), 5, 1, PlayOptions{Workers: 2})
	if run[5] != alone[0] {
		t.Errorf("day 5 inside Play(0, 8) = %+v, alone Play(5, 1) = %+v; want equal", run[5], alone[0])
	}
	// And Play's bytes are the Day's bytes.
	if got := daySHA(canonical(t).Day(5)); got != alone[0].SHA256 {
		t.Errorf("day 5: Day.AppendEvent hash %s, Play hash %s", got, alone[0].SHA256)
	}
}

// GOMAXPROCS and the number of workers change when bytes are made, never which bytes. Not
// parallel: it sets GOMAXPROCS.
func TestPlayIndependentOfGOMAXPROCSAndWorkers(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	one := playDays(t, freshWorld(t, watchedParams()), 0, 3, PlayOptions{Workers: 1})

	runtime.GOMAXPROCS(max(2, runtime.NumCPU()))
	for _, workers := range []int{4, 0} {
		many := playDays(t, freshWorld(t, watchedParams()), 0, 3, PlayOptions{Workers: workers})
		for d := range one {
			if one[d] != many[d] {
				t.Errorf("day %d: GOMAXPROCS=1 Workers=1 gives %+v, GOMAXPROCS=%d Workers=%d gives %+v",
					d, one[d], runtime.GOMAXPROCS(0), workers, many[d])
			}
		}
	}
}

func TestAddingADayChangesNoEarlierByte(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	three := playDays(t, freshWorld(t, Params{}), 0, 3, PlayOptions{})
	four := playDays(t, freshWorld(t, Params{}), 0, 4, PlayOptions{})
	for d := range three {
		if three[d] != four[d] {
			t.Errorf("day %d: Play(0, 3) gives %+v, Play(0, 4) gives %+v; want equal", d, three[d], four[d])
		}
	}
}

func TestSeedChangesBytes(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	canon := daySHA(canonical(t).Day(0))
	for _, seed := range []uint64{CanonicalSeed + 1, 1} {
		if got := daySHA(freshWorld(t, Params{Seed: seed}).Day(0)); got == canon {
			t.Errorf("seed %d: day 0 SHA-256 %s equals the canonical seed's", seed, got)
		}
	}
}

// Every (seed, component, day, sub) names its own stream: neighbouring positions give
// different streams whose outputs differ in about half their bits (the mixing avalanches).
func TestSubstreamsDistinct(t *testing.T) {
	components := []component{streamComposition, streamTraffic, streamCommerce, streamOrders, streamBeacons, streamDefects, streamRedelivery}
	type pos struct {
		seed uint64
		c    component
		day  int
		sub  uint64
	}
	seen := map[[2]uint64]pos{}
	var flips, pairs int
	for _, seed := range []uint64{CanonicalSeed, CanonicalSeed + 1} {
		for _, c := range components {
			for day := -prehistoryDays - 1; day <= 30; day++ {
				for sub := uint64(0); sub < 3; sub++ {
					s := newStream(seed, c, day, sub)
					out := [2]uint64{s.Uint64(), s.Uint64()}
					p := pos{seed, c, day, sub}
					if q, dup := seen[out]; dup {
						t.Fatalf("streams %+v and %+v start with the same outputs %x", q, p, out)
					}
					seen[out] = p
					// Neighbour in day: count differing bits of the first output.
					nb := newStream(seed, c, day+1, sub)
					flips += bits.OnesCount64(out[0] ^ nb.Uint64())
					pairs++
				}
			}
		}
	}
	// 64 bits per pair, expected 32 flips; over ~5 000 pairs the mean's standard error is
	// 4/sqrt(5000) ≈ 0.06 bits, so ±1 bit is a generous bound that still catches a weak mixer.
	mean := float64(flips) / float64(pairs)
	t.Logf("%d streams distinct; neighbouring days differ in %.2f of 64 bits on average", len(seen), mean)
	if mean < 31 || mean > 33 {
		t.Errorf("neighbouring (component, day) streams differ in %.2f bits on average, want 32 ± 1", mean)
	}
	// The same position always gives the same stream.
	a, b := newStream(CanonicalSeed, streamTraffic, 4, 0), newStream(CanonicalSeed, streamTraffic, 4, 0)
	for i := range 8 {
		if x, y := a.Uint64(), b.Uint64(); x != y {
			t.Fatalf("output %d of the same stream: %x and %x", i, x, y)
		}
	}
}

// The integer-randomness primitives of world.md §6.4 and §3.1.
func TestPickAndCalendarPrimitives(t *testing.T) {
	tb := newTable(2, 3, 1) // bounds 2, 5, 6
	for r, want := range []int{0, 0, 1, 1, 1, 2} {
		if got := tb.Index(uint32(r)); got != want {
			t.Errorf("pick(2,3,1) with draw %d = %d, want %d", r, got, want)
		}
	}
	// More than 16 entries take the binary-search path: it must agree with the definition.
	ws := make([]int, 40)
	for i := range ws {
		ws[i] = i % 3 // zero weights included: they are never picked
	}
	big := newTable(ws...)
	for r := range big.Total() {
		want, sum := -1, 0
		for i, w := range ws {
			sum += w
			if sum > r {
				want = i
				break
			}
		}
		if got := big.Index(uint32(r)); got != want {
			t.Errorf("40-entry pick with draw %d = %d, want %d", r, got, want)
		}
	}
	s := newStream(CanonicalSeed, streamTraffic, 0, 9)
	for range 10000 {
		if v := s.Range(-5, 6); v < -5 || v >= 6 {
			t.Fatalf("Range(-5, 6) = %d", v)
		}
		if v := s.Pick(&returnDelayTable); v < 0 || v >= 90 {
			t.Fatalf("Pick(return delay) = %d", v)
		}
	}
	for _, c := range []struct{ a, n, want int }{{-1, 7, 6}, {-7, 7, 0}, {-8, 7, 6}, {13, 7, 6}} {
		if got := floorMod(c.a, c.n); got != c.want {
			t.Errorf("floorMod(%d, %d) = %d, want %d", c.a, c.n, got, c.want)
		}
	}
	if Weekday(0) != 0 || Weekday(-1) != 6 || Weekday(5) != 5 || !isWeekend(-1) || isWeekend(-3) {
		t.Errorf("Weekday(0, -1, 5) = %d, %d, %d; want 0 (Monday), 6, 5", Weekday(0), Weekday(-1), Weekday(5))
	}
	if got := DayDate(0).String(); got != "2026-06-01" {
		t.Errorf("DayDate(0) = %s, want 2026-06-01", got)
	}
	if got := schema.DateTime(dayStartUTC(0)).String(); got != "2026-05-31T20:00:00Z" {
		t.Errorf("day 0 starts at %s, want 2026-05-31T20:00:00Z", got)
	}
}
