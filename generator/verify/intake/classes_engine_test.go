package intake_test

import (
	"bytes"
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

// The order-class tier: the stand's reconciliation mart (dm.purchase_vs_orders, its rebuild
// in the stand's sql/dm) classifies every order of a day from what landed in ODS, and its
// classes_vs_inventory check compares the counts per closed day with the inventory's
// days[].orders. Played with every garbage class and redelivery, the mart must find exactly
// the inventory's classes on every closed date. The case that matters is accepted_bad: a
// copy of a purchase event (a fresh WatchID, every other field the purchase's) passes strict
// intake, lands in ods.event as one more purchase of the same order, and the mart calls the
// order duplicate_event.
//
// classesCase is one run: the range whose inventory is computed, and the closed days whose
// hits are fed to the engine (with every snapshot of the range). A closed day's orders are
// joined only with purchases carrying their order_id, whose date the id spells: those are
// the day's own hits (clean events and extras), so the hits of other days cannot change its
// classes and are left out to keep the test cheap.
type classesCase struct {
	name     string
	from, n  int
	why      string
	hitsDays []int // the closed days whose hits are fed
}

var classesCases = []classesCase{
	{name: "start", from: 0, n: 8, hitsDays: []int{0},
		why: "the stand's starting world (batch --day 0 --days 8, snapshots 0–6): closed day 0 only, " +
			"where the issue met two accepted_bad copies of purchases (id_fraction)"},
	{name: "march", from: 272, n: 12, hitsDays: []int{272, 273, 274, 275, 276},
		why: "run days 272–283 (snapshots 271–282) close days 272–276 = 2027-02-28 … 2027-03-04: their accepted_bad " +
			"copies of purchases meet every kind, impossible_date (2027-02-29…31 rolled over onto March 1–3) included"},
}

// acceptedBadKinds are the kinds of accepted_bad a copy of a purchase must meet across the
// cases (world.Extra.Kind).
var acceptedBadKinds = []string{"impossible_date", "date_spelling", "id_numeric_string", "id_fraction", "wrong_type"}

// martClassesSQL is the stand's rebuild of its reconciliation mart (sql/dm, as the stand
// writes it; orders.md §4.4), over this test's single-node tables, grouped per day and
// class as its classes_vs_inventory check reads it. Purchases are the event rows (FINAL) of
// type purchase inside the scope, grouped by order id across dates: a count, one declared
// revenue, and a day for an order the backend does not have. Orders are the latest version
// of every order (FINAL by snapshot_date), dated by created_at in Europe/Samara. A missing
// side is NULL (join_use_nulls = 1), and the first matching class wins.
//
// The stand's ODS parses purchaseRevenue into Array(Decimal(18, 2)) straight from the JSON
// text; the one here keeps the contract's Array(Float64), which toString prints shortest,
// so reading that text as Decimal(18, 2) gives the stand's value.
const martClassesSQL = `
SELECT toString(order_day), mismatch_class, count()
FROM (
    SELECT
        coalesce(order_date, purchase_day) AS order_day,
        multiIf(
            backend_order_id IS NULL, 'awaiting_order',
            status = 'cancelled', 'cancelled',
            purchase_order_id IS NULL, 'lost_event',
            purchase_count > 1, 'duplicate_event',
            declared_revenue != items_total, 'amount_delta',
            'match'
        ) AS mismatch_class
    FROM
    (
        SELECT
            purchaseID[1] AS purchase_order_id,
            any(EventDate) AS purchase_day,
            any(toDecimal64(toString(purchaseRevenue[1]), 2)) AS declared_revenue,
            count() AS purchase_count
        FROM %[1]s.event_rep FINAL
        WHERE EventType = 'purchase'
            AND EventDate BETWEEN %[3]s AND %[4]s
        GROUP BY purchase_order_id
    ) AS purchases
    FULL OUTER JOIN
    (
        SELECT
            order_id AS backend_order_id,
            toDate(toTimeZone(created_at, 'Europe/Samara')) AS order_date,
            items_total,
            status
        FROM %[2]s.order_rep FINAL
        WHERE order_date BETWEEN %[3]s AND %[4]s
    ) AS orders ON purchase_order_id = backend_order_id
)
GROUP BY order_day, mismatch_class
ORDER BY order_day, mismatch_class
SETTINGS join_use_nulls = 1`

// classesOf reads an inventory day's classes as the mart's rows would name them.
func classesOf(c *world.OrderClasses) map[string]int {
	return nonZero(map[string]int{
		world.ClassMatch: c.Match, world.ClassCancelled: c.Cancelled, world.ClassLostEvent: c.LostEvent,
		world.ClassDuplicateEvent: c.DuplicateEvent, world.ClassAmountDelta: c.AmountDelta,
	})
}

// TestEngineOrderClassesPerDate: the garbage-heavy run (every class, redelivery) of each
// case, its closed days' hits and all its snapshots loaded through the stand's intake SQL on
// the real engine, reconciled by the stand's mart rule: per closed date, every class count is
// the inventory's days[].orders, and no order of a closed date is still awaiting_order. Every
// accepted_bad copy of a purchase is accepted and filed under its order's date, and across
// the cases the copies meet every accepted_bad kind.
func TestEngineOrderClassesPerDate(t *testing.T) {
	t.Parallel() // databases of its own names (see engineParallel)
	if testing.Short() {
		t.Skip("six days of garbage-heavy hits through the engine (about two minutes): not under -short")
	}
	s := intake.OpenEngine(t)
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for ci, tc := range classesCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Logf("%s: %s", tc.name, tc.why)
			inv, err := w.Inventory(context.Background(), world.Range{From: tc.from, Days: tc.n, Garbage: heavyGarbage}, 0)
			if err != nil {
				t.Fatal(err)
			}
			closed := world.ClosedDays(tc.from, tc.n)
			if !slices.Equal(closed, tc.hitsDays) {
				t.Fatalf("closed days of run %d+%d = %v, the case feeds the hits of %v", tc.from, tc.n, closed, tc.hitsDays)
			}
			var hits []message
			for _, d := range closed {
				hits = append(hits, hitMessages(t, w, d, heavyGarbage)...)
			}
			orders, _ := snapshotMessages(t, w, tc.from, tc.n, heavyGarbage)
			dir := t.TempDir()
			hitsPath, ordersPath := filepath.Join(dir, "hits.ndjson"), filepath.Join(dir, "orders.ndjson")
			writeLines(t, hitsPath, "hits", hits)
			writeLines(t, ordersPath, "orders", orders)

			stg, ods := fmt.Sprintf("wc%d_stg", ci), fmt.Sprintf("wc%d_ods", ci)
			loadFiles(t, stg, ods, hitsPath, ordersPath)

			// The accepted_bad copies of purchases, as the engine files them.
			dates := readLines(t, s, hitsPath, intake.HitClassSQL(), fmt.Sprintf("JSONExtract(raw, %s, 'Array(String)')[1]", intake.Quote("purchaseID")),
				fmt.Sprintf("JSONExtract(raw, %s, 'Nullable(Date)')", intake.Quote(hitEventDate)))
			r := &reporter{t: t}
			copies := map[string]int{} // per date
			for i := range hits {
				m := &hits[i]
				if m.intent != world.GarbageAcceptedBad || !bytes.Contains(m.value, []byte(`"EventType":"purchase"`)) {
					continue
				}
				got, ok := dates[i]
				want := world.DayDate(m.unit).String()
				if !ok || got.class != "" || got.date != want || !strings.Contains(got.key, strings.ReplaceAll(want, "-", "")+"-") {
					r.errorf("message %d: engine class %q, EventDate %s, purchaseID %s (row %v); want accepted under %s: %v", i, got.class, got.date, got.key, ok, want, m)
					continue
				}
				kinds[m.kind]++
				copies[want]++
				t.Logf("accepted_bad copy of purchase %s (%s): filed under %s", got.key, m.kind, got.date)
			}

			mart := map[string]map[string]int{}
			q := fmt.Sprintf(martClassesSQL, ods, ods, intake.Quote(world.DayDate(tc.from).String()), intake.Quote(world.DayDate(tc.from+tc.n-1).String()))
			for _, row := range tsv(t, s, q) {
				if mart[row[0]] == nil {
					mart[row[0]] = map[string]int{}
				}
				mart[row[0]][row[1]] = atoi(t, row[2])
			}
			t.Logf("%-10s %-15s %9s %7s", "date", "class", "inventory", "engine")
			for _, d := range closed {
				day := inv.Days[d-tc.from]
				if day.Orders == nil {
					t.Fatalf("inventory day %d (%s) has no order classes, but its window closes in the run", d, day.Date)
				}
				want, got := classesOf(day.Orders), mart[day.Date]
				for _, c := range []string{world.ClassMatch, world.ClassCancelled, world.ClassLostEvent, world.ClassDuplicateEvent, world.ClassAmountDelta, "awaiting_order"} {
					mark := ""
					if want[c] != got[c] {
						mark = "  ≠"
					}
					t.Logf("%-10s %-15s %9d %7d%s", day.Date, c, want[c], got[c], mark)
				}
				if !maps.Equal(got, want) {
					t.Errorf("%s (day %d, %d accepted_bad copies of purchases): the stand's mart finds %v, the inventory says %v", day.Date, d, copies[day.Date], got, want)
				}
			}
		})
	}
	t.Logf("accepted_bad copies of purchases by kind, over the cases: %v", kinds)
	for _, k := range acceptedBadKinds {
		if kinds[k] == 0 {
			t.Errorf("no accepted_bad copy of a purchase of kind %s on a closed day: the cases no longer prove it", k)
		}
	}
}

