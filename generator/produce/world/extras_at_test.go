package world

import "testing"

// TestExtrasAtAnyOrder checks that ExtrasAt, which resumes where its last answer ended,
// answers positions asked in any order, again, or beyond the last.
func TestExtrasAtAnyOrder(t *testing.T) {
	u := &Unit{Len: 6, Extras: []Extra{{After: 0}, {After: 0}, {After: 2}, {After: 3}, {After: 3}, {After: 6}}}
	for _, i := range []int{0, 0, 1, 2, 3, 6, 3, 0, 5, 4, 2, 6, 6, 1, 7, -1, 3} {
		want := 0
		for _, x := range u.Extras {
			if x.After == i {
				want++
			}
		}
		got := u.ExtrasAt(i)
		if len(got) != want {
			t.Fatalf("ExtrasAt(%d) = %d extras, want %d", i, len(got), want)
		}
		for _, x := range got {
			if x.After != i {
				t.Fatalf("ExtrasAt(%d) holds an extra placed at %d", i, x.After)
			}
		}
	}
}
