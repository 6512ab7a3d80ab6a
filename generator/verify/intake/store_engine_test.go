package intake_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/internal/tier/chdb"
)

// The store tier (issue 30): the stand's own SQL (the project's rendering of its hits
// pipeline and orders pull, package intake) runs on the real ClickHouse engine (chDB 26.7),
// fed by the clickgen binary through a Kafka broker, and `clickgen verify --clickhouse` (the
// binary, a separate process) reads it through chFront, an HTTP front written for these tests
// (the engine is real, the HTTP front is ours). The tables carry the stand's names: views
// ods.event_dist, ods.event_errors_dist, stg.hits_raw_dist, ods.order_dist and
// ods.order_errors_dist over the single-node tables (the stand's Distributed faces on one
// shard), and dm.purchase_vs_orders_v computing the stand's mart rule from ODS.

// storeScale is the scale of the worlds the store tier plays, and storeWorld its flags, given to
// every command of the tier (runVerify adds them itself): a tenth of the stand's world (the fill
// world's 40,715 hits and 612 order rows over the same eight days, a garbage day's every class).
// The tier judges how verify reads and names what the engine stores, which does not grow with
// the rows, and a tenth takes a tenth of the engine's CPU, which the test tiers share.
const storeScale = 0.1

var storeWorld = []string{"--scale", strconv.FormatFloat(storeScale, 'g', -1, 64)}

// frontUser and frontPassword are the front's credentials; the password must never be printed.
const (
	frontUser     = "verifier"
	frontPassword = "chdb-front-pw-never-printed"
)

// martViewSQL is the stand's reconciliation mart (sql/dm/purchase_vs_orders_rebuild.sql:
// purchases grouped by order id FULL OUTER JOIN the current orders, the first matching class
// wins), one row per order, over this tier's ODS tables with FINAL instead of the stand's DDS
// views; purchaseRevenue is kept as the contract's Float64, read back as Decimal(18, 2) as the
// stand's ODS parses it.
const martViewSQL = `CREATE VIEW dm.purchase_vs_orders_v AS
SELECT
    coalesce(order_date, purchase_day) AS order_day,
    coalesce(purchase_order_id, backend_order_id) AS order_id,
    declared_revenue,
    items_total,
    status,
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
    FROM ods.event_rep FINAL
    WHERE EventType = 'purchase'
    GROUP BY purchase_order_id
) AS purchases
FULL OUTER JOIN
(
    SELECT order_id AS backend_order_id, toDate(toTimeZone(created_at, 'Europe/Samara')) AS order_date, items_total, status
    FROM ods.order_rep FINAL
) AS orders ON purchase_order_id = backend_order_id
SETTINGS join_use_nulls = 1`

// standViews give the stand's names to the single-node tables.
var standViews = []string{
	"CREATE DATABASE IF NOT EXISTS dm",
	"CREATE VIEW ods.event_dist AS SELECT * FROM ods.event_rep",
	"CREATE VIEW ods.event_errors_dist AS SELECT * FROM ods.event_errors_rep",
	"CREATE VIEW stg.hits_raw_dist AS SELECT * FROM stg.hits_raw_rep",
	"CREATE VIEW ods.order_dist AS SELECT * FROM ods.order_rep",
	"CREATE VIEW ods.order_errors_dist AS SELECT * FROM ods.order_errors_rep",
	martViewSQL,
}

// standTier is the stand on the engine, fed from a broker.
type standTier struct {
	s       *chdb.Session
	brokers string
	hits    intake.HitsPipeline
	orders  intake.OrdersPull
	pulls   int
}

