package world

import (
	"bytes"
	"testing"

	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/internal/testenv"
	"github.com/clickgen/clickgen/schema"
)

// Every accepted_bad EventDate, read as the stand's intake reads it (the Go model of
// JSONExtract(…, 'Nullable(Date)'), proven against ClickHouse in package intake), is the date
// it was derived from, for every date of five years from the world's first day: a garbage row
// is filed in ODS under its own day, inside any range that plays the day.
func TestAcceptedBadDateIsItsOwnDay(t *testing.T) {
	clean := canonical(t).Day(0).AppendEvent(nil, 0)
	keys := schema.HitKeys()
	kinds := map[string]int{}
	for d := 0; d < 5*366; d++ {
		date := DayDate(d)
		fs := fields(clean, keys)
		canon := date.Append([]byte{'"'})
		canon = append(canon, '"')
		spelled := acceptedBadDate(canon)
		kinds[spelled.name]++
		if spelled.raw == string(canon) {
			t.Fatalf("%s: accepted_bad spelling %s is the canonical one", date, spelled.raw)
		}
		setField(fs, keys[4], spelled.raw)
		msg := join(fs)
		class, row := intake.ClassifyHit(msg)
		key, ok := intake.HitDedupKey(msg)
		if class != "" || !row || !ok || key.EventDate != date {
			t.Fatalf("%s: EventDate %s is class %q (row %v), filed under %s; want accepted under %s", date, spelled.raw, class, row, key.EventDate, date)
		}
	}
	t.Logf("kinds over %d dates: %v", 5*366, kinds)
	if kinds["impossible_date"] == 0 || kinds["date_spelling"] == 0 {
		t.Errorf("kinds %v: want both impossible_date and date_spelling", kinds)
	}
}

// The same through HitExtras, on the days around month ends where the kind changes: the 1st
// after a 30-day month (day 30, 2026-07-01) and March 1–3 after a 28-day February (days
// 273–275) get an impossible day of the previous month, the others another spelling.
func TestAcceptedBadRowsLandOnTheirDay(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	w := canonical(t)
	g := Garbage{Rate: 0.004, Mix: map[string]int{GarbageAcceptedBad: 1}}
	for _, tc := range []struct {
		day  int
		want string // the raw EventDate of impossible_date rows
	}{{0, `"2026/06/01"`}, {29, `"20260630"`}, {30, `"2026-06-31"`}, {31, `"20260702"`}, {61, `"2026/08/01"`},
		{273, `"2027-02-29"`}, {274, `"2027-02-30"`}, {275, `"2027-02-31"`}, {276, `"20270304"`}} {
		day := w.Day(tc.day)
		n := 0
		for _, e := range day.HitExtras(g) {
			key, ok := intake.HitDedupKey(e.Value)
			if !ok || key.EventDate != DayDate(tc.day) {
				t.Errorf("day %d: accepted_bad %s filed under %s (ok %v), want %s: %.120s", tc.day, e.Kind, key.EventDate, ok, DayDate(tc.day), e.Value)
			}
			if e.Kind == "impossible_date" || e.Kind == "date_spelling" {
				n++
				if !bytes.Contains(e.Value, []byte(`"EventDate":`+tc.want+`,`)) {
					t.Errorf("day %d: %s row lacks EventDate %s: %.120s", tc.day, e.Kind, tc.want, e.Value)
				}
			}
		}
		if n == 0 {
			t.Errorf("day %d: no accepted_bad date row among the extras", tc.day)
		}
	}
}
