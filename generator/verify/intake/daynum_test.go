package intake

import (
	"math"
	"testing"
	"time"

	"github.com/clickgen/clickgen/schema"
)

// TestMakeDayNum: the LUT's day number of (year, month, day) is the time package's day for
// every in-range month and day 1–31 (a day past the month's end rolls over, as time.Date
// normalises it), 1970-01-01 outside the LUT's years, months and days, 2299-12-31 after 2299,
// clamped to Date's range. It pins dateText's bytes across the move of the calendar
// arithmetic to schema.
func TestMakeDayNum(t *testing.T) {
	last := time.Date(2299, 12, 31, 0, 0, 0, 0, time.UTC).Unix() / 86400
	for year := 1890; year <= 2310; year++ {
		for month := 0; month <= 13; month++ {
			for day := 0; day <= 32; day++ {
				var want int64
				switch {
				case year < 1900 || month < 1 || month > 12 || day < 1 || day > 31:
					want = 0
				case year > 2299:
					want = last
				default:
					want = min(time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC).Unix()/86400, last)
				}
				want = min(max(want, 0), math.MaxUint16)
				if got := makeDayNum(year, month, day); got != schema.Date(want) {
					t.Fatalf("makeDayNum(%d, %d, %d) = %d (%s), want %d", year, month, day, got, got, want)
				}
			}
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"2024-02-30", "2024-03-01"}, {"2026-06-31", "2026-07-01"}, {"1899-12-31", "1970-01-01"},
		{"2300-01-01", "2149-06-06"}, {"2026/6/3", "2026-06-03"}, {"20260603", "2026-06-03"},
	} {
		if d, ok := dateText(tc.in); !ok || d.String() != tc.want {
			t.Errorf("dateText(%q) = %s, %v; want %s", tc.in, d, ok, tc.want)
		}
	}
}
