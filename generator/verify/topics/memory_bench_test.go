package topics

import (
	"context"
	"runtime"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// BenchmarkExpectMemory reports the bytes an expectation and a checker of it hold per planned
// message, live after a collection (the world's model of the day is garbage by then): what
// verify --brokers keeps while it reads a topic back, five million messages at --scale 100.
// Day 1 at scale 1 with 1 % of every garbage class and 1 % redeliveries, one day and one
// snapshot; B/msg is the expectation's bytes, held-B/msg with a checker of it.
func BenchmarkExpectMemory(b *testing.B) {
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		b.Fatal(err)
	}
	g := world.Garbage{Rate: 0.01, Redeliver: 0.01, Mix: map[string]int{world.GarbageNotAnObject: 1, world.GarbageKeysetMismatch: 1,
		world.GarbageKeyUnparsed: 1, world.GarbageAcceptedBad: 1, world.GarbageVanishing: 1, world.GarbageFieldInvalid: 1}}
	r := world.Range{From: 1, Days: 1, Garbage: g}
	var expectB, heldB, msgs float64
	for b.Loop() {
		before := liveHeap()
		e, err := Expect(context.Background(), w, r, Options{})
		if err != nil {
			b.Fatal(err)
		}
		built := liveHeap()
		c := e.NewChecker()
		checked := liveHeap()
		h, o := e.Messages()
		msgs = float64(h + o)
		expectB, heldB = float64(built-before), float64(checked-before)
		runtime.KeepAlive(c)
		runtime.KeepAlive(e)
	}
	b.ReportMetric(expectB/msgs, "B/msg")
	b.ReportMetric(heldB/msgs, "held-B/msg")
	b.ReportMetric(msgs, "msgs")
}

// liveHeap is the bytes of live heap objects after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
