package world

import (
	"context"
	"testing"
)

// TestCohortCacheReleasesPassedDays: once day d is built, the cached cohorts hold no cookie
// lists of days before the last they served (what keeps memory to the cohorts' future activity), and a day asked
// for after that is computed again, byte for byte the day a fresh world builds.
func TestCohortCacheReleasesPassedDays(t *testing.T) {
	w := freshWorld(t, watchedParams())
	want3 := daySHA(freshWorld(t, watchedParams()).Day(3))
	for d := range 5 {
		w.Day(d)
	}
	held := 0
	w.cohorts.mu.Lock()
	for cd, e := range w.cohorts.entries {
		<-e.ready
		for k, list := range e.days.lists {
			// A cohort keeps the list of the last day it served: day 4, or its own last day.
			if cd+k < min(4, cd+returnTailDays) && list != nil {
				t.Errorf("cohort %d still holds its list of day %d after day 4 was built", cd, cd+k)
			}
			held += len(list)
		}
	}
	w.cohorts.mu.Unlock()
	// Day 4's audience plus what returns later, far below the cookies of 95 whole cohorts.
	whole := 0
	for cd := 4 - prehistoryDays; cd <= 4; cd++ {
		whole += len(w.cohortOf(cd).cookies)
	}
	if held == 0 || held > whole/3 {
		t.Errorf("the cache holds %d cookie entries; want some, and at most a third of the %d cookies of the cohorts", held, whole)
	}
	if got := daySHA(w.Day(3)); got != want3 {
		t.Errorf("day 3 built again after day 4: %s, want %s", got, want3)
	}
	// The second pass keeps what it computed again: the cohorts now start at day 3.
	w.cohorts.mu.Lock()
	for cd := 3 - prehistoryDays; cd <= 3; cd++ {
		if e := w.cohorts.entries[cd]; e == nil || e.days.floor != 3 {
			t.Errorf("cohort %d after day 3 was asked again: %+v, want it cached from day 3", cd, e)
		}
	}
	w.cohorts.mu.Unlock()
	if got := daySHA(w.Day(3)); got != want3 {
		t.Errorf("day 3 built a third time: %s, want %s", got, want3)
	}
}

// TestUnitsStoppedEarlyRenderNoMore: a consumer that stops after the first batch of a day (as
// --limit does) ends the units without the rest of the day being rendered.
func TestUnitsStoppedEarlyRenderNoMore(t *testing.T) {
	w := freshWorld(t, Params{})
	before := batchesRendered.Load()
	events := 0
	for u, err := range w.Units(context.Background(), Range{From: 0, Days: 1}, UnitOptions{Parts: Hits, Workers: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		events = u.Len
		for range u.Batches() {
			break
		}
		break
	}
	// The first batch, and at most the window rendered ahead (2 × workers) besides.
	if n := batchesRendered.Load() - before; n > 3 {
		t.Errorf("%d batches rendered for one taken; the day has %d", n, (events+BatchEvents-1)/BatchEvents)
	}
}

// TestKeepUntil: a world told that no day after d will be asked keeps no cohort list of a
// later day, so it holds a small part of what a world that plays on keeps; a later day asked
// all the same is made anew, byte for byte the day a fresh world builds, and so is d again.
func TestKeepUntil(t *testing.T) {
	want2, want4 := daySHA(freshWorld(t, watchedParams()).Day(2)), daySHA(freshWorld(t, watchedParams()).Day(4))
	held := func(w *World) (entries int) {
		w.cohorts.mu.Lock()
		defer w.cohorts.mu.Unlock()
		for cd, e := range w.cohorts.entries {
			<-e.ready
			for k, list := range e.days.lists {
				if cd+k > e.days.ceil && list != nil {
					t.Errorf("cohort %d holds its list of day %d; the world keeps days up to %d", cd, cd+k, e.days.ceil)
				}
				entries += len(list)
			}
		}
		return entries
	}
	all := freshWorld(t, watchedParams())
	all.Day(2)
	w := freshWorld(t, watchedParams())
	w.KeepUntil(2)
	if got := daySHA(w.Day(2)); got != want2 {
		t.Errorf("day 2 kept until day 2: %s, want %s", got, want2)
	}
	kept, whole := held(w), held(all)
	if kept == 0 || kept > whole/2 {
		t.Errorf("kept until day 2, the cohorts hold %d cookie entries after day 2, a world that plays on %d; want some, at most half", kept, whole)
	}
	t.Logf("cookie entries held after day 2: %d kept until it, %d otherwise", kept, whole)
	if got := daySHA(w.Day(4)); got != want4 {
		t.Errorf("day 4 past the last day kept: %s, want %s", got, want4)
	}
	if got := daySHA(w.Day(2)); got != want2 {
		t.Errorf("day 2 again after day 4: %s, want %s", got, want2)
	}
}
