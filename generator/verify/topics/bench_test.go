package topics

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// BenchmarkExpectFill builds the expectation of the fill profile (hits of days 0–7, snapshots
// of days 0–6) with some of every garbage class, as verify and run fill do before reading
// back. It reports the CPU time spent (all goroutines), which is what "verify does half the
// work" is measured by; wall time depends on the cores.
func BenchmarkExpectFill(b *testing.B) {
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		b.Fatal(err)
	}
	g := world.Garbage{Rate: 0.01, Redeliver: 0.01, Mix: map[string]int{world.GarbageNotAnObject: 1, world.GarbageKeysetMismatch: 1,
		world.GarbageKeyUnparsed: 1, world.GarbageAcceptedBad: 1, world.GarbageVanishing: 1, world.GarbageFieldInvalid: 1}}
	b.ReportAllocs()
	cpu0 := cpuTime()
	var msgs int
	for b.Loop() {
		e, err := Expect(context.Background(), w, world.Range{From: 0, Days: 8, Garbage: g}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		h, o := e.Messages()
		msgs = h + o
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(msgs)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
