package intake_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// Values judged on the stand's own DDL and SQL on the real engine (issue 35): the stand's
// types (LowCardinality(String), DateTime64(3, 'UTC'), Decimal(18, 2), arrays, DateTime) hold
// exactly what verify says the intake stores from each planned message, for the clean world,
// the next day and the garbage profile; and one value of one row changed, in a column of each
// type, is found and named with its date, its key, the held and the planned value.

// mutate runs an ALTER TABLE … UPDATE on the engine and waits for it.
func mutate(t *testing.T, st *standTier, table, set, where string) {
	t.Helper()
	if err := st.s.Exec("ALTER TABLE " + table + " UPDATE " + set + " WHERE " + where + " SETTINGS mutations_sync = 2"); err != nil {
		t.Fatal(err)
	}
}

// oneChanged checks a verify that must find one changed row: its table's only difference,
// in column on date.
func oneChanged(t *testing.T, r verifyRun, table, column, date string) {
	t.Helper()
	rep := r.report
	var cols []string
	var diffs int
	switch table {
	case "events":
		for _, c := range rep.Events.Columns {
			cols = append(cols, c.Column+"@"+c.Date+fmt.Sprintf("×%d", c.Rows))
		}
		diffs = rep.Events.Differences
	case "orders":
		for _, c := range rep.Orders.Columns {
			cols = append(cols, c.Column+"@"+c.Date+fmt.Sprintf("×%d", c.Rows))
		}
		diffs = rep.Orders.Differences
	}
	want := column + "@" + date + "×1"
	if r.code != 1 || diffs != 1 || len(cols) != 1 || cols[0] != want || !strings.Contains(r.stdout, date+" "+column+": 1; ") {
		t.Fatalf("%s %s changed on %s: exit %d, %d differences, per column %v; want exactly %s\n%s", table, column, date, r.code, diffs, cols, want, tail(r.stdout, 30))
	}
	t.Logf("%s %s changed: %s", table, column, strings.TrimSpace(r.stdout[strings.Index(r.stdout, date+" "+column+": 1; "):][:min(300, len(r.stdout)-strings.Index(r.stdout, date+" "+column+": 1; "))]))
}

// changedValues runs on the fill world, filled and verified exact by TestStoreVerifyFill:
// one value changed in one row of each kind of column (LowCardinality, DateTime, an array of
// strings, an array of Float64 in the events; DateTime64(3) and Decimal(18, 2) in the
// orders) is a difference naming that column, and only it; restored, exact again.
func changedValues(t *testing.T, st *standTier, bin, url string) {
	s := st.s
	// Days 6 and 7, snapshots 5 and 6 (the engine merged the older versions away): the rows
	// changed below are theirs.
	window := []string{"--day", "6", "--days", "2"}
	day6 := world.DayDate(6).String()
	watchID := tsv(t, s, "SELECT WatchID FROM ods.event_rep WHERE EventDate = '"+day6+"' AND EventType = 'purchase' ORDER BY WatchID LIMIT 1")[0][0]
	order := tsv(t, s, "SELECT order_id FROM ods.order_rep WHERE snapshot_date = '"+day6+"' ORDER BY order_id LIMIT 1")[0][0]
	event, version := "WatchID = "+watchID, "order_id = '"+order+"' AND snapshot_date = '"+day6+"'"
	for _, c := range []struct {
		table, column, set, undo, where string
	}{
		{"ods.event_rep", "EventType", "EventType = 'pageview'", "EventType = 'purchase'", event},
		{"ods.event_rep", "UTCEventTime", "UTCEventTime = UTCEventTime + 1", "UTCEventTime = UTCEventTime - 1", event},
		{"ods.event_rep", "productID", "productID = arrayPushBack(productID, 'X')", "productID = arrayPopBack(productID)", event},
		{"ods.event_rep", "purchaseRevenue", "purchaseRevenue = arrayMap(x -> x * 2, purchaseRevenue)", "purchaseRevenue = arrayMap(x -> x / 2, purchaseRevenue)", event},
		{"ods.order_rep", "updated_at", "updated_at = updated_at + toIntervalMillisecond(1)", "updated_at = updated_at - toIntervalMillisecond(1)", version},
		{"ods.order_rep", "total", "total = total + toDecimal64(0.01, 2)", "total = total - toDecimal64(0.01, 2)", version},
	} {
		t.Run(c.column, func(t *testing.T) {
			mutate(t, st, c.table, c.set, c.where)
			r := runVerify(t, bin, url, frontPassword, window...)
			mutate(t, st, c.table, c.undo, c.where)
			table := "events"
			if c.table == "ods.order_rep" {
				table = "orders"
			}
			oneChanged(t, r, table, c.column, day6)
			if r.code != 1 {
				return
			}
			again := runVerify(t, bin, url, frontPassword, window...)
			if again.code != 0 {
				t.Fatalf("%s restored: exit %d\n%s", c.column, again.code, tail(again.stdout, 20))
			}
		})
	}
}

