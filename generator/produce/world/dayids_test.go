package world

import (
	"context"
	"strconv"
	"testing"
)

// TestDayWatchIDs: the model's WatchID and ClientID of every clean event are the rendered
// message's, in the order Play emits them.
func TestDayWatchIDs(t *testing.T) {
	w := freshWorld(t, Params{})
	days := map[*Day]bool{}
	n, want := 0, 0
	err := w.Play(context.Background(), 0, 2, PlayOptions{}, func(b *Batch) error {
		day := b.Day
		if !days[day] {
			days[day] = true
			want += day.Len()
		}
		for k := range b.Msgs {
			if got, want := day.WatchID(b.From+k), b.WatchID(k); got != want {
				t.Fatalf("day %d event %d: Day.WatchID %d, the batch's %d", day.N, b.From+k, got, want)
			}
			if got, want := strconv.FormatUint(day.ClientID(b.From+k), 10), string(b.Key(k)); got != want {
				t.Fatalf("day %d event %d: Day.ClientID %s, the key %s", day.N, b.From+k, got, want)
			}
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(days) != 2 || n != want || n == 0 {
		t.Errorf("%d events compared over %d days, want %d", n, len(days), want)
	}
}
