package world

import (
	"slices"
	"testing"
)

// TestUniqueIDsBelowAvoidsAnyOrder: uniqueIDsBelow draws what the linear scan draws when the
// ids to avoid come unsorted, repeated, and with 0 among them (a day's WatchIDs, in event
// order), and leaves the stream at the same place.
func TestUniqueIDsBelowAvoidsAnyOrder(t *testing.T) {
	avoid := []uint64{999, 3, 0, 7, 500, 3, 1 << 40}
	sorted := slices.Sorted(slices.Values(avoid))
	for _, tc := range []struct {
		n     int
		limit uint64
	}{{0, 10}, {1, 2}, {900, 1000}, {5000, 1 << 20}} {
		a, b := newStream(2, streamDefects, 5, 0), newStream(2, streamDefects, 5, 0)
		got, want := uniqueIDsBelow(a, tc.n, tc.limit, avoid), uniqueIDsBelowScan(b, tc.n, tc.limit, sorted)
		if !slices.Equal(got, want) {
			t.Fatalf("n %d limit %d: ids differ from the linear scan's", tc.n, tc.limit)
		}
		if a.Uint64() != b.Uint64() {
			t.Fatalf("n %d limit %d: the stream advanced differently", tc.n, tc.limit)
		}
	}
	set := newIDSet(3)
	for _, id := range []uint64{0, 5, 0, 5, 1 << 63} {
		_ = set.add(id)
	}
	if set.add(0) || set.add(5) || set.add(1<<63) || !set.add(6) {
		t.Error("idSet forgot an id or holds one never added")
	}
}
