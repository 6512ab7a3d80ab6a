package topics

import (
	"context"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/internal/testenv"
)

// TestWindowMemory: a range checked in windows holds one window's plan at a time. Day 1 at
// scale 4 (about 210 000 hits), clean, in 4 windows: what is live while each window reads
// (after a full collection) may exceed what was live while the first read by at most half
// a window's plan, and the last window's by at most that too. A window's result that kept
// its plan (Result.exp) held every earlier window's, 3.4 MB more per window here and 80 MB
// at --scale 100. Bytes of live heap, never time.
func TestWindowMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("plans a scale-4 day five times")
	}
	w, err := world.NewWorld(world.Params{Scale: 4})
	if err != nil {
		t.Fatal(err)
	}
	r := world.Range{From: 1, Days: 1}
	const n = 4
	plan, _, msgs := heldBytes(t, w, world.Range{From: 1, Days: 1, Segment: world.Segment{I: 0, N: n}})
	live := make([]int64, n)
	_, err = checkWindows(context.Background(), w, r, Options{}, n, false, nil, nil, func(k int, _ *Expectation, _ *Checker) error {
		live[k] = testenv.LiveHeap()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a window plans %d messages in %d bytes; live while each window reads: %v", msgs, plan, live)
	for k := 1; k < n; k++ {
		if live[k] > live[0]+plan/2 {
			t.Errorf("window %d holds %d bytes, the first %d: more than half a window's plan (%d) more", k+1, live[k], live[0], plan)
		}
	}
}
