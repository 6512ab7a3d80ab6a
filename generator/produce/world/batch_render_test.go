package world

import (
	"bytes"
	"strconv"
	"testing"
)

// A batch copies a visit's bytes from its earlier events (visitCache): every message of every
// batch is still the event's own bytes, AppendEvent's, under its own ClientID, for the whole
// day and for a segment's share, in recycled batches (whose cache holds another batch's
// offsets until reset).
func TestBatchesAreTheEventsBytes(t *testing.T) {
	w := canonical(t)
	day := w.Day(1)
	check := func(name string, sh *segShare) {
		var want []byte
		n := 0
		for lo := 0; lo < day.Len(); lo += BatchEvents {
			b := day.renderShare(sh, lo, min(lo+BatchEvents, day.Len()))
			j := 0
			for i := lo; i < min(lo+BatchEvents, day.Len()); i++ {
				if !sh.owns(i) {
					continue
				}
				want = day.AppendEvent(want[:0], i)
				if got := b.Value(j); !bytes.Equal(got, want) {
					t.Fatalf("%s: event %d:\n got %s\nwant %s", name, i, got, want)
				}
				if got, want := string(b.Key(j)), strconv.FormatUint(day.ClientID(i), 10); got != want {
					t.Fatalf("%s: event %d: key %s, want %s", name, i, got, want)
				}
				j++
			}
			if j != len(b.Msgs) {
				t.Fatalf("%s: batch at %d holds %d messages, want %d", name, lo, len(b.Msgs), j)
			}
			n += j
			b.Release()
		}
		if n == 0 {
			t.Fatalf("%s: no message", name)
		}
	}
	check("whole day", nil)
	check("segment 1/3", day.shareOf(Segment{I: 1, N: 3}))
}
