package world

import (
	"slices"
	"testing"
)

// TestExtraSlotsIsStableSort: the slots the extras are made into are the order a stable sort
// by After gives the malformed extras followed by the re-sends (what the day's extras were
// sorted with before), positions in a day or not (the counting sort and its fallback), and
// sortExtras sorts so.
func TestExtraSlotsIsStableSort(t *testing.T) {
	s := newStream(7, streamDefects, 0, 9)
	for _, tc := range []struct {
		name   string
		na, nb int
		after  func() int
	}{
		{"empty", 0, 0, func() int { return 0 }},
		{"one", 1, 0, func() int { return 3 }},
		{"day positions", 500, 300, func() int { return s.Int(400) }},
		{"ties", 200, 200, func() int { return s.Int(3) }},
		{"sorted", 100, 0, nil},
		{"far positions", 50, 50, func() int { return s.Int(1 << 40) }},
		{"negative", 20, 20, func() int { return s.Int(100) - 50 }},
	} {
		a, b := make([]Extra, tc.na), make([]Extra, tc.nb)
		for i := range a {
			if tc.after == nil {
				a[i].After = i
			} else {
				a[i].After = tc.after()
			}
			a[i].Source = i
		}
		for i := range b {
			b[i].After, b[i].Source = tc.after(), tc.na+i
		}
		want := slices.Concat(a, b)
		slices.SortStableFunc(want, func(x, y Extra) int { return x.After - y.After })
		got := make([]Extra, len(want))
		for i, slot := range extraSlots(a, b) {
			got[slot] = slices.Concat(a, b)[i]
		}
		if !slices.EqualFunc(got, want, func(x, y Extra) bool { return x.After == y.After && x.Source == y.Source }) {
			t.Errorf("%s: slots are not the stable sort's order", tc.name)
		}
		x := slices.Concat(a, b)
		sortExtras(x)
		if !slices.EqualFunc(x, want, func(x, y Extra) bool { return x.After == y.After && x.Source == y.Source }) {
			t.Errorf("%s: sortExtras is not the stable sort", tc.name)
		}
	}
}
