package topics

import (
	"context"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/internal/testenv"
)

// TestCleanMessagesClassifyAsPlanned: every clean message of the canonical world (the hits of
// days 0 and 1, the snapshots of days 0 and 1, garbage on) is accepted by the intake model with
// the WatchID or order_id the world planned for it. Expect relies on this instead of parsing
// every clean message again at run time.
func TestCleanMessagesClassifyAsPlanned(t *testing.T) {
	testenv.SkipUnderRace(t, watchedReaders)
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		t.Fatal(err)
	}
	g := world.Garbage{Rate: 0.02, Redeliver: 0.01}
	days := 3
	if testing.Short() {
		days = 2 // the hits of days 0 and 1 and the snapshot of day 0
	}
	n := 0
	check := func(seg world.Segment) {
		t.Helper()
		for u, err := range w.Units(context.Background(), world.Range{From: 0, Days: days, Segment: seg, Garbage: g}, world.UnitOptions{}) {
			if err != nil {
				t.Fatal(err)
			}
			for b := range u.Batches() {
				for i := range b.Msgs {
					v, key := b.Value(i), b.Key(i)
					if u.Kind == world.HitsUnit {
						k, ok := intake.HitDedupKey(v)
						if want := b.WatchID(i); !ok || k.WatchID != want {
							t.Fatalf("day %d message %d: intake reads WatchID %d (accepted %v), the world planned %d: %.200s", u.Day, b.From+i, k.WatchID, ok, want, v)
						}
					} else if id, ok := intake.OrderDedupKey(v); !ok || id != string(key) {
						t.Fatalf("snapshot %d row %d: intake reads order_id %q (accepted %v), the key is %q", u.Day, b.From+i, id, ok, key)
					}
					n++
				}
			}
		}
	}
	check(world.Segment{})
	whole := n
	for i := range 3 { // a segment's batches number its own messages: the WatchIDs must follow
		check(world.Segment{I: i, N: 3})
	}
	if n != 2*whole {
		t.Errorf("the 3 segments hold %d clean messages, the whole run %d", n-whole, whole)
	}
	n = whole
	if n < days*50000 {
		t.Errorf("checked %d clean messages, want the ~53 k of each of %d days and their snapshots", n, days)
	}
}
