package world

import (
	"context"
	"math"
	"runtime"
	"testing"
)

// reportEvents adds events/s and allocs/event to a benchmark's report.
func reportEvents(b *testing.B, events int, mallocs uint64) {
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	if events > 0 {
		b.ReportMetric(float64(mallocs)/float64(events), "allocs/event")
	}
}

// BenchmarkDay generates and renders one model day (every event to canonical bytes) on one
// core (GOMAXPROCS=1, so the garbage collector shares the core too).
//
//   - cold: a fresh World each time, so the day pulls its 91 cohorts from scratch;
//   - warm: the cohorts are cached (the steady state of a multi-day run).
func BenchmarkDay(b *testing.B) {
	run := func(b *testing.B, next func() *Day) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		b.ReportAllocs()
		var buf []byte
		events := 0
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for b.Loop() {
			day := next()
			for i := range day.Len() {
				buf = day.AppendEvent(buf[:0], i)
			}
			events += day.Len()
		}
		runtime.ReadMemStats(&m1)
		reportEvents(b, events, m1.Mallocs-m0.Mallocs)
	}
	b.Run("cold", func(b *testing.B) {
		run(b, func() *Day {
			w, err := NewWorld(Params{})
			if err != nil {
				b.Fatal(err)
			}
			return w.Day(0)
		})
	})
	b.Run("warm", func(b *testing.B) {
		w, err := NewWorld(Params{})
		if err != nil {
			b.Fatal(err)
		}
		w.Day(0)
		w.Day(1) // cohorts −89 … 1 are now cached
		run(b, func() *Day { return w.Day(1) })
	})
}

// BenchmarkPlay8Days streams the starting world's eight days through Play (generation one day
// ahead, rendering on Workers goroutines). The cohort cache keeps only days still to come, so
// each pass computes the cohorts again, as a run does once. onecore is GOMAXPROCS=1 with one
// worker; workers=1 and workers=2 run at GOMAXPROCS ≥ 2, so workers=2 / onecore is the
// multi-core speed-up (goal ≥ 1.8× on two cores).
func BenchmarkPlay8Days(b *testing.B) {
	w, err := NewWorld(Params{})
	if err != nil {
		b.Fatal(err)
	}
	play := func(b *testing.B, procs, workers int, seg ...Segment) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		opt := PlayOptions{Workers: workers}
		if len(seg) > 0 {
			opt.Segment = seg[0]
		}
		count := func(bt *Batch) error { bt.Release(); return nil }
		if err := w.Play(context.Background(), 0, 8, opt, count); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		events := 0
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		for b.Loop() {
			err := w.Play(context.Background(), 0, 8, opt, func(bt *Batch) error {
				events += len(bt.Msgs)
				bt.Release() // a consumer that is done with the bytes (hashing, a flushed sink)
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		runtime.ReadMemStats(&m1)
		reportEvents(b, events, m1.Mallocs-m0.Mallocs)
	}
	procs := max(2, runtime.NumCPU())
	b.Run("onecore", func(b *testing.B) { play(b, 1, 1) })
	// A segment's share on one core: its ns/op over onecore's is the per-segment CPU ratio
	// (the day model is whole in every segment; only rendering is shared).
	b.Run("onecore/segment=0/4", func(b *testing.B) { play(b, 1, 1, Segment{0, 4}) })
	b.Run("workers=1", func(b *testing.B) { play(b, procs, 1) })
	b.Run("workers=2", func(b *testing.B) { play(b, procs, 2) })
}

// BenchmarkCohorts computes the cohorts day 0 needs (91) as the cache keeps them: the part of
// a day every segment makes whole.
func BenchmarkCohorts(b *testing.B) {
	w := canonical(b)
	for b.Loop() {
		for cd := -prehistoryDays; cd <= 0; cd++ {
			w.daysOf(cd, 0, math.MaxInt)
		}
	}
}
