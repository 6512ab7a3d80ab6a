package intake_test

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/intake"
)

// The per-date tier: the stand files ods.event rows by EventDate (PARTITION BY EventDate), its
// session build takes its scope from min(EventDate) and its wait_for_events task counts rows
// dated inside the range. A garbage-heavy run of every class, played through the stand's own
// hits tables on the real engine, must leave under every date exactly the inventory's
// ods_events of that day, and nothing under any other date.
//
// Days 29…32 (2026-06-30 … 2026-07-03) meet every spelling of an accepted_bad EventDate: an
// impossible day of June that rolls over onto July 1 ("2026-06-31"), and the dates written
// without separators (even days) and with slashes (odd days).
const (
	datesFrom = 29
	datesDays = 4
)

func TestEngineGarbageLandsOnItsDate(t *testing.T) {
	t.Parallel() // databases of its own names (see engineParallel)
	s := intake.OpenEngine(t)
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := w.Inventory(context.Background(), world.Range{From: datesFrom, Days: datesDays, Garbage: heavyGarbage}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []message
	for d := datesFrom; d < datesFrom+datesDays; d++ {
		msgs = append(msgs, hitMessages(t, w, d, heavyGarbage)...)
	}
	path := filepath.Join(t.TempDir(), "hits.ndjson")
	writeLines(t, path, "hits", msgs)

	// The stand's hits tables, fed from the file instead of the Kafka reader: raw rows are
	// inserted into STG and the two parse views file them into ODS.
	p := intake.HitsPipeline{Brokers: "127.0.0.1:1", STG: "wd_stg", ODS: "wd_ods"}
	ddl, err := p.DDL()
	if err != nil {
		t.Fatal(err)
	}
	stmts := []string{"DROP DATABASE IF EXISTS wd_stg SYNC", "DROP DATABASE IF EXISTS wd_ods SYNC"}
	for _, st := range ddl {
		if strings.Contains(st, "ENGINE = Kafka") || strings.Contains(st, "hits_raw_mv") {
			continue // no Kafka reader: the file is the delivery
		}
		stmts = append(stmts, st)
	}
	stmts = append(stmts, fmt.Sprintf(`INSERT INTO wd_stg.hits_raw_rep
SELECT raw, 'hits', 0, _row_number, NULL, 'file', now64(3)
FROM file(%s, 'LineAsString', 'raw String') WHERE raw != ''`, intake.Quote(path)))
	if err := s.Exec(stmts...); err != nil {
		t.Fatal(err)
	}

	// Per date, as ODS files the rows: with FINAL (one row per WatchID and date) and without.
	final, raw := map[string]int{}, map[string]int{}
	for _, r := range tsv(t, s, "SELECT toString(EventDate), count() FROM wd_ods.event_rep FINAL GROUP BY EventDate") {
		final[r[0]] = atoi(t, r[1])
	}
	for _, r := range tsv(t, s, "SELECT toString(EventDate), count() FROM wd_ods.event_rep GROUP BY EventDate") {
		raw[r[0]] = atoi(t, r[1])
	}
	errs := map[string]int{}
	for _, r := range tsv(t, s, "SELECT error_class, count() FROM wd_ods.event_errors_rep GROUP BY error_class") {
		errs[r[0]] = atoi(t, r[1])
	}
	want := map[string]int{}
	wantErrs := map[string]int{}
	events := 0
	for _, day := range inv.Days {
		want[day.Date] = *day.Expect.ODSEvents
		events += day.Events
		for c, n := range day.Expect.ODSErrors {
			wantErrs[c] += n
		}
		t.Logf("%s (day %d): ods.event FINAL %d, inventory ods_events %d; without FINAL %d; events %d, garbage %v, redelivered %d",
			day.Date, day.Day, final[day.Date], *day.Expect.ODSEvents, raw[day.Date], day.Events, day.Garbage, day.Redelivered)
	}
	if !maps.Equal(final, want) {
		t.Errorf("ods.event FINAL per EventDate = %v, want the inventory's ods_events per day %v", final, want)
	}
	if !maps.Equal(errs, nonZero(wantErrs)) {
		t.Errorf("ods.event_errors per class = %v, want %v", errs, nonZero(wantErrs))
	}

	// wait_for_events: rows dated inside the range plus all error rows reach the sum of
	// days[].events (clean events alone do); FINAL, they are exactly ods_events + ods_errors.
	inRange, inRangeFinal := 0, 0
	for _, d := range slices.Sorted(maps.Keys(want)) {
		inRange += raw[d]
		inRangeFinal += final[d]
	}
	t.Logf("wait_for_events: Σ days[].events %d; ods.event rows dated in range %d (FINAL %d) + errors %d = %d (FINAL %d); expect.hits: ods_events %d + ods_errors %d = %d",
		events, inRange, inRangeFinal, sum(errs), inRange+sum(errs), inRangeFinal+sum(errs),
		*inv.Expect.Hits.ODSEvents, sum(inv.Expect.Hits.ODSErrors), *inv.Expect.Hits.ODSEvents+sum(inv.Expect.Hits.ODSErrors))
	if inRange+sum(errs) < events || inRangeFinal+sum(errs) != *inv.Expect.Hits.ODSEvents+sum(inv.Expect.Hits.ODSErrors) {
		t.Errorf("rows in range + errors = %d (FINAL %d), want ≥ Σ events %d and FINAL = expect.hits %d",
			inRange+sum(errs), inRangeFinal+sum(errs), events, *inv.Expect.Hits.ODSEvents+sum(inv.Expect.Hits.ODSErrors))
	}

	// Every accepted_bad row, kind by kind, under its own day's date as the engine reads it.
	lines := readLines(t, s, path, intake.HitClassSQL(), "''", fmt.Sprintf("JSONExtract(raw, %s, 'Nullable(Date)')", intake.Quote(hitEventDate)))
	kinds := map[string]int{}
	r := &reporter{t: t}
	for i := range msgs {
		m := &msgs[i]
		if m.intent != world.GarbageAcceptedBad {
			continue
		}
		got, ok := lines[i]
		if !ok || got.class != "" || got.date != world.DayDate(m.unit).String() {
			r.errorf("message %d: engine class %q, EventDate %s (row %v), want accepted under %s: %v", i, got.class, got.date, ok, world.DayDate(m.unit), m)
			continue
		}
		kinds[m.kind]++
	}
	t.Logf("accepted_bad rows under their own date, by kind: %v", kinds)
	for _, k := range []string{"impossible_date", "date_spelling", "id_numeric_string", "id_fraction", "wrong_type"} {
		if kinds[k] == 0 {
			t.Errorf("accepted_bad kind %s never met in days %d…%d", k, datesFrom, datesFrom+datesDays-1)
		}
	}
}
