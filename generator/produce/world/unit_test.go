package world

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
)

// sent is one message as a sender puts it on the wire.
type sent struct {
	unit       string
	key, value string
}

// sameSent fails t at the first message where got (what how sent) differs from want (what
// whom sent), or when their counts differ.
func sameSent(t testing.TB, got, want []sent, how, whom string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s %d messages, %s %d", how, len(got), whom, len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("message %d: %s %s key %q %.80q, %s %s key %q %.80q",
				i, how, got[i].unit, got[i].key, got[i].value, whom, want[i].unit, want[i].key, want[i].value)
		}
	}
}

// sendUnits iterates the units the way a sender does: each clean message preceded by the
// extras placed before it, the unit's trailing extras after its last batch, batches released
// once the unit is through (a sink's flush).
func sendUnits(t testing.TB, w *World, r Range, opt UnitOptions) []sent {
	t.Helper()
	var out []sent
	for u, err := range w.Units(context.Background(), r, opt) {
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s %d", u.Kind, u.Day)
		send := func(key, value []byte) { out = append(out, sent{name, string(key), string(value)}) }
		var held []*Batch
		next := 0
		for b := range u.Batches() {
			if b.From != next {
				t.Fatalf("%s: batch starts at %d, want %d", name, b.From, next)
			}
			next += len(b.Msgs)
			for i := range b.Msgs {
				for _, x := range u.ExtrasAt(b.From + i) {
					send(x.Key, x.Value)
				}
				send(b.Key(i), b.Value(i))
			}
			held = append(held, b)
		}
		for _, x := range u.ExtrasAt(u.Len) {
			send(x.Key, x.Value)
		}
		if next != u.Len {
			t.Fatalf("%s: batches hold %d clean messages, Len says %d", name, next, u.Len)
		}
		for _, b := range held {
			b.Release()
		}
	}
	return out
}

// composed builds the same range the way the verbs did before units existed, independently
// of Units: Play's batches with Day.HitExtras interleaved by position, then each snapshot's
// SnapshotRows with OrderExtras.
func composed(t testing.TB, w *World, from, n int, g Garbage, parts Parts) []sent {
	t.Helper()
	var out []sent
	interleave := func(name string, keys, values [][]byte, extras []Extra) {
		next := 0
		for i := range values {
			for ; next < len(extras) && extras[next].After <= i; next++ {
				out = append(out, sent{name, string(extras[next].Key), string(extras[next].Value)})
			}
			out = append(out, sent{name, string(keys[i]), string(values[i])})
		}
		for ; next < len(extras); next++ {
			out = append(out, sent{name, string(extras[next].Key), string(extras[next].Value)})
		}
	}
	if parts&Hits != 0 {
		var keys, values [][]byte
		err := w.Play(context.Background(), from, n, PlayOptions{}, func(b *Batch) error {
			for i := range b.Msgs {
				keys, values = append(keys, bytes.Clone(b.Key(i))), append(values, bytes.Clone(b.Value(i)))
			}
			if b.Last {
				interleave(fmt.Sprintf("hits %d", b.Day.N), keys, values, b.Day.HitExtras(g))
				keys, values = nil, nil
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if parts&Snapshots != 0 {
		book := NewOrderBook(w)
		for _, d := range SnapshotDays(from, n) {
			rows, keys, err := book.SnapshotRows(d)
			if err != nil {
				t.Fatal(err)
			}
			interleave(fmt.Sprintf("snapshot %d", d), keys, rows, w.OrderExtras(d, rows, keys, g))
		}
	}
	return out
}

// TestUnitsAreWhatTheVerbsSend checks that the unit sequence, iterated as a sender does, is
// message for message what batch and snapshot composed from Play, HitExtras, SnapshotRows and
// OrderExtras: same units in the same order, same keys and bytes, every garbage class and
// redeliveries included, for each choice of parts and any number of workers.
func TestUnitsAreWhatTheVerbsSend(t *testing.T) {
	w := watched(t)
	g := Garbage{Rate: 0.02, Mix: everything, Redeliver: 0.01}
	const from, n = 1, 2 // hits of days 1, 2; snapshots of days 0, 1
	for _, tc := range []struct {
		name  string
		opt   UnitOptions
		parts Parts
	}{
		{"both", UnitOptions{}, Hits | Snapshots},
		{"both/1 worker", UnitOptions{Workers: 1, Parts: Hits | Snapshots}, Hits | Snapshots},
		{"hits", UnitOptions{Parts: Hits}, Hits},
		{"snapshots", UnitOptions{Parts: Snapshots}, Snapshots},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, want := sendUnits(t, w, Range{From: from, Days: n, Garbage: g}, tc.opt), composed(t, w, from, n, g, tc.parts)
			sameSent(t, got, want, "units send", "the verbs")
		})
	}
}

// TestUnitsStop checks that a consumer may stop anywhere (in the middle of a unit's batches
// or between units) and that a done context ends the sequence with its error.
func TestUnitsStop(t *testing.T) {
	w := canonical(t)
	units := 0
	for u, err := range w.Units(context.Background(), Range{From: 0, Days: 3}, UnitOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		for range u.Batches() {
			break // the rest of the unit is released by Units
		}
		if units++; units == 2 {
			break
		}
	}
	if units != 2 {
		t.Fatalf("ranged over %d units, want 2", units)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var last error
	seen := 0
	for u, err := range w.Units(ctx, Range{From: 0, Days: 3}, UnitOptions{}) {
		if err != nil {
			last = err
			continue
		}
		seen++
		if u.Kind == HitsUnit && u.Day == 0 {
			cancel()
		}
		for b := range u.Batches() {
			b.Release()
		}
	}
	if !errors.Is(last, context.Canceled) {
		t.Fatalf("after cancel: last error %v, want context.Canceled", last)
	}
	if seen > 2 {
		t.Errorf("after cancel on day 0: %d units, want at most 2 (one may be rendered ahead)", seen)
	}

	for _, r := range []Range{
		{From: 0, Days: 1, Garbage: Garbage{Rate: -1}},
		{From: 0, Days: 1, Segment: Segment{I: 2, N: 2}},
		{From: -1, Days: 1},
		{From: 0, Days: 0},
	} {
		for _, err := range w.Units(context.Background(), r, UnitOptions{}) {
			if err == nil {
				t.Fatalf("invalid %+v: a unit, want an error", r)
			}
		}
	}
}

// TestExtrasAt checks that ExtrasAt partitions a unit's extras by position.
func TestExtrasAt(t *testing.T) {
	u := &Unit{Len: 3, Extras: []Extra{{After: 0}, {After: 0}, {After: 2}, {After: 3}}}
	for i, want := range []int{2, 0, 1, 1} {
		got := u.ExtrasAt(i)
		if len(got) != want {
			t.Errorf("ExtrasAt(%d) = %d extras, want %d", i, len(got), want)
		}
		for _, x := range got {
			if x.After != i {
				t.Errorf("ExtrasAt(%d) holds an extra placed at %d", i, x.After)
			}
		}
	}
}
