package store_test

import (
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/internal/testenv"
)

// TestTableFitsATerminal is issue 38 item 6 for verify --clickhouse: the store's table, with
// every error class and differences everywhere (a day's events gone, error rows under
// another class, unplanned rows), has no line wider than 100 columns.
func TestTableFitsATerminal(t *testing.T) {
	// The width of one goroutine's table; the reads that fill it are watched elsewhere.
	testenv.SkipUnderRace(t, watchedReadAhead)
	w, f, _ := filled(t)
	f.events = f.events[len(f.events)/3:]
	for i := range f.errors {
		if i%3 == 0 {
			f.errors[i].class = "keyset_mismatch_but_spelled_long"
		}
	}
	f.raw = append(f.raw, rawRow{raw: []byte(`{"EventDate":"2026-06-02","unplanned":"a row nobody sent, of a date inside the run"}`), day: 1})
	res := verify(t, w, f, store.Options{})
	text := table(t, res)
	if res.OK || !strings.Contains(text, "≠") {
		t.Fatalf("not the wide case this test means:\n%s", text)
	}
	for i, line := range strings.Split(text, "\n") {
		if n := len([]rune(line)); n > 100 {
			t.Errorf("line %d is %d columns: %q", i+1, n, line)
		}
	}
	t.Logf("\n%s", text)
}
