package world

import (
	"context"
	"fmt"
	"testing"
)

// TestReuseExtrasSendsTheSameBytes checks that units whose extras are made in memory used
// again send message for message what units with extras in fresh memory send: every garbage
// class, re-sends, a segment's share.
func TestReuseExtrasSendsTheSameBytes(t *testing.T) {
	w := watched(t)
	g := Garbage{Rate: 0.3, Mix: everything, Redeliver: 0.2}
	for _, tc := range []struct {
		name string
		r    Range
	}{
		{"whole", Range{From: 0, Days: 2, Garbage: g}},
		{"segment", Range{From: 1, Days: 1, Garbage: g, Segment: Segment{I: 1, N: 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := UnitOptions{Parts: Hits, Workers: 2}
			want := sendUnits(t, w, tc.r, opt)
			opt.ReuseExtras = true
			got := sendUnits(t, w, tc.r, opt)
			sameSent(t, got, want, "extras in memory used again send", "in fresh memory")
		})
	}
}

// TestReuseExtrasHoldUntilRelease sends as a sink that keeps the bytes it was given until it
// acknowledges them does: the values of a unit's extras must not change before the sender
// releases them, though the units after it are made (rendered ahead) meanwhile, and once
// released, their memory is used again by a later unit.
func TestReuseExtrasHoldUntilRelease(t *testing.T) {
	w := watched(t)
	r := Range{From: 1, Days: 3, Garbage: Garbage{Rate: 0.5, Mix: everything, Redeliver: 0.3}}
	want := sendUnits(t, w, r, UnitOptions{Parts: Hits})
	var got []sent
	released := map[*byte]bool{}
	reused := 0
	for u, err := range w.Units(context.Background(), r, UnitOptions{Parts: Hits, ReuseExtras: true}) {
		if err != nil {
			t.Fatal(err)
		}
		if len(u.chunks) == 0 {
			t.Fatalf("%s %d: no extras in memory used again", u.Kind, u.Day)
		}
		for _, c := range u.chunks {
			if released[&c[:1][0]] {
				reused++
			}
		}
		name := fmt.Sprintf("%s %d", u.Kind, u.Day)
		type given struct {
			value []byte // as the sink holds it
			copy  string
		}
		var held []given
		send := func(key, value []byte) { got = append(got, sent{name, string(key), string(value)}) }
		for b := range u.Batches() {
			for i := range b.Msgs {
				for _, x := range u.ExtrasAt(b.From + i) {
					send(x.Key, x.Value)
					held = append(held, given{x.Value, string(x.Value)})
				}
				send(b.Key(i), b.Value(i))
			}
		}
		for _, x := range u.ExtrasAt(u.Len) {
			send(x.Key, x.Value)
			held = append(held, given{x.Value, string(x.Value)})
		}
		for _, h := range held {
			if string(h.value) != h.copy {
				t.Fatalf("%s: a value changed before its release: %.80q, sent %.80q", name, h.value, h.copy)
			}
		}
		for _, c := range u.chunks {
			released[&c[:1][0]] = true
		}
		u.ReleaseExtras()
	}
	if reused == 0 {
		t.Error("no memory of released extras was used again")
	}
	sameSent(t, got, want, "held until released, sent", "sent at once")
}
