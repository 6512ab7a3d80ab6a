package tests

// verify --clickhouse judges values and probes every named table (issue 35), end to end on
// the real-ClickHouse-server tier: the fill world through real Apache Kafka 4.3.1 into the
// 18.16 server's Kafka engine, views and tables (the stand's pipeline, .ci/clickhouse), read
// by the built command. Each subtest is one of the ways the issue found verify fooled by this
// stand, now found: a column rewritten on every row of a day, three titles changed, a planned
// WatchID held again with another ClientID, one event of 1970 beside a day's lost raw rows, a
// named table or the default marts view that does not exist, a Kafka table named as the raw
// table (refused with exit 2, and the stand's next pull still loads every order); then the
// store's tables copied under other names, and the next day, exact value for value.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
)

// mutated runs an ALTER TABLE … UPDATE on the server and waits until it is done.
func mutated(t *testing.T, ch *realclickhouse.Server, table, set, where string) {
	t.Helper()
	ch.Query("ALTER TABLE " + table + " UPDATE " + set + " WHERE " + where)
	db, name, _ := strings.Cut(table, ".")
	ch.WaitCount("SELECT count() = 0 FROM system.mutations WHERE database = '"+db+"' AND table = '"+name+"' AND is_done = 0", 1)
}

// keptDay saves table's rows of where and returns what puts them back as they were.
func keptDay(t *testing.T, ch *realclickhouse.Server, table, where string) (restore func()) {
	t.Helper()
	kept := table + "_kept"
	ch.Query("CREATE TABLE " + kept + " AS " + table)
	ch.Query("INSERT INTO " + kept + " SELECT * FROM " + table + " WHERE " + where)
	return func() {
		ch.DeleteWhere(table, where)
		ch.Query("INSERT INTO " + table + " SELECT * FROM " + kept)
		ch.Query("DROP TABLE " + kept)
	}
}

// columnsOf is selectWith's list for the 18.16 server: table's columns in order, with the
// expressions of with in place of those they name (18.16 has no SELECT * REPLACE).
func columnsOf(ch *realclickhouse.Server, table string, with map[string]string) string {
	db, name, _ := strings.Cut(table, ".")
	cols := strings.Split(ch.Query("SELECT name FROM system.columns WHERE database = '"+db+"' AND table = '"+name+"'"), "\n")
	for i, c := range cols {
		if e, ok := with[c]; ok {
			cols[i] = e + " AS " + c
		}
	}
	return strings.Join(cols, ", ")
}

