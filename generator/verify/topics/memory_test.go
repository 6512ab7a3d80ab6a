package topics

import (
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/internal/testenv"
)

// TestExpectMemoryPerMessage bounds what an expectation keeps per planned message, live after
// a collection (heldBytes), on day 1 at scale 10 with every garbage class (half a million
// messages, so that fixed costs weigh little): about 64 bytes, where slots, key strings and
// maps of digests took 158 (BenchmarkExpectMemory at scale 100: 61 against 143). At
// --scale 100 a day plans five million messages: 90 bytes a message are 466 MB.
func TestExpectMemoryPerMessage(t *testing.T) {
	testenv.SkipUnderRace(t, watchedReaders)
	w, err := world.NewWorld(world.Params{Scale: 10})
	if err != nil {
		t.Fatal(err)
	}
	held, _, msgs := heldBytes(t, w, world.Range{From: 1, Days: 1, Garbage: everyClass})
	if perMsg := float64(held) / float64(msgs); perMsg > 90 {
		t.Errorf("the expectation of %d messages holds %d bytes, %.1f a message; want at most 90", msgs, held, perMsg)
	} else {
		t.Logf("%d messages, %d bytes, %.1f a message", msgs, held, perMsg)
	}
}
