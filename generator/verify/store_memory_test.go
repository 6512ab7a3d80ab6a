package verify

import (
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/store"
)

// TestStoreSegmentMemory: a day planned from its segment days is verified under a cap that
// leaves a ×100 day room below 512 MiB resident (issue 39: the heap's cap plus what the
// process holds beside it, 20–30 MB) and stays at least 1.4 times what was live at its peak
// there (294 MB: under a cap closer than that the collector runs without pause); days planned
// from one model keep storeMemory.
func TestStoreSegmentMemory(t *testing.T) {
	const liveAt100 = 294 << 20
	if got := storeSegmentMemory(100); got > 470<<20 || float64(got) < 1.4*liveAt100 {
		t.Errorf("storeSegmentMemory(100) = %d MiB; want at most 470 MiB and at least 1.4 × %d MiB", got>>20, liveAt100>>20)
	}
	for _, tc := range []struct {
		scale    float64
		garbage  world.Garbage
		segments bool
	}{{100, world.Garbage{}, true}, {26, world.Garbage{}, true}, {25, world.Garbage{}, false}, {100, world.Garbage{Rate: 0.01}, false}} {
		w, err := world.NewWorld(world.Params{Scale: tc.scale})
		if err != nil {
			t.Fatal(err)
		}
		if got := store.PlansFromSegments(w, world.Range{From: 0, Days: 1, Garbage: tc.garbage}); got != tc.segments {
			t.Errorf("scale %v, garbage %+v: PlansFromSegments %v, want %v", tc.scale, tc.garbage, got, tc.segments)
		}
	}
}