// TestRealClickHouseVerifyValues: see the file's comment.
func TestRealClickHouseVerifyValues(t *testing.T) {
	t.Parallel() // its own servers: it waits on them beside the other real tiers
	s, inv := fillRealStand(t, judgedWorld)
	fill := []string{"--day", "0", "--days", "8"}
	password := s.ch.Password()

	t.Run("exact, every value", func(t *testing.T) {
		r := s.verifyStore(t, password, fill...)
		mustAgree(t, r)
		if len(r.report.Events.Judged) != 47 || len(r.report.Orders.Judged) != 11 || r.report.Columns != store.ColumnsAll {
			t.Fatalf("judged %v and %v", r.report.Events.Judged, r.report.Orders.Judged)
		}
		t.Logf("the fill world, every contract column: exit 0 in %v", r.took.Round(time.Millisecond))
	})

	t.Run("URL = Referer on a day", func(t *testing.T) {
		ch := s.ch.In(t)
		date := inv.Days[2].Date
		where := "EventDate = '" + date + "'"
		rows := ch.Int("SELECT count() FROM ods.event_rep WHERE " + where + " AND URL != Referer")
		ids := ch.Int("SELECT uniqExact(WatchID) FROM ods.event_rep WHERE " + where + " AND URL != Referer")
		defer keptDay(t, ch, "ods.event_rep", where)()
		mutated(t, ch, "ods.event_rep", "URL = Referer", where)
		r := s.verifyStore(t, password, fill...)
		mustDiffer(t, r)
		ev := r.report.Events
		if ev.Dates[2].Changed != int(ids) || len(ev.Columns) != 1 || ev.Columns[0].Column != "URL" || ev.Columns[0].Rows != int(rows) ||
			!strings.Contains(r.stdout, date+" URL: "+itoa(rows)+"; WatchID ") {
			t.Errorf("URL = Referer on %s (%d rows, %d WatchIDs): changed %d, per column %+v", date, rows, ids, ev.Dates[2].Changed, ev.Columns)
		}
		othersOK(t, r.report, "events")
		keys := s.verifyStore(t, password, append(fill, "--columns", "keys")...)
		if keys.code != 0 || !strings.Contains(keys.stdout, "\nOK (keys only, --columns keys: values were not compared): ") {
			t.Errorf("--columns keys: exit %d\n%s", keys.code, lastLines(keys.stdout, 2))
		}
		t.Logf("ALTER TABLE ods.event_rep UPDATE URL = Referer on %s: exit 1 in %v\n%s", date, r.took.Round(time.Millisecond), lastLines(r.stdout, 4))
	})

	t.Run("three titles", func(t *testing.T) {
		ch := s.ch.In(t)
		date := inv.Days[5].Date
		ids := strings.Split(ch.Query("SELECT WatchID FROM ods.event_rep WHERE EventDate = '"+date+"' ORDER BY WatchID LIMIT 3"), "\n")
		where := "WatchID IN (" + strings.Join(ids, ", ") + ")"
		defer keptDay(t, ch, "ods.event_rep", where)()
		mutated(t, ch, "ods.event_rep", "Title = concat(Title, ' (changed)')", where)
		r := s.verifyStore(t, password, fill...)
		mustDiffer(t, r)
		ev := r.report.Events
		if ev.Differences != 3 || len(ev.Columns) != 1 || ev.Columns[0].Column != "Title" || ev.Columns[0].Rows != 3 {
			t.Errorf("three titles: %d differences, per column %+v", ev.Differences, ev.Columns)
		}
		for i, d := range ev.Diffs {
			if itoa(int64(d.WatchID)) != ids[i] || d.Kind != store.KindChanged || d.Columns != "Title" {
				t.Errorf("listed %+v, want WatchID %s changed in Title", d, ids[i])
			}
		}
		othersOK(t, r.report, "events")
	})

	t.Run("a planned WatchID again with another ClientID", func(t *testing.T) {
		ch := s.ch.In(t)
		id := ch.Query("SELECT WatchID FROM ods.event_rep WHERE EventDate = '" + inv.Days[4].Date + "' ORDER BY WatchID LIMIT 1")
		where := "WatchID = " + id
		defer keptDay(t, ch, "ods.event_rep", where)()
		ch.Query("INSERT INTO ods.event_rep SELECT " + columnsOf(ch, "ods.event_rep", map[string]string{"ClientID": "ClientID + 1"}) + " FROM ods.event_rep WHERE " + where)
		r := s.verifyStore(t, password, fill...)
		mustDiffer(t, r)
		if d := r.report.Events.Dates[4]; d.Changed != 1 || d.Copies != 0 || r.report.Events.Diffs[0].Columns != "ClientID" {
			t.Errorf("a second row with another ClientID: %+v %+v", d.EventCounts, r.report.Events.Diffs)
		}
		othersOK(t, r.report, "events")
	})

	t.Run("one event of 1970 beside lost raw rows", func(t *testing.T) {
		ch := s.ch.In(t)
		// On copies: the stand's raw table feeds its views, which a restore would replay.
		date := inv.Days[1].Date
		ch.Query("CREATE DATABASE old")
		defer ch.Query("DROP DATABASE old")
		ch.Query("CREATE TABLE old.clicks AS ods.event_rep")
		ch.Query("INSERT INTO old.clicks SELECT * FROM ods.event_rep")
		ch.Query("CREATE TABLE old.landing AS stg.hits_raw_rep")
		ch.Query("INSERT INTO old.landing SELECT * FROM stg.hits_raw_rep WHERE visitParamExtractString(raw, 'EventDate') != '" + date + "'")
		id := ch.Query("SELECT WatchID FROM old.clicks WHERE EventDate = '" + date + "' LIMIT 1")
		ch.Query("INSERT INTO old.clicks SELECT " + columnsOf(ch, "old.clicks", map[string]string{"_load_ts": "toDateTime(0, 'UTC')"}) + " FROM old.clicks WHERE WatchID = " + id)
		r := s.verifyStore(t, password, append(fill, "--events-table", "old.clicks", "--raw-table", "old.landing")...)
		mustDiffer(t, r)
		u := r.report.Raw.Units[1]
		if u.Expired != 0 || u.Missing != inv.Days[1].Expect.StgRows || strings.Contains(r.stdout, "every planned row present") {
			t.Errorf("day 1's raw rows lost, one event loaded in 1970: %+v", u.DigestCounts)
		}
		othersOK(t, r.report, "raw")
	})

	t.Run("named tables that do not exist", func(t *testing.T) {
		r := s.verifyStore(t, password, "--day", "0", "--days", "1", "--orders-table", "nowhere.tbl")
		mustDiffer(t, r)
		if !strings.Contains(r.stdout, "nowhere.tbl does not exist (--orders-table '' skips it)") {
			t.Errorf("--orders-table nowhere.tbl --day 0:\n%s", r.stdout)
		}
		// The default marts view, which this stand has not, with a closed day.
		ctx, cancel := context.WithTimeout(context.Background(), verifyBound)
		defer cancel()
		file := filepath.Join(t.TempDir(), "verify.json")
		cmd := exec.CommandContext(ctx, buildClickgen(t), append([]string{"verify", "--clickhouse", s.ch.UserURL(), "--report", file, "--day", "0", "--days", "8"}, s.world...)...)
		cmd.Env = append(os.Environ(), "CLICKHOUSE_PASSWORD="+password)
		out, err := cmd.Output()
		if code := exitCodeOf(t, err); code != 1 || !strings.Contains(string(out), "dm.purchase_vs_orders_v does not exist (--marts-view '' skips it)") {
			t.Errorf("the default marts view: exit %d\n%s", code, out)
		}
	})

	t.Run("a Kafka table named", func(t *testing.T) {
		ch := s.ch.In(t)
		// A snapshot the stand has not pulled yet: the refused verify must leave it in Kafka.
		next := s.inventory(t, 0, 9)
		s.run(t, "snapshot", "--day", "8", "--brokers", s.brokers, "--topic", "orders")
		r := s.verifyStore(t, password, append(fill, "--raw-table", "stg.orders_raw_kafka")...)
		if r.code != 2 || !strings.Contains(r.stderr, "--raw-table stg.orders_raw_kafka: its engine is Kafka") || r.stdout != "" {
			t.Fatalf("--raw-table stg.orders_raw_kafka: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		// Had verify read the Kafka table, it would have consumed the snapshot and committed
		// its offsets: the pull would never reach the inventory's rows.
		ch.PullOrdersUntil(int64(next.Expect.Orders.StgRows))
		t.Logf("refused: %s; the next pull loaded every row of snapshot 7 (%d raw rows in all)", strings.TrimSpace(r.stderr), next.Expect.Orders.StgRows)
	})

	t.Run("other names, the next day", func(t *testing.T) {
		ch := s.ch.In(t)
		s.play(t, 8, 1, false)
		next := s.inventory(t, 0, 9)
		day8 := next.Days[8]
		ch.WaitCount("SELECT count() FROM stg.hits_raw_rep WHERE visitParamExtractString(raw, 'EventDate') = '"+day8.Date+"'", int64(day8.Expect.StgRows))
		ch.WaitCount("SELECT uniqExact(WatchID) FROM ods.event_rep WHERE EventDate = '"+day8.Date+"'", int64(*day8.Expect.ODSEvents))
		ch.Query("CREATE DATABASE lake")
		for from, to := range map[string]string{"ods.event_rep": "lake.clicks", "stg.hits_raw_rep": "lake.landing", "ods.event_errors_rep": "lake.rejects",
			"ods.order_rep": "lake.purchases", "ods.order_errors_rep": "lake.purchase_rejects"} {
			ch.Query("CREATE TABLE " + to + " AS " + from)
			ch.Query("INSERT INTO " + to + " SELECT * FROM " + from)
		}
		r := s.verifyStore(t, password, "--day", "0", "--days", "9", "--events-table", "lake.clicks", "--raw-table", "lake.landing",
			"--errors-table", "lake.rejects", "--orders-table", "lake.purchases", "--order-errors-table", "lake.purchase_rejects")
		mustAgree(t, r)
		if r.report.Events.Total.Present != *next.Expect.Hits.ODSEvents || r.report.Orders.Total.Present != *next.Expect.Orders.ODSOrders {
			t.Errorf("days 0…8: events %d of %d, orders %d of %d", r.report.Events.Total.Present, *next.Expect.Hits.ODSEvents,
				r.report.Orders.Total.Present, *next.Expect.Orders.ODSOrders)
		}
		t.Logf("days 0…8 under other names, every value: exit 0 in %v", r.took.Round(time.Millisecond))
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
