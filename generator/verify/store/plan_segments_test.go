package store_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/store"
)

// TestPlanFromSegments: a day too large to plan from one model is planned from its segment
// days, one after the other, keeping none: the verdict and every count are those of the
// day planned whole, with every table (the raw table's digests come from the segments' bytes
// too), and a changed value is explained from the day's model made again on the question.
func TestPlanFromSegments(t *testing.T) {
	w, err := world.NewWorld(world.Params{Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	const from, days = 0, 2
	clean := play(t, w, from, days, world.Garbage{})
	judge := func(f *fakeStore, segments bool) *store.Result {
		t.Helper()
		if segments {
			defer store.SetPlanScale(0.05 / 4)() // scale 0.05: four segment days
		}
		res, err := store.Verify(context.Background(), w, store.Range{From: from, Days: days}, f, store.Options{Tables: store.StandTables()})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	whole, parts := judge(clean.clone(), false), judge(clean.clone(), true)
	if !whole.OK || !parts.OK {
		t.Fatalf("an exact store: OK %v planned whole, %v from segments\n%s", whole.OK, parts.OK, table(t, parts))
	}
	if a, b := table(t, whole), table(t, parts); a != b {
		t.Errorf("planned whole:\n%s\nfrom segments:\n%s", a, b)
	}
	for i, d := range parts.Events.Dates {
		if w := whole.Events.Dates[i]; d.Planned != w.Planned || d.Present != w.Present || d.Planned == 0 {
			t.Errorf("events %s: planned %d present %d from segments, %d and %d whole", d.Date, d.Planned, d.Present, w.Planned, w.Present)
		}
	}
	for i, u := range parts.Raw.Units {
		if w := whole.Raw.Units[i]; u.Planned != w.Planned || u.Present != w.Present || u.Planned == 0 {
			t.Errorf("raw %s: planned %d present %d from segments, %d and %d whole", u.Date, u.Planned, u.Present, w.Planned, w.Present)
		}
	}

	// One value rewritten: the same difference, with the planned value from the model made
	// again.
	changed := clean.clone()
	for i := range changed.events {
		if changed.events[i].date == dateOf(1) && changed.events[i].msg != nil {
			changed.events[i].set = map[string][]byte{"URL": str("https://evil.example/")}
			break
		}
	}
	whole, parts = judge(changed.clone(), false), judge(changed.clone(), true)
	if parts.OK || parts.Events.Differences != 1 || len(parts.Events.Columns) != 1 || len(parts.Events.Columns[0].Examples) == 0 ||
		parts.Events.Columns[0].Examples[0].Planned == "" {
		t.Fatalf("one URL rewritten, planned from segments: OK %v, %+v, columns %+v", parts.OK, parts.Events.Diffs, parts.Events.Columns)
	}
	if a, b := table(t, whole), table(t, parts); a != b {
		t.Errorf("one URL rewritten, planned whole:\n%s\nfrom segments:\n%s", a, b)
	}

	// Raw rows wrong (the raw table is planned as the segments' hashes): one of day 1 lost,
	// one of day 0 stored twice, and one changed by a byte, which is then unplanned and its
	// own message missing.
	damaged := clean.clone()
	lost, twice, edited := -1, -1, -1
	for i, r := range damaged.raw {
		switch {
		case r.day == 1 && lost < 0:
			lost = i
		case r.day == 0 && twice < 0:
			twice = i
		case r.day == 0 && edited < 0:
			edited = i
		}
	}
	b := bytes.Clone(damaged.raw[edited].raw)
	b[len(b)-2] ^= 1
	damaged.raw[edited].raw = b
	damaged.raw = append(damaged.raw, damaged.raw[twice])
	damaged.raw = append(damaged.raw[:lost], damaged.raw[lost+1:]...)
	whole, parts = judge(damaged.clone(), false), judge(damaged.clone(), true)
	if parts.OK || parts.Raw.Total.Missing != 2 || parts.Raw.Unplanned != 1 || parts.Raw.Total.Copies != 1 {
		t.Fatalf("raw rows lost, copied and changed, planned from segments: OK %v, missing %d, unplanned %d, copies %d; want not OK, 2, 1, 1",
			parts.OK, parts.Raw.Total.Missing, parts.Raw.Unplanned, parts.Raw.Total.Copies)
	}
	if a, b := table(t, whole), table(t, parts); a != b {
		t.Errorf("raw rows damaged, planned whole:\n%s\nfrom segments:\n%s", a, b)
	}
}
