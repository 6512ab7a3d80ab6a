package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
	"github.com/clickgen/clickgen/internal/tier/realkafka"
)

// realStand is the stand's ingestion on real components: one Kafka node with topics hits (2
// partitions) and orders (1), and a ClickHouse server whose pipeline reads them.
type realStand struct {
	kafka   *realkafka.Cluster
	ch      *realclickhouse.Server
	brokers string
	bin     string // the built command, which verifyCmd runs
	// world holds the flags that choose the stand's world, added to every command the stand
	// runs (play, inventory, verify, run): nil is the stand's own, judgedWorld a tenth of it.
	world []string
}

// judgedWorld is the world of the tests that judge verify's findings or the stand's SQL on a
// real store: a tenth of the fill world (--scale 0.1: 40,715 hits and 612 order rows over the
// same eight days, every class and fault as in the whole). What they check is how verify
// reads and names what a store holds, and that every table counts what the inventory says,
// neither of which grows with the rows; ClickHouse's intake of the whole world is judged
// where it is the point (TestRealClusterFill on two shards, the documentation's recipe on
// one server), and a tenth takes a tenth of the CPU the test tiers share.
var judgedWorld = []string{"--scale", strconv.FormatFloat(judgedScale, 'g', -1, 64)}

// judgedScale is judgedWorld's scale.
const judgedScale = 0.1

// run runs the built command with args and the stand's world flags, failing the test on a
// non-zero exit.
func (s *realStand) run(t *testing.T, args ...string) (string, string) {
	t.Helper()
	return mustRun(t, append(slices.Clone(args), s.world...)...)
}

// startRealStand starts Kafka and ClickHouse, creates the topics, lays out the pipeline and
// makes clickgen run as the built command.
func startRealStand(t *testing.T) *realStand {
	t.Helper()
	start := time.Now()
	k := realkafka.Start(t, 1)
	t.Logf("Kafka node up in %v", time.Since(start).Round(time.Millisecond))
	resetTopics(t, k.Bootstrap(), standTopics)
	start = time.Now()
	ch := realclickhouse.Start(t, realclickhouse.Options{})
	t.Logf("ClickHouse %s up in %v at %s", ch.Query("SELECT version()"), time.Since(start).Round(time.Millisecond), ch.URL())
	start = time.Now()
	ch.ApplyDDL(k.Bootstrap(), realclickhouse.Topics{})
	t.Logf("stand DDL applied in %v", time.Since(start).Round(time.Millisecond))
	return &realStand{kafka: k, ch: ch, brokers: k.Bootstrap(), bin: buildClickgen(t)}
}

// inventory is `clickgen inventory --day from --days n`.
func (s *realStand) inventory(t *testing.T, from, n int) *world.Inventory {
	t.Helper()
	out, _ := s.run(t, "inventory", "--day", strconv.Itoa(from), "--days", strconv.Itoa(n))
	var inv world.Inventory
	if err := json.Unmarshal([]byte(out), &inv); err != nil {
		t.Fatalf("inventory: %v", err)
	}
	return &inv
}

// play sends `batch --day from --days n` to hits and, with snapshots, `snapshot --day from
// --days n` to orders.
func (s *realStand) play(t *testing.T, from, n int, snapshots bool) {
	t.Helper()
	s.run(t, "batch", "--day", strconv.Itoa(from), "--days", strconv.Itoa(n), "--brokers", s.brokers, "--topic", "hits")
	if snapshots {
		s.run(t, "snapshot", "--day", strconv.Itoa(from), "--days", strconv.Itoa(n), "--brokers", s.brokers, "--topic", "orders")
	}
}

// fillRealStand plays the stand's starting world of the world flags given (nil: the stand's
// own; hits of days 0…7, snapshots of days 0…6), waits until ClickHouse has consumed the hits
// and pulled the orders, and returns the stand and the world's inventory.
func fillRealStand(t *testing.T, worldFlags []string) (*realStand, *world.Inventory) {
	t.Helper()
	s := startRealStand(t)
	s.world = worldFlags
	inv := s.inventory(t, 0, 8)
	start := time.Now()
	s.play(t, 0, 8, true)
	played := time.Since(start)
	s.ch.WaitRows("ods.event_rep", int64(*inv.Expect.Hits.ODSEvents))
	t.Logf("fill world: played in %v, its %d events in ods.event %v after the first was sent",
		played.Round(time.Millisecond), *inv.Expect.Hits.ODSEvents, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	s.ch.PullOrdersUntil(int64(inv.Expect.Orders.StgRows))
	t.Logf("orders pulled in %v", time.Since(start).Round(time.Millisecond))
	return s, inv
}

// eventsPerDate is ods.event_v (the FINAL view) per EventDate: "date rows distinct-WatchIDs".
func (s *realStand) eventsPerDate(t *testing.T) map[string]string {
	t.Helper()
	return rowsByFirst(s.ch.Query("SELECT toString(EventDate), count(), uniqExact(WatchID) FROM ods.event_v GROUP BY EventDate ORDER BY EventDate"))
}

// rowsByFirst maps each TabSeparated line's first field to the rest of the line.
func rowsByFirst(out string) map[string]string {
	m := map[string]string{}
	for line := range strings.SplitSeq(out, "\n") {
		if k, v, ok := strings.Cut(line, "\t"); ok {
			m[k] = v
		}
	}
	return m
}

// wantEventsPerDate is the inventory's accepted events per date, spelled as eventsPerDate.
func wantEventsPerDate(inv *world.Inventory) map[string]string {
	m := map[string]string{}
	for _, d := range inv.Days {
		n := *d.Expect.ODSEvents
		m[d.Date] = fmt.Sprintf("%d\t%d", n, n)
	}
	return m
}

// sameRows fails t unless got and want hold the same lines.
func sameRows(t *testing.T, what string, got, want map[string]string) {
	t.Helper()
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s %s: %q, want %q", what, k, got[k], w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s %s: %q, want nothing", what, k, g)
		}
	}
}