// loadFiles builds the stand's hits and orders tables in databases stg and ods and loads
// the files into them as the stand's intake would: hits rows go into the raw table, whose
// two parse views split them into events and errors; order rows go into the raw table as
// one pull run, then the run's two parse statements split them.
func loadFiles(t *testing.T, stg, ods, hitsPath, ordersPath string) {
	t.Helper()
	s := intake.OpenEngine(t)
	stmts := []string{"DROP DATABASE IF EXISTS " + stg + " SYNC", "DROP DATABASE IF EXISTS " + ods + " SYNC"}
	hp := intake.HitsPipeline{Brokers: "127.0.0.1:1", STG: stg, ODS: ods}
	ddl, err := hp.DDL()
	if err != nil {
		t.Fatal(err)
	}
	op := intake.OrdersPull{Brokers: "127.0.0.1:1", STG: stg, ODS: ods}
	oddl, err := op.DDL()
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range append(ddl, oddl...) {
		if strings.Contains(st, "ENGINE = Kafka") || strings.Contains(st, "hits_raw_mv") {
			continue // no Kafka reader: the files are the delivery
		}
		stmts = append(stmts, st)
	}
	stmts = append(stmts,
		fmt.Sprintf(`INSERT INTO %s SELECT raw, 'hits', 0, _row_number, NULL, 'file', now64(3)
FROM file(%s, 'LineAsString', 'raw String') WHERE raw != ''`, hp.RawTable(), intake.Quote(hitsPath)),
		fmt.Sprintf(`INSERT INTO %s SELECT raw, 'orders', 0, _row_number, NULL, 'file', 'file', now64(3)
FROM file(%s, 'LineAsString', 'raw String') WHERE raw != ''`, op.RawTable(), intake.Quote(ordersPath)))
	parse, err := op.Parse("file")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(append(stmts, parse...)...); err != nil {
		t.Fatal(err)
	}
}
