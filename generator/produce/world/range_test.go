package world

import (
	"errors"
	"strings"
	"testing"
)

// TestRangeValidate: a range is refused by the first field that plans nothing, as a
// *RangeError naming the field, with the text of the field's own check (which names the
// value); a valid range, segmented and with garbage, passes.
func TestRangeValidate(t *testing.T) {
	for _, tc := range []struct {
		r     Range
		field string // "" for valid
		text  string
	}{
		{Range{From: 0, Days: 1}, "", ""},
		{Range{From: 3, Days: 5, Segment: Segment{I: 1, N: 4}, Garbage: Garbage{Rate: 0.5, Redeliver: 0.1, Mix: Mix{GarbageVanishing: 1}}}, "", ""},
		{Range{From: MaxDay, Days: 1}, "", ""},
		{Range{From: -1, Days: 1}, "from", "day -1: model days start at 0"},
		{Range{From: MaxDay + 1, Days: 1}, "from", "the last model day"},
		{Range{From: 0, Days: 0}, "days", "0 days: want at least 1"},
		{Range{From: MaxDay, Days: 2}, "days", "the last model day"},
		{Range{From: 0, Days: 1, Segment: Segment{I: 2, N: 2}}, "segment", "segment 2/2"},
		{Range{From: 0, Days: 1, Garbage: Garbage{Rate: -1}}, "garbage", "garbage.rate -1"},
		{Range{From: 0, Days: 1, Garbage: Garbage{Rate: 1, Mix: Mix{"bogus": 1}}}, "garbage", `garbage class "bogus"`},
		// The first refusal wins: days before segment before garbage.
		{Range{From: 0, Days: 0, Segment: Segment{I: 5, N: 2}, Garbage: Garbage{Rate: -1}}, "days", "0 days"},
		{Range{From: 0, Days: 1, Segment: Segment{I: 5, N: 2}, Garbage: Garbage{Rate: -1}}, "segment", "segment 5/2"},
	} {
		err := tc.r.Validate()
		var re *RangeError
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%+v: %v, want valid", tc.r, err)
		case tc.field == "":
		case !errors.As(err, &re) || re.Field != tc.field || !strings.Contains(err.Error(), tc.text) || re.Unwrap() == nil:
			t.Errorf("%+v: %v (%#v), want a *RangeError on %s saying %q", tc.r, err, re, tc.field, tc.text)
		}
	}
}

func TestRangeName(t *testing.T) {
	for _, tc := range []struct {
		r    Range
		want string
	}{
		{Range{From: 3, Days: 1}, "day 3 (2026-06-04)"},
		{Range{From: 3, Days: 3}, "days 3…5"},
		{Range{From: 0, Days: 8, Segment: Segment{I: 1, N: 2}}, "days 0…7"},
	} {
		if got := tc.r.Name(); got != tc.want {
			t.Errorf("%+v.Name() = %q, want %q", tc.r, got, tc.want)
		}
	}
}