// TestRealClickHouse plays the fill world (judgedWorld's tenth) through real Kafka into the
// real server's pipeline, checks every table against the inventory with SQL, then plays each
// fault helper once: a frozen server, a date deleted, a row inserted, the server killed while
// it consumes two whole days of the stand's own world and started again.
func TestRealClickHouse(t *testing.T) {
	t.Parallel() // its own servers: it waits on them beside the other real tiers
	s, inv := fillRealStand(t, judgedWorld)
	ch := s.ch

	// Hits: every message one raw row, every event once in ODS under its date, no error.
	if got, want := ch.Count("stg.hits_raw_rep", false), int64(inv.Expect.Hits.StgRows); got != want {
		t.Errorf("stg.hits_raw_rep: %d rows, want %d (one per message)", got, want)
	}
	if got, want := ch.Count("ods.event_dist", true), int64(*inv.Expect.Hits.ODSEvents); got != want {
		t.Errorf("ods.event_dist FINAL: %d rows, want %d", got, want)
	}
	if got := ch.Count("ods.event_errors_dist", false); got != 0 {
		t.Errorf("ods.event_errors_dist: %d rows, want none for the clean world", got)
	}
	sameRows(t, "ods.event_v on", s.eventsPerDate(t), wantEventsPerDate(inv))

	// Orders: every snapshot row one version under its snapshot_date, one current row per order.
	wantVersions := map[string]string{}
	for _, sn := range inv.Snapshots {
		wantVersions[sn.Date] = strconv.Itoa(sn.Expect.StgRows)
	}
	sameRows(t, "ods.order_dist versions of snapshot_date",
		rowsByFirst(ch.Query("SELECT toString(snapshot_date), count() FROM ods.order_dist GROUP BY snapshot_date ORDER BY snapshot_date")), wantVersions)
	if got, want := ch.Count("ods.order_v", false), int64(*inv.Expect.Orders.ODSOrders); got != want {
		t.Errorf("ods.order_v: %d orders, want %d", got, want)
	}
	if got, want := ch.Count("stg.orders_raw_rep", false), int64(inv.Expect.Orders.StgRows); got != want {
		t.Errorf("stg.orders_raw_rep: %d rows, want %d", got, want)
	}
	if got := ch.Count("ods.order_errors_dist", false); got != 0 {
		t.Errorf("ods.order_errors_dist: %d rows, want none for the clean world", got)
	}
	if t.Failed() {
		t.FailNow()
	}

	// A frozen server answers nothing until it is resumed.
	ch.Pause()
	pausedAt := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	_, err := ch.QueryContext(ctx, "SELECT 1")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a paused server: %v, want no answer before the request's deadline", err)
	}
	ch.Resume()
	if got := ch.Query("SELECT 1"); got != "1" {
		t.Errorf("after Resume: %q", got)
	}
	t.Logf("paused for %v", time.Since(pausedAt).Round(time.Millisecond))

	// One date deleted: exactly its rows go.
	want := wantEventsPerDate(inv)
	gone := inv.Days[2].Date
	ch.DeleteDay("ods.event_rep", gone)
	delete(want, gone)
	sameRows(t, "after DeleteDay("+gone+"), ods.event_v on", s.eventsPerDate(t), want)

	// An unplanned row inserted: one more row on its date.
	ch.Insert("ods.event_rep", `{"WatchID":1,"ClientID":2,"EventDate":"`+inv.Days[3].Date+`","CounterID":42150607}`)
	n := *inv.Days[3].Expect.ODSEvents + 1
	want[inv.Days[3].Date] = fmt.Sprintf("%d\t%d", n, n)
	sameRows(t, "after Insert, ods.event_v on", s.eventsPerDate(t), want)

	// Killed while it consumes two new days, started again: it consumes them to the end. A
	// block written before the kill has no committed offsets and is read again (raw rows twice,
	// ODS once). The days are the stand's own world's (about 100,000 messages, not the tenth's
	// 10,000): the kill must find more than the one block (65,536 messages) it waits for.
	s = &realStand{kafka: s.kafka, ch: s.ch, brokers: s.brokers, bin: s.bin}
	next := s.inventory(t, 8, 2)
	rawBefore := ch.Count("stg.hits_raw_rep", false)
	s.play(t, 8, 2, false)
	ch.WaitRows("stg.hits_raw_rep", rawBefore+1)
	ch.Kill()
	start := time.Now()
	ch.Restart()
	t.Logf("restarted in %v", time.Since(start).Round(time.Millisecond))
	ch.WaitCount("SELECT count() FROM ods.event_v WHERE EventDate >= '"+next.Days[0].Date+"'", int64(*next.Expect.Hits.ODSEvents))
	t.Logf("days 8 and 9 in ods.event %v after the restart", time.Since(start).Round(time.Millisecond))
	for _, d := range next.Days {
		n := *d.Expect.ODSEvents
		want[d.Date] = fmt.Sprintf("%d\t%d", n, n)
	}
	sameRows(t, "after the kill and restart, ods.event_v on", s.eventsPerDate(t), want)
	raw := ch.Count("stg.hits_raw_rep", false) - rawBefore
	if raw < int64(next.Expect.Hits.StgRows) {
		t.Errorf("stg.hits_raw_rep grew by %d rows over the kill, want at least the %d messages sent", raw, next.Expect.Hits.StgRows)
	}
	t.Logf("over the kill: %d messages sent, %d raw rows (%d read twice)", next.Expect.Hits.StgRows, raw, raw-int64(next.Expect.Hits.StgRows))
}
