package topics

import (
	"context"
	"runtime"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/internal/testenv"
)

// BenchmarkExpectMemory reports the bytes an expectation and a checker of it hold per planned
// message (heldBytes): what verify --brokers keeps while it reads a topic back, five million
// messages at --scale 100. B/msg is the expectation's bytes, held-B/msg with a checker of it.
//
//   - garbage: day 1 at scale 1 with 1 % of every garbage class and 1 % redeliveries, one day
//     and one snapshot (55 184 messages);
//   - scale100: day 0 at scale 100, clean (5 180 936 hits, no snapshot): a minute and about
//     1 GB; not with -short;
//   - scale100window: the first of the four windows verify checks that day in (segment 0/4,
//     1 297 506 hits); not with -short.
func BenchmarkExpectMemory(b *testing.B) {
	b.Run("garbage", func(b *testing.B) { benchExpectMemory(b, 1, world.Range{From: 1, Days: 1, Garbage: everyClass}) })
	b.Run("scale100", func(b *testing.B) {
		if testing.Short() {
			b.Skip("a minute and about 1 GB")
		}
		benchExpectMemory(b, 100, world.Range{From: 0, Days: 1})
	})
	b.Run("scale100window", func(b *testing.B) {
		if testing.Short() {
			b.Skip("half a minute")
		}
		// The first of the 4 windows verify --brokers checks that day in (PlanWindows).
		benchExpectMemory(b, 100, world.Range{From: 0, Days: 1, Segment: world.Segment{I: 0, N: 4}})
	})
}

// everyClass is 1 % of every garbage class and 1 % redeliveries.
var everyClass = world.Garbage{Rate: 0.01, Redeliver: 0.01, Mix: map[string]int{world.GarbageNotAnObject: 1, world.GarbageKeysetMismatch: 1,
	world.GarbageKeyUnparsed: 1, world.GarbageAcceptedBad: 1, world.GarbageVanishing: 1, world.GarbageFieldInvalid: 1}}

func benchExpectMemory(b *testing.B, scale float64, r world.Range) {
	w, err := world.NewWorld(world.Params{Scale: scale})
	if err != nil {
		b.Fatal(err)
	}
	var expectB, heldB, msgs int64
	for b.Loop() {
		expectB, heldB, msgs = heldBytes(b, w, r)
	}
	b.ReportMetric(float64(expectB)/float64(msgs), "B/msg")
	b.ReportMetric(float64(heldB)/float64(msgs), "held-B/msg")
	b.ReportMetric(float64(msgs), "msgs")
}

// heldBytes builds the expectation of r and a checker of it, and returns the live heap bytes
// the expectation holds, the two hold, and the messages planned. Each is measured by dropping
// it: the live heap with it less the live heap without it, after full collections, so what
// the world keeps of its days between expectations is in both.
func heldBytes(tb testing.TB, w *world.World, r world.Range) (expectB, heldB, msgs int64) {
	e, err := Expect(context.Background(), w, r, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	h, o := e.Messages()
	c := e.NewChecker()
	both := testenv.LiveHeap()
	runtime.KeepAlive(c)
	c = nil
	alone := testenv.LiveHeap()
	runtime.KeepAlive(e)
	e = nil
	none := testenv.LiveHeap()
	return alone - none, both - none, int64(h + o)
}

// watchedReaders names the tests that run the check's concurrent paths (the expectation's
// digest workers, the progress lines told while reading) under the race detector; tests that
// only count bytes or classes leave -race to them.
const watchedReaders = "TestVerify, TestCheckRun, TestGarbageHeavy, TestExpectationAgreesWithInventory, TestProgressWhileReading, TestWindowsReadWhatTheFirstRead and TestVerifyInWindows"