// nextDay runs last on the fill world of TestStoreVerifyFill: the next day played and pulled,
// verified over the whole range with every value, exact.
func nextDay(t *testing.T, st *standTier, w *world.World, bin, brokers, url string) {
	next, err := w.Inventory(context.Background(), world.Range{From: 0, Days: 9}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The raw table already holds the copies of a replayed day, so its total passes the
	// inventory's before day 8 is in: wait for day 8's own rows, then verify.
	before, err := strconv.Atoi(tsv(t, st.s, "SELECT count() FROM "+st.hits.RawTable())[0][0])
	if err != nil {
		t.Fatal(err)
	}
	clickgen(t, bin, append([]string{"batch", "--day", "8", "--brokers", brokers, "--topic", "hits"}, storeWorld...)...)
	clickgen(t, bin, append([]string{"snapshot", "--day", "8", "--brokers", brokers, "--topic", "orders"}, storeWorld...)...)
	st.awaitRaw(t, before+next.Days[8].Expect.StgRows)
	st.pullOrders(t, next.Expect.Orders.StgRows)
	r := runVerify(t, bin, url, frontPassword, "--day", "0", "--days", "9", "--wait", "3m")
	if r.code != 0 || r.report.Events.Total.Present != *next.Expect.Hits.ODSEvents || r.report.Orders.Total.Present != *next.Expect.Orders.ODSOrders {
		t.Fatalf("days 0…8: exit %d\n%s\n%s", r.code, tail(r.stdout, 30), r.stderr)
	}
	t.Logf("days 0…8, every value: exit 0 in %v", r.took)
}

// garbageValues runs on the garbage profile's day, filled and verified exact by
// TestStoreVerifyGarbage: the accepted_bad rows hold what verify says the lenient intake
// stores (an id read from a string or a fraction, an impossible date rolled over, a column of
// the wrong type as its default), and one value changed in one of them is found and named;
// the row is then restored as it was.
func garbageValues(t *testing.T, st *standTier, bin, url string, args []string) {
	s := st.s
	// An accepted_bad row of the wrong-type kind: a column the intake read as its default.
	rows := tsv(t, s, "SELECT WatchID, Title FROM ods.event_rep WHERE ClientTimeZone = 0 OR Sign = 0 OR ScreenWidth = 0 ORDER BY WatchID LIMIT 1")
	if len(rows) == 0 {
		t.Fatal("no accepted_bad row of a column of the wrong type in the store")
	}
	event, title := "WatchID = "+rows[0][0], rows[0][1]
	mutate(t, st, "ods.event_rep", "Title = concat(Title, '!')", event)
	r := runVerify(t, bin, url, frontPassword, args...)
	mutate(t, st, "ods.event_rep", "Title = substring(Title, 1, length(Title) - 1)", event)
	oneChanged(t, r, "events", "Title", world.DayDate(1).String())
	if got := tsv(t, s, "SELECT Title FROM ods.event_rep WHERE "+event)[0][0]; got != title {
		t.Fatalf("WatchID %s restored with Title %q, was %q", rows[0][0], got, title)
	}
}
