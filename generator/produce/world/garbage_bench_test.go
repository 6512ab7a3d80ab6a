package world

import (
	"context"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's CPU time so far (user and system): what a benchmark on one core
// (GOMAXPROCS=1) spends, collection included, whatever else the machine runs.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkHitGarbage makes day 1's malformed hits of one class at a time (--garbage 0.5, the
// class alone in the mix: about 27 k messages), and its re-sends (--redeliver 0.5), on one
// core, from a day already built, as a sender of the day's unit makes them: into memory used
// again from day to day ([UnitOptions.ReuseExtras]), handed back once the day is sent. Each
// round also builds and renders day 1 again (cohorts cached), into memory used again, for the
// cost of a clean event. Both are timed in CPU time, in the same rounds, so their ratio holds
// on a busy machine:
//
//   - cpu-ns/msg: one malformed message (or re-send);
//   - cpu-ns/clean: one clean event (the day's model and its bytes, per event);
//   - x_clean: their ratio, a malformed message in clean events (goal ≤ 3).
func BenchmarkHitGarbage(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	w := canonical(b)
	w.Day(0)
	day := w.Day(1) // cohorts −89 … 1 are now cached
	var buf []byte
	run := func(b *testing.B, g Garbage) {
		b.ReportAllocs()
		var msgs, events int
		var garbage, clean time.Duration
		for b.Loop() {
			t0 := cpuTime(b)
			var chunks [][]byte
			x, _ := day.hitExtras(context.Background(), g, &chunks)
			msgs += len(x)
			releaseChunks(chunks) // the day is sent
			t1 := cpuTime(b)
			d := w.Day(1)
			for i := range d.Len() {
				buf = d.AppendEvent(buf[:0], i)
			}
			events += d.Len()
			t2 := cpuTime(b)
			garbage, clean = garbage+t1-t0, clean+t2-t1
		}
		perMsg := float64(garbage.Nanoseconds()) / float64(msgs)
		perClean := float64(clean.Nanoseconds()) / float64(events)
		b.ReportMetric(float64(msgs)/garbage.Seconds(), "events/s")
		b.ReportMetric(perMsg, "cpu-ns/msg")
		b.ReportMetric(perClean, "cpu-ns/clean")
		b.ReportMetric(perMsg/perClean, "x_clean")
	}
	for _, class := range HitGarbageClasses {
		b.Run("class="+class, func(b *testing.B) { run(b, Garbage{Rate: 0.5, Mix: Mix{class: 1}}) })
	}
	b.Run("redelivered", func(b *testing.B) { run(b, Garbage{Redeliver: 0.5}) })
}
