package world

import (
	"context"
	"errors"
	"testing"
)

// TestModelProgress: a day's model tells its progress, phase by phase, in order, each phase
// ending at its total (the visitors' total is the day's audience); the day it builds is the
// day built without listening, byte for byte.
func TestModelProgress(t *testing.T) {
	w, err := NewWorld(Params{Scale: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	var heard []ModelProgress
	ctx := WithModelProgress(context.Background(), func(p ModelProgress) { heard = append(heard, p) })
	day, err := w.DayContext(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(heard) < 3 {
		t.Fatalf("heard %d progress reports, want both phases", len(heard))
	}
	last := map[string]ModelProgress{}
	phase := ModelCohorts
	for _, p := range heard {
		if p.Day != 3 || p.Done < 0 || p.Done > p.Total {
			t.Fatalf("progress %+v: want day 3, 0 ≤ done ≤ total", p)
		}
		if p.Phase != phase {
			if phase != ModelCohorts || p.Phase != ModelVisitors {
				t.Fatalf("phase %s after %s, want cohorts then visitors", p.Phase, phase)
			}
			phase = p.Phase
		}
		if prev, ok := last[p.Phase]; ok && p.Done < prev.Done {
			t.Fatalf("%s went back from %d to %d", p.Phase, prev.Done, p.Done)
		}
		last[p.Phase] = p
	}
	if c := last[ModelCohorts]; c.Done != c.Total || c.Total != prehistoryDays+1 {
		t.Errorf("cohorts ended at %d of %d, want all %d", c.Done, c.Total, prehistoryDays+1)
	}
	if v := last[ModelVisitors]; v.Done != v.Total || v.Total != day.Stats.Audience {
		t.Errorf("visitors ended at %d of %d, want the audience %d", v.Done, v.Total, day.Stats.Audience)
	}
	fresh, _ := NewWorld(Params{Scale: 0.2})
	if got, want := daySHA(day), daySHA(fresh.Day(3)); got != want {
		t.Errorf("day 3 built with a listener: sha256 %s, without %s", got, want)
	}
}

// TestSnapshotDaysHearContext: the days a snapshot needs are built within the context of
// Units (a snapshot of day 7 at scale 100 built seven days, 20 s deaf to a signal): ending it
// while one is modelled ends the units with its error.
func TestSnapshotDaysHearContext(t *testing.T) {
	w, err := NewWorld(Params{Scale: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	modelled := map[int]bool{}
	ctx = WithModelProgress(ctx, func(p ModelProgress) {
		modelled[p.Day] = true
		if p.Day == 2 {
			cancel() // the snapshot of day 4 is building day 2
		}
	})
	var got error
	for u, err := range w.Units(ctx, Range{From: 5, Days: 1}, UnitOptions{Parts: Snapshots}) {
		if err != nil {
			got = err
			break
		}
		t.Errorf("unit of day %d yielded, want the snapshot's days cut short", u.Day)
	}
	if !errors.Is(got, context.Canceled) || !modelled[2] || modelled[3] {
		t.Errorf("Units(snapshot 4) cancelled while modelling day 2 = %v (days modelled %v), want context.Canceled before day 3", got, modelled)
	}
}
