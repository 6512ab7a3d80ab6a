package store_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
)

// lakeTables are the tables of this test's store: the stand's layout on 18.16
// (.ci/clickhouse/ddl) under names that are not the stand's, so nothing in verify can lean on
// the stand's names.
var lakeTables = store.Tables{
	Events: "lake.clicks", Raw: "lake.clicks_landing", Errors: "lake.click_rejects",
	Orders: "lake.purchases", OrderErrors: "lake.purchase_rejects", Marts: "lake.reconciliation",
}

// renamed is the stand's table names in .ci/clickhouse's SQL and this test's.
var renamed = strings.NewReplacer(
	"ods.event_rep", "lake.clicks", "ods.event_dist", "lake.clicks", "stg.hits_raw_rep", "lake.clicks_landing",
	"ods.event_errors_rep", "lake.click_rejects", "ods.event_errors_dist", "lake.click_rejects",
	"ods.order_rep", "lake.purchases", "ods.order_dist", "lake.purchases_dist",
	"ods.order_errors_rep", "lake.purchase_rejects", "ods.order_errors_dist", "lake.purchase_rejects_dist",
	"stg.orders_raw_rep", "lake.order_landing", "stg.orders_raw_dist", "lake.order_landing_dist",
	"'ods', 'order_rep'", "'lake', 'purchases'", "'ods', 'order_errors_rep'", "'lake', 'purchase_rejects'",
	"'stg', 'orders_raw_rep'", "'lake', 'order_landing'",
	"{{load_id}}", "run")

// ciSQL returns the statements of .ci/clickhouse's file name (ddl/… or pull/…).
func ciSQL(t *testing.T, name string) []string {
	t.Helper()
	script, err := realclickhouse.Script()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(script), name))
	if err != nil {
		t.Fatal(err)
	}
	return realclickhouse.Statements(string(b))
}

// lakeRun is the run of these tests: eight days at scale 0.05, with non-object garbage (which
// the 18.16 stand's intake classifies as the stand's does) and redeliveries, and the
// snapshots of days 0…6 with theirs: day 0 closes.
var lakeRun = store.Range{From: 0, Days: 8, Garbage: world.Garbage{Rate: 0.02, Redeliver: 0.01, Mix: map[string]int{world.GarbageNotAnObject: 1}}}