// buildStand creates the stand's databases stg, ods and dm afresh, with the hits pipeline
// consuming brokers (group clickstream_hits) and the orders pull's tables.
func buildStand(t *testing.T, s *chdb.Session, brokers string) *standTier {
	t.Helper()
	st := &standTier{s: s, brokers: brokers,
		hits:   intake.HitsPipeline{Brokers: brokers, Flush: 200 * time.Millisecond},
		orders: intake.OrdersPull{Brokers: brokers}}
	if err := s.Exec("DROP DATABASE IF EXISTS stg SYNC", "DROP DATABASE IF EXISTS ods SYNC", "DROP DATABASE IF EXISTS dm SYNC"); err != nil {
		t.Fatal(err)
	}
	hd, err := st.hits.DDL()
	if err != nil {
		t.Fatal(err)
	}
	od, err := st.orders.DDL()
	if err != nil {
		t.Fatal(err)
	}
	// The orders' tables first: the hits' ingest view starts consuming.
	if err := s.Exec(append(append(od, hd...), standViews...)...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Detach the consumers before the broker goes away.
		if err := s.Exec("DROP TABLE IF EXISTS stg.hits_raw_mv SYNC", "DROP TABLE IF EXISTS stg.hits_raw_kafka SYNC",
			"DROP TABLE IF EXISTS stg.orders_raw_kafka SYNC"); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return st
}

// count runs a count() query.
func (st *standTier) count(t *testing.T, q string) int {
	t.Helper()
	return atoi(t, tsv(t, st.s, q)[0][0])
}

// pullOrders runs the stand's orders_ingest as its DAG does, until the raw orders table holds
// want rows: direct SELECTs from the Kafka table (each one poll, committing its offsets), then
// the two INSERT SELECTs of the run's rows.
func (st *standTier) pullOrders(t *testing.T, want int) {
	t.Helper()
	st.pulls++
	id := fmt.Sprintf("pull-%d", st.pulls)
	pull, err := st.orders.Pull(id)
	if err != nil {
		t.Fatal(err)
	}
	parse, err := st.orders.Parse(id)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for st.count(t, "SELECT count() FROM "+st.orders.RawTable()) < want {
		if time.Now().After(deadline) {
			t.Fatalf("orders: %d of %d raw rows after two minutes of pulls", st.count(t, "SELECT count() FROM "+st.orders.RawTable()), want)
		}
		if err := st.s.Exec(pull...); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.s.Exec(parse...); err != nil {
		t.Fatal(err)
	}
}

// awaitRaw waits (at most three minutes) until the raw hits table holds want rows.
func (st *standTier) awaitRaw(t *testing.T, want int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if n, err := st.s.WaitCount(ctx, "SELECT count() FROM "+st.hits.RawTable(), uint64(want), 100*time.Millisecond); err != nil {
		t.Fatalf("raw hits: %d rows, want %d: %v", n, want, err)
	}
}

// verifyRun is one `clickgen verify --clickhouse` process: its exit code, outputs and report.
type verifyRun struct {
	code           int
	stdout, stderr string
	report         store.Result
	took           time.Duration
}

// runVerify runs the binary's verify of storeWorld (or of the --scale args name: the last
// value of a flag is the one taken) against the front with password, and reads the report.
func runVerify(t *testing.T, bin, url, password string, args ...string) verifyRun {
	t.Helper()
	rep := filepath.Join(t.TempDir(), "report.json")
	args = append(append([]string{"verify", "--clickhouse", url, "--clickhouse-user", frontUser, "--report", rep}, storeWorld...), args...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "CLICKHOUSE_PASSWORD="+password)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := verifyRun{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	if b, err := os.ReadFile(rep); err == nil {
		if err := json.Unmarshal(b, &r.report); err != nil {
			t.Fatalf("report: %v", err)
		}
	}
	for _, s := range []string{r.stdout, r.stderr} {
		if strings.Contains(s, frontPassword) || password != "" && strings.Contains(s, password) {
			t.Errorf("verify printed the password:\n%s", s)
		}
	}
	return r
}

// clickgen runs the binary with args, failing the test on a non-zero exit.
func clickgen(t *testing.T, bin string, args ...string) {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("clickgen %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// TestStoreVerifyFill: the stand's starting world (`run fill`: batch and snapshot of days
// 0…7; storeWorld's tenth of it) through Kafka into the stand's tables on the real engine; verify --clickhouse finds it
// exact, every value judged; then finds each value changed (changedValues) and each fault
// injected: a day's rows deleted, unplanned rows inserted, a day replayed (copies count once;
// --exactly-once then differs), a table dropped, a wrong password; last, the next day played
// and the whole range exact again (nextDay). It also measures verify's read of the events
// against curl's of the same queries. One fill serves them all: every case restores what it
// changed, and a replayed day's copies are still exact without --exactly-once.
func TestStoreVerifyFill(t *testing.T) {
	if testing.Short() {
		t.Skip("eight days through Kafka into the engine (about a minute): not under -short")
	}
	s := intake.OpenEngine(t)
	b, err := broker.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Closed after the stand's cleanup has detached its consumers (cleanups run last first):
	// a Kafka table dropped after its broker has gone waits out its client's close.
	t.Cleanup(func() { b.Close() })
	bin := clickgenBinary(t)
	brokers := strings.Join(b.Addrs(), ",")
	st := buildStand(t, s, brokers)
	w, err := world.NewWorld(world.Params{Scale: storeScale})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := w.Inventory(context.Background(), world.Range{From: 0, Days: 8}, 0)
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	clickgen(t, bin, append([]string{"run", "fill", "--brokers", brokers}, storeWorld...)...)
	t.Logf("run fill sent in %v", time.Since(start).Round(time.Millisecond))
	st.pullOrders(t, inv.Expect.Orders.StgRows)
	srv, front := startFront(t, s, frontUser, frontPassword)
	fill := []string{"--day", "0", "--days", "8"}

	t.Run("exact", func(t *testing.T) {
		r := runVerify(t, bin, srv.URL, frontPassword, append(fill, "--wait", "3m")...)
		if r.code != 0 || !r.report.OK || !strings.Contains(r.stdout, "\nOK: ") {
			t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if len(r.report.Events.Judged) != 47 || len(r.report.Orders.Judged) != 11 {
			t.Errorf("judged %v and %v: want the 47 hit columns and the 11 order columns", r.report.Events.Judged, r.report.Orders.Judged)
		}
		rep := r.report
		if rep.Events.Total.Present != *inv.Expect.Hits.ODSEvents || rep.Raw.Total.Present != inv.Expect.Hits.StgRows ||
			rep.Orders.Total.Present != *inv.Expect.Orders.ODSOrders || len(rep.Marts.Days) != 1 || !rep.Marts.Days[0].OK {
			t.Errorf("report: events %d raw %d orders %d marts %+v; inventory %d %d %d", rep.Events.Total.Present, rep.Raw.Total.Present,
				rep.Orders.Total.Present, rep.Marts.Days, *inv.Expect.Hits.ODSEvents, inv.Expect.Hits.StgRows, *inv.Expect.Orders.ODSOrders)
		}
		t.Logf("verify --clickhouse of the fill world: exit 0 in %v, %d queries\n%s\n%s", r.took.Round(time.Millisecond), front.queries.Load(), r.stdout, r.stderr)
	})

	t.Run("speed", func(t *testing.T) {
		// The same WatchIDs read by curl into /dev/null: the queries verify sends for the
		// events table, date by date.
		curl, err := exec.LookPath("curl")
		if err != nil {
			t.Skip("no curl")
		}
		var sqls []string
		for d := range 8 {
			sqls = append(sqls, fmt.Sprintf("SELECT toUInt64(WatchID), toUInt64(ClientID) FROM `ods`.`event_dist` WHERE EventDate = toDate('%s') ORDER BY WatchID, ClientID FORMAT RowBinary", world.DayDate(d)))
		}
		start := time.Now()
		for _, q := range sqls {
			out, err := exec.Command(curl, "-sS", "-f", "-o", "/dev/null", "-u", frontUser+":"+frontPassword, "--data-binary", q, srv.URL).CombinedOutput()
			if err != nil {
				t.Fatalf("curl: %v\n%s", err, out)
			}
		}
		ref := time.Since(start)
		r := runVerify(t, bin, srv.URL, frontPassword, append(fill, "--errors-table=", "--raw-table=", "--orders-table=", "--order-errors-table=", "--marts-view=")...)
		if r.code != 0 {
			t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		all := runVerify(t, bin, srv.URL, frontPassword, fill...)
		if all.code != 0 {
			t.Fatalf("exit %d:\n%s\n%s", all.code, all.stdout, all.stderr)
		}
		t.Logf("the events of the fill world (%d WatchIDs): curl read them in %v; verify --clickhouse (the whole process: world planned, store read) took %v with the events table alone (%.2f×), %v with every table (%.2f×)",
			*inv.Expect.Hits.ODSEvents, ref.Round(time.Millisecond), r.took.Round(time.Millisecond), float64(r.took)/float64(ref),
			all.took.Round(time.Millisecond), float64(all.took)/float64(ref))
	})

	t.Run("a value changed", func(t *testing.T) { changedValues(t, st, bin, srv.URL) })

	t.Run("a day's rows deleted", func(t *testing.T) {
		day := world.DayDate(2).String()
		if err := s.Exec("CREATE TABLE ods.event_backup AS ods.event_rep",
			"INSERT INTO ods.event_backup SELECT * FROM ods.event_rep WHERE EventDate = '"+day+"'",
			"DELETE FROM ods.event_rep WHERE EventDate = '"+day+"'"); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := s.Exec("INSERT INTO ods.event_rep SELECT * FROM ods.event_backup", "DROP TABLE ods.event_backup SYNC"); err != nil {
				t.Fatal(err)
			}
		}()
		r := runVerify(t, bin, srv.URL, frontPassword, fill...)
		want := *inv.Days[2].Expect.ODSEvents
		ev := r.report.Events
		if r.code != 1 || ev == nil || ev.Dates[2].Missing != want || ev.Differences != want || !r.report.Raw.OK {
			t.Fatalf("exit %d; want 1 with the %d events of %s missing, the raw rows intact:\n%s", r.code, want, day, r.stdout)
		}
		for _, d := range ev.Diffs {
			if d.Kind != store.KindMissing || d.Date != day || d.ClientID == 0 {
				t.Fatalf("listed %+v; want missing on %s with a ClientID", d, day)
			}
		}
		t.Logf("exit 1:\n%s", tail(r.stdout, 8))
	})

	t.Run("unplanned rows inserted", func(t *testing.T) {
		day := world.DayDate(4).String()
		if err := s.Exec("INSERT INTO ods.event_rep (WatchID, EventDate, ClientID, EventType, _load_ts) VALUES " +
			"(7, '" + day + "', 70, 'pageview', now64(3)), (8, '" + day + "', 80, 'pageview', now64(3)), (9, '" + day + "', 90, 'purchase', now64(3))"); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := s.Exec("DELETE FROM ods.event_rep WHERE WatchID IN (7, 8, 9)"); err != nil {
				t.Fatal(err)
			}
		}()
		r := runVerify(t, bin, srv.URL, frontPassword, fill...)
		ev := r.report.Events
		if r.code != 1 || ev == nil || ev.Differences != 3 || len(ev.Diffs) != 3 {
			t.Fatalf("exit %d; want 1 with three unplanned WatchIDs:\n%s", r.code, r.stdout)
		}
		for i, d := range ev.Diffs {
			if d.Kind != store.KindUnplanned || d.WatchID != uint64(7+i) || d.ClientID != uint64(70+10*i) || d.Date != day {
				t.Errorf("listed %+v; want unplanned WatchID %d ClientID %d on %s", d, 7+i, 70+10*i, day)
			}
		}
		if !strings.Contains(r.stdout, "events unplanned "+day+": WatchID 7 ClientID 70") {
			t.Errorf("the console does not list WatchID 7:\n%s", r.stdout)
		}
		t.Logf("exit 1:\n%s", tail(r.stdout, 6))
	})

	t.Run("a day replayed", func(t *testing.T) {
		day := 3
		replayed := time.Now().UTC().Add(-time.Second).Format("2006-01-02 15:04:05")
		clickgen(t, bin, append([]string{"batch", "--day", fmt.Sprint(day), "--brokers", brokers, "--topic", "hits"}, storeWorld...)...)
		st.awaitRaw(t, inv.Expect.Hits.StgRows+inv.Days[day].Expect.StgRows)
		// The parse view's rows come with the raw rows' insert; FINAL keeps the newest of
		// each WatchID, so the replayed rows stay however parts merge.
		date := world.DayDate(day).String()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		q := "SELECT count() FROM ods.event_rep FINAL WHERE EventDate = '" + date + "' AND _load_ts >= toDateTime64('" + replayed + "', 3)"
		if n, err := s.WaitCount(ctx, q, uint64(*inv.Days[day].Expect.ODSEvents), 100*time.Millisecond); err != nil {
			t.Fatalf("replayed events of %s: %d: %v", date, n, err)
		}
		r := runVerify(t, bin, srv.URL, frontPassword, fill...)
		rep := r.report
		if r.code != 0 || !rep.OK || rep.Raw.Total.Copies != inv.Days[day].Expect.StgRows {
			t.Fatalf("exit %d, raw copies %v; want 0 with every raw row of day %d copied once:\n%s\n%s", r.code, rep.Raw, day, r.stdout, r.stderr)
		}
		t.Logf("day %d replayed: exit 0; copies: events %d (rows not merged yet), raw %d", day, rep.Events.Dates[day].Copies, rep.Raw.Total.Copies)
		r = runVerify(t, bin, srv.URL, frontPassword, append(fill, "--exactly-once")...)
		if r.code != 1 || r.report.OK || r.report.Raw.OK {
			t.Fatalf("--exactly-once after a replay: exit %d; want 1:\n%s", r.code, r.stdout)
		}
		t.Logf("--exactly-once: exit 1:\n%s", tail(r.stdout, 4))
	})

	t.Run("a table dropped", func(t *testing.T) {
		if err := s.Exec("DROP VIEW ods.event_errors_dist"); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := s.Exec("CREATE VIEW ods.event_errors_dist AS SELECT * FROM ods.event_errors_rep"); err != nil {
				t.Fatal(err)
			}
		}()
		r := runVerify(t, bin, srv.URL, frontPassword, fill...)
		if r.code != 1 || r.report.Errors == nil || !strings.Contains(r.report.Errors.Error, "ods.event_errors_dist does not exist") ||
			!r.report.Events.OK || !strings.Contains(r.stdout, "CANNOT BE READ: ods.event_errors_dist does not exist") {
			t.Fatalf("exit %d; want 1 naming ods.event_errors_dist, the other tables read:\n%s", r.code, r.stdout)
		}
	})

	t.Run("a wrong password", func(t *testing.T) {
		wrong := "wrong-" + frontPassword
		r := runVerify(t, bin, srv.URL, wrong, fill...)
		if r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, "refused the credentials") || !strings.Contains(r.stderr, "CLICKHOUSE_PASSWORD") {
			t.Fatalf("exit %d; want 1 saying the credentials were refused, and no table:\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		t.Logf("exit 1: %s", strings.TrimSpace(r.stderr))
	})

	t.Run("the next day", func(t *testing.T) { nextDay(t, st, w, bin, brokers, srv.URL) })
}

// TestStoreVerifyGarbage: the garbage profile (`run garbage`: day 1 with every garbage class
// and redelivery, and snapshot 0 with the order classes) through Kafka into the stand's tables
// on the real engine: verify --clickhouse with the same garbage flags finds every error class,
// the accepted_bad rows (with the ClientIDs the engine read) and the redelivered raw rows as
// the inventory says; one value changed in an accepted_bad row is named (garbageValues); a
// replay of the day is copies, and differences with --exactly-once. One fill serves them all.
func TestStoreVerifyGarbage(t *testing.T) {
	if testing.Short() {
		t.Skip("a garbage day through Kafka into the engine, twice (about a minute): not under -short")
	}
	s := intake.OpenEngine(t)
	b, err := broker.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// Closed after the stand's cleanup has detached its consumers (cleanups run last first):
	// a Kafka table dropped after its broker has gone waits out its client's close.
	t.Cleanup(func() { b.Close() })
	bin := clickgenBinary(t)
	brokers := strings.Join(b.Addrs(), ",")
	st := buildStand(t, s, brokers)
	// Half the stand's world (27,717 messages of day 1, 265 redelivered, 132 order rows):
	// storeWorld's tenth has no order error of two of the three classes.
	const scale = 0.5
	w, err := world.NewWorld(world.Params{Scale: scale})
	if err != nil {
		t.Fatal(err)
	}
	scaled := []string{"--scale", strconv.FormatFloat(scale, 'g', -1, 64)}
	garbage := append([]string{"--garbage", "0.05", "--garbage-mix",
		"not_an_object=1,keyset_mismatch=1,key_field_unparsed=1,accepted_bad=1,vanishing=1,field_invalid=1", "--redeliver", "0.01"}, scaled...)
	inv, err := w.Inventory(context.Background(), world.Range{From: 1, Days: 1, Garbage: heavyGarbage}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for c, n := range inv.Snapshots[0].Expect.ODSErrors {
		if n == 0 {
			t.Fatalf("the snapshot of day 1 at scale %v has no order error of class %s to find", scale, c)
		}
	}
	clickgen(t, bin, append([]string{"run", "garbage", "--brokers", brokers}, scaled...)...)
	st.pullOrders(t, inv.Expect.Orders.StgRows)
	srv, _ := startFront(t, s, frontUser, frontPassword)
	args := append([]string{"--day", "1", "--days", "1"}, garbage...)

	r := runVerify(t, bin, srv.URL, frontPassword, append(args, "--wait", "3m")...)
	rep := r.report
	if r.code != 0 || !rep.OK {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	day := inv.Days[0]
	for c, want := range day.Expect.ODSErrors {
		if got := rep.Errors.Units[0].ByClass[c].Present; got != want {
			t.Errorf("errors %s: %d, inventory %d", c, got, want)
		}
	}
	for c, want := range inv.Snapshots[0].Expect.ODSErrors {
		if got := rep.OrderErrors.Units[0].ByClass[c].Present; got != want {
			t.Errorf("order errors %s: %d, inventory %d", c, got, want)
		}
	}
	if rep.Events.Total.Present != *day.Expect.ODSEvents || rep.Raw.Total.Present != day.Expect.StgRows || day.Garbage[world.GarbageAcceptedBad] == 0 || day.Redelivered == 0 {
		t.Errorf("events %d (inventory %d), raw %d (inventory %d), accepted_bad %d, redelivered %d", rep.Events.Total.Present, *day.Expect.ODSEvents,
			rep.Raw.Total.Present, day.Expect.StgRows, day.Garbage[world.GarbageAcceptedBad], day.Redelivered)
	}
	t.Logf("the garbage profile: exit 0\n%s", r.stdout)
	t.Run("a value changed", func(t *testing.T) { garbageValues(t, st, bin, srv.URL, args) })

	// The day replayed, with its garbage: every raw and error row copied once.
	clickgen(t, bin, append([]string{"batch", "--day", "1", "--brokers", brokers, "--topic", "hits"}, garbage...)...)
	st.awaitRaw(t, 2*day.Expect.StgRows)
	errs := 0
	for _, n := range day.Expect.ODSErrors {
		errs += n
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if n, err := s.WaitCount(ctx, "SELECT count() FROM ods.event_errors_rep", uint64(2*errs), 100*time.Millisecond); err != nil {
		t.Fatalf("error rows after the replay: %d: %v", n, err)
	}
	r = runVerify(t, bin, srv.URL, frontPassword, args...)
	if r.code != 0 || r.report.Errors.Total.Copies != errs || r.report.Raw.Total.Copies != day.Expect.StgRows {
		t.Fatalf("after a replay: exit %d, error copies %d (want %d), raw copies %d (want %d):\n%s", r.code,
			r.report.Errors.Total.Copies, errs, r.report.Raw.Total.Copies, day.Expect.StgRows, r.stdout)
	}
	r = runVerify(t, bin, srv.URL, frontPassword, append(args, "--exactly-once")...)
	if r.code != 1 || r.report.Errors.OK || r.report.Raw.OK {
		t.Fatalf("--exactly-once after a replay: exit %d; want 1 with the error and raw tables differing:\n%s", r.code, r.stdout)
	}
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