// fillLake lays the stand's tables out under the lake's names and fills them the way the 18.16
// stand does, by its own SQL: the raw messages of the run into the landing tables, then the
// stand's parse (its materialized views' SELECTs, its orders load) into the typed and error
// tables. The server parses the messages: verify's model of what the intake stores is not
// used to fill the store. Marts get the inventory's class counts of the closed days.
func fillLake(t *testing.T, srv *realclickhouse.Server, w *world.World, loadTS uint32) {
	t.Helper()
	srv.Query("CREATE DATABASE lake")
	for _, file := range []string{"ddl/10-stg-tables.sql", "ddl/20-ods-tables.sql"} {
		for _, stmt := range ciSQL(t, file) {
			// The tables, and the Distributed faces the orders load reads and writes through
			// (18.16 runs its SELECT over a MergeTree table only with a std::bad_typeid).
			if strings.HasPrefix(stmt, "CREATE TABLE") && !strings.Contains(stmt, "ENGINE = Kafka") &&
				(!strings.Contains(stmt, "Distributed(") || strings.Contains(stmt, "'order")) {
				srv.Query(renamed.Replace(stmt))
			}
		}
	}
	srv.Query("CREATE TABLE lake.reconciliation (order_day Date, order_id String, mismatch_class String) ENGINE = MergeTree ORDER BY (order_day, order_id)")
	// The stand's parse views, on the landing table (18.16 runs the same SELECT over a
	// MergeTree table only with a std::bad_typeid).
	for _, stmt := range ciSQL(t, "ddl/30-ods-views.sql") {
		if strings.Contains(stmt, "MATERIALIZED VIEW") {
			srv.Query(strings.Replace(renamed.Replace(stmt), " ods.", " lake.", 1))
		}
	}
	var hits, orders []byte
	str := func(b []byte, s []byte) []byte { return append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	for u, err := range w.Units(context.Background(), lakeRun, world.UnitOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		var msgs [][]byte
		for b := range u.Batches() {
			for i := range b.Msgs {
				msgs = append(msgs, bytes.Clone(b.Value(i)))
			}
			b.Release()
		}
		for _, x := range u.Extras {
			if len(x.Value) > 0 {
				msgs = append(msgs, x.Value)
			}
		}
		for _, m := range msgs {
			if u.Kind == world.HitsUnit {
				hits = binary.LittleEndian.AppendUint32(str(str(str(hits, m), []byte("hits")), []byte("test")), loadTS)
			} else {
				orders = binary.LittleEndian.AppendUint32(str(str(str(str(orders, m), []byte("orders")), []byte("test")), []byte("run")), loadTS)
			}
		}
	}
	srv.InsertData("lake.clicks_landing", "RowBinary", bytes.NewReader(hits))
	srv.InsertData("lake.order_landing", "RowBinary", bytes.NewReader(orders))
	for _, stmt := range ciSQL(t, "pull/20-orders-load.sql") {
		srv.Query(renamed.Replace(stmt))
	}
	inv, err := w.Inventory(context.Background(), lakeRun, 0)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, n := range inv.Expect.Orders.ODSErrors {
		refused += n
	}
	srv.WaitCount("SELECT count() FROM lake.purchase_rejects", int64(refused))
	srv.WaitCount("SELECT count() FROM lake.purchases", int64(inv.Expect.Orders.StgRows-refused))
	var marts []byte
	for _, d := range world.ClosedDays(lakeRun.From, lakeRun.Days) {
		o := inv.Days[d-lakeRun.From].Orders
		for c, n := range map[string]int{world.ClassMatch: o.Match, world.ClassCancelled: o.Cancelled, world.ClassLostEvent: o.LostEvent,
			world.ClassDuplicateEvent: o.DuplicateEvent, world.ClassAmountDelta: o.AmountDelta} {
			for k := range n {
				marts = binary.LittleEndian.AppendUint16(marts, uint16(world.DayDate(d)))
				marts = str(str(marts, fmt.Appendf(nil, "%s-%d", c, k)), []byte(c))
			}
		}
	}
	srv.InsertData("lake.reconciliation", "RowBinary", bytes.NewReader(marts))
}

// TestServer1816Values: the 18.16 stand's layout and SQL under other names, filled by the
// server's own parse of the run's messages, judged value by value by Verify: exact; then each
// way a store fooled verify before issue 35, found and named: a column rewritten on a whole
// day, three titles changed, a wrong row beside a right one, an error row under two classes,
// one old load time, a table that does not exist, a Kafka table and a view and a Distributed
// table over one (refused with no SELECT on them, as the server's query_log shows), a column
// of the wrong type.
func TestServer1816Values(t *testing.T) {
	server := realclickhouse.Start(t, realclickhouse.Options{})
	w, err := world.NewWorld(world.Params{Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	fillLake(t, server, w, uint32(now-120))
	c, err := clickhouse.New(server.URL()+"?log_queries=1", clickhouse.User(realclickhouse.User), clickhouse.Password(server.Password()))
	if err != nil {
		t.Fatal(err)
	}
	src := &store.ClickHouse{Client: c}
	check := func(t *testing.T, r store.Range, opt store.Options) (*store.Result, error) {
		t.Helper()
		if opt.Tables == (store.Tables{}) {
			opt.Tables = lakeTables
		}
		return store.Verify(context.Background(), w, r, src, opt)
	}
	mustCheck := func(t *testing.T, opt store.Options) *store.Result {
		t.Helper()
		res, err := check(t, lakeRun, opt)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	dayDate := func(d int) string { return world.DayDate(d).String() }

	t.Run("exact", func(t *testing.T) {
		res := mustCheck(t, store.Options{})
		out := table(t, res)
		if !res.OK || len(res.Events.Judged) != 47 || len(res.Orders.Judged) != 11 || res.Errors.Total.Present == 0 || res.OrderErrors.Total.Present == 0 {
			t.Fatalf("the exact store: OK %v, judged %d event and %d order columns\n%s", res.OK, len(res.Events.Judged), len(res.Orders.Judged), out)
		}
		t.Logf("\n%s", out)
	})

	t.Run("a column rewritten on a day", func(t *testing.T) {
		srv := server.In(t)
		date := dayDate(2)
		differ := srv.Int("SELECT count() FROM lake.clicks WHERE EventDate = '" + date + "' AND URL != Referer")
		ids := srv.Int("SELECT uniqExact(WatchID) FROM lake.clicks WHERE EventDate = '" + date + "' AND URL != Referer")
		srv.Query("CREATE TABLE lake.clicks_kept AS lake.clicks")
		srv.Query("INSERT INTO lake.clicks_kept SELECT * FROM lake.clicks WHERE EventDate = '" + date + "'")
		srv.Query("ALTER TABLE lake.clicks UPDATE URL = Referer WHERE EventDate = '" + date + "'")
		srv.WaitCount("SELECT count() = 0 FROM system.mutations WHERE database = 'lake' AND table = 'clicks' AND is_done = 0", 1)
		defer func() {
			srv.DeleteWhere("lake.clicks", "EventDate = '"+date+"'")
			srv.Query("INSERT INTO lake.clicks SELECT * FROM lake.clicks_kept")
			srv.Query("DROP TABLE lake.clicks_kept")
		}()
		res := mustCheck(t, store.Options{})
		ev := res.Events
		if res.OK || differ == 0 || ev.Dates[2].Changed != int(ids) || len(ev.Columns) != 1 || ev.Columns[0].Column != "URL" ||
			ev.Columns[0].Date != date || ev.Columns[0].Rows != int(differ) {
			t.Fatalf("URL = Referer on %s (%d rows of %d WatchIDs differ): changed %d, columns %+v\n%s", date, differ, ids, ev.Dates[2].Changed, ev.Columns, table(t, res))
		}
		onlyFailingLake(t, res, "events")
		keys := mustCheck(t, store.Options{Columns: store.ColumnsKeys})
		if !keys.OK || !strings.Contains(keys.Verdict(), "--columns keys") {
			t.Errorf("--columns keys: %s", keys.Verdict())
		}
		t.Logf("URL = Referer on %s: %d rows changed, e.g. %+v", date, ev.Columns[0].Rows, ev.Columns[0].Examples[0])
	})

	t.Run("three titles changed", func(t *testing.T) {
		srv := server.In(t)
		ids := strings.Split(srv.Query("SELECT WatchID FROM lake.clicks WHERE EventDate = '"+dayDate(5)+"' ORDER BY WatchID LIMIT 3"), "\n")
		in := strings.Join(ids, ", ")
		srv.Query("ALTER TABLE lake.clicks UPDATE Title = concat(Title, '!') WHERE WatchID IN (" + in + ")")
		srv.WaitCount("SELECT count() = 0 FROM system.mutations WHERE database = 'lake' AND table = 'clicks' AND is_done = 0", 1)
		defer func() {
			srv.Query("ALTER TABLE lake.clicks UPDATE Title = substring(Title, 1, length(Title) - 1) WHERE WatchID IN (" + in + ")")
			srv.WaitCount("SELECT count() = 0 FROM system.mutations WHERE database = 'lake' AND table = 'clicks' AND is_done = 0", 1)
		}()
		res := mustCheck(t, store.Options{})
		ev := res.Events
		if res.OK || ev.Differences != 3 || len(ev.Columns) != 1 || ev.Columns[0].Column != "Title" || ev.Columns[0].Rows != 3 {
			t.Fatalf("three titles: %+v %+v", ev.Columns, ev.Diffs)
		}
		for i, d := range ev.Diffs {
			if strconv.FormatUint(d.WatchID, 10) != ids[i] || d.Kind != store.KindChanged || d.Columns != "Title" {
				t.Errorf("listed %+v, want WatchID %s changed in Title", d, ids[i])
			}
		}
		ex := ev.Columns[0].Examples[0]
		if ex.Held != strings.TrimSuffix(ex.Planned, `"`)+`!"` {
			t.Errorf("example %+v: want the planned title with a ! held", ex)
		}
	})

	t.Run("a wrong row beside the right one", func(t *testing.T) {
		srv := server.In(t)
		id := srv.Query("SELECT WatchID FROM lake.clicks WHERE EventDate = '" + dayDate(4) + "' ORDER BY WatchID LIMIT 1")
		srv.Query("INSERT INTO lake.clicks " + selectWith(t, srv, "lake.clicks", map[string]string{"ClientID": "ClientID + 1"}) + " WHERE WatchID = " + id)
		defer srv.DeleteWhere("lake.clicks", "WatchID = "+id+" AND ClientID IN (SELECT max(ClientID) FROM lake.clicks WHERE WatchID = "+id+")")
		if n := srv.Int("SELECT uniqExact(ClientID) FROM lake.clicks WHERE WatchID = " + id); n != 2 {
			t.Fatalf("the second row: %d ClientIDs, want 2", n)
		}
		res := mustCheck(t, store.Options{})
		if d := res.Events.Dates[4]; res.OK || d.Changed != 1 || res.Events.Diffs[0].Columns != "ClientID" {
			t.Fatalf("a second row with another ClientID: %+v %+v", d.EventCounts, res.Events.Diffs)
		}
	})

	t.Run("an error row under two classes", func(t *testing.T) {
		srv := server.In(t)
		raw := srv.Query("SELECT sipHash64(raw) FROM lake.click_rejects ORDER BY sipHash64(raw) LIMIT 1")
		srv.Query("INSERT INTO lake.click_rejects SELECT raw, 'keyset_mismatch', kafka_topic, consumer_host, _load_ts FROM lake.click_rejects WHERE sipHash64(raw) = " + raw)
		defer srv.DeleteWhere("lake.click_rejects", "sipHash64(raw) = "+raw+" AND error_class = 'keyset_mismatch'")
		res := mustCheck(t, store.Options{})
		if res.OK || res.Errors.Total.Misclassified != 1 || res.Errors.Total.Copies != 0 {
			t.Fatalf("an error row also under keyset_mismatch: %+v", res.Errors.Total)
		}
		onlyFailingLake(t, res, "errors")
	})

	t.Run("one old load time", func(t *testing.T) {
		srv := server.In(t)
		date := dayDate(1)
		id := srv.Query("SELECT WatchID FROM lake.clicks WHERE EventDate = '" + date + "' LIMIT 1")
		srv.Query("CREATE TABLE lake.landing_kept AS lake.clicks_landing")
		srv.Query("INSERT INTO lake.landing_kept SELECT * FROM lake.clicks_landing WHERE visitParamExtractString(raw, 'EventDate') = '" + date + "'")
		srv.DeleteWhere("lake.clicks_landing", "visitParamExtractString(raw, 'EventDate') = '"+date+"'")
		// A copy of one event, loaded in 1970.
		srv.Query("INSERT INTO lake.clicks " + selectWith(t, srv, "lake.clicks", map[string]string{"_load_ts": "toDateTime(0, 'UTC')"}) + " WHERE WatchID = " + id)
		defer func() {
			srv.DeleteWhere("lake.clicks", "WatchID = "+id+" AND _load_ts = toDateTime(0, 'UTC')")
			srv.Query("INSERT INTO lake.clicks_landing SELECT * FROM lake.landing_kept")
			srv.Query("DROP TABLE lake.landing_kept")
		}()
		res := mustCheck(t, store.Options{})
		u := res.Raw.Units[1]
		if res.OK || u.Expired != 0 || u.Missing < u.Planned*9/10 || strings.Contains(table(t, res), "retention not judged") {
			t.Fatalf("day 1's raw rows deleted, one event of 1970: OK %v, %+v", res.OK, u.DigestCounts)
		}
	})

	t.Run("named tables that do not exist", func(t *testing.T) {
		tables := lakeTables
		tables.Orders, tables.Marts = "nowhere.tbl", "lake.no_view"
		res, err := check(t, store.Range{From: 0, Days: 1}, store.Options{Tables: tables})
		if err != nil {
			t.Fatal(err)
		}
		out := table(t, res)
		if res.OK || !strings.Contains(out, "nowhere.tbl does not exist (--orders-table '' skips it)") ||
			!strings.Contains(out, "lake.no_view does not exist (--marts-view '' skips it)") {
			t.Fatalf("day 0, no orders planned, tables missing:\n%s", out)
		}
	})

	t.Run("stream tables refused before any read", func(t *testing.T) {
		srv := server.In(t)
		// query_log counts seconds: the refused runs start in a second of their own.
		since := srv.Query("SELECT toString(now() + 1)")
		time.Sleep(1100 * time.Millisecond)
		srv.Query("CREATE TABLE lake.orders_kafka (raw String) ENGINE = Kafka SETTINGS kafka_broker_list = '127.0.0.1:1', kafka_topic_list = 'orders', kafka_group_name = 'g', kafka_format = 'CSV'")
		srv.Query("CREATE VIEW lake.orders_over_kafka AS SELECT raw FROM lake.orders_kafka")
		srv.Query("CREATE TABLE lake.orders_spread AS lake.orders_kafka ENGINE = Distributed('clickstream_cluster', 'lake', 'orders_kafka', rand())")
		for _, name := range []string{"lake.orders_kafka", "lake.orders_over_kafka", "lake.orders_spread"} {
			tables := lakeTables
			tables.Raw = name
			res, err := check(t, lakeRun, store.Options{Tables: tables})
			var ce *store.ConsumesError
			if res != nil || !errors.As(err, &ce) || ce.Role != store.RoleRaw || !strings.Contains(err.Error(), "Kafka") {
				t.Fatalf("--raw-table %s: %v, %v; want a refusal naming the engine", name, res != nil, err)
			}
			t.Logf("--raw-table %s: %v", name, err)
		}
		srv.Query("SYSTEM FLUSH LOGS")
		probes := srv.Int("SELECT count() FROM system.query_log WHERE user = '" + realclickhouse.User + "' AND event_time >= toDateTime('" + since + "') AND query LIKE '%system.tables%'")
		reads := srv.Query("SELECT query FROM system.query_log WHERE user = '" + realclickhouse.User + "' AND event_time >= toDateTime('" + since + "') AND query LIKE '%`lake`.%'")
		if probes == 0 || reads != "" {
			t.Errorf("the refused runs: %d probes of system.tables (want some), and read:\n%s", probes, reads)
		}
	})

	t.Run("a key column of another type", func(t *testing.T) {
		srv := server.In(t)
		srv.Query("CREATE TABLE lake.purchases_by_number (order_id UInt64, snapshot_date Date) ENGINE = MergeTree ORDER BY order_id")
		tables := lakeTables
		tables.Orders = "lake.purchases_by_number"
		res, err := check(t, lakeRun, store.Options{Tables: tables})
		if err != nil {
			t.Fatal(err)
		}
		if res.OK || !strings.Contains(res.Orders.Error, "column order_id is UInt64; verify reads it as a String") {
			t.Fatalf("order_id UInt64: %q", res.Orders.Error)
		}
	})
}

// selectWith is SELECT of table's columns in their order, with the expressions of with in
// place of the columns they name (18.16 has no SELECT * REPLACE).
func selectWith(t *testing.T, srv *realclickhouse.Server, table string, with map[string]string) string {
	t.Helper()
	db, name, _ := strings.Cut(table, ".")
	cols := strings.Split(srv.Query("SELECT name FROM system.columns WHERE database = '"+db+"' AND table = '"+name+"'"), "\n")
	for i, c := range cols {
		if e, ok := with[c]; ok {
			cols[i] = e + " AS " + c
		}
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + table
}

// onlyFailingLake checks that the table named is the only one that differs.
func onlyFailingLake(t *testing.T, res *store.Result, name string) {
	t.Helper()
	for n, ok := range map[string]bool{"events": res.Events.OK, "raw": res.Raw.OK, "errors": res.Errors.OK, "orders": res.Orders.OK,
		"order errors": res.OrderErrors.OK, "marts": res.Marts.OK} {
		if ok == (n == name) {
			t.Errorf("table %s: OK %v", n, ok)
		}
	}
}
