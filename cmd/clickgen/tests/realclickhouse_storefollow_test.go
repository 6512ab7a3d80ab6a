package tests

// Freshness until queryable on real components: the built command plays into real Apache
// Kafka 4.3.1, the stand's pipeline on Debian's ClickHouse 18.16 (one server, then the
// stand's two-shard cluster) consumes it, and --follow-clickhouse measures how long each
// sampled message took until its row could be read, beside --follow-group's time until the
// consumer group took it. Runs where CLICKGEN_TIERS selects the kafka,
// clickhouse and cluster tiers, not under -short.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	runreport "github.com/clickgen/clickgen/generator/measure/report"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
	"github.com/clickgen/clickgen/internal/tier/realkafka"
)

// readStoreReport decodes a --report file of a run that is not rate-paced.
func readStoreReport(t *testing.T, path string) runreport.Run {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r runreport.Run
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// checkFreshness checks a whole store section: every sampled key seen, positive latencies in
// order, each bounded by the run (the command's wall time) and, below, by the pipeline's
// flush: the server's Kafka engine ends a stream only once a poll waited 0.5 s for nothing
// (stream_flush_interval_ms is a day, and one day of hits is less than a block of 65 536
// rows), so no row is queryable before that idle poll, and the last message sent waited for
// it too.
func checkFreshness(t *testing.T, s *runreport.Store, wall time.Duration) {
	t.Helper()
	if s == nil {
		t.Fatal("the report has no store section")
	}
	t.Logf("store %s: %d sampled, %d seen, latency p50 %.0f ms p95 %.0f ms p99 %.0f ms max %.0f ms, poll every %.0f ms (round trip p50 %.1f ms, max %.1f ms), %d polls",
		s.Table, s.Sampled, s.Seen, s.LatencyMS.P50, s.LatencyMS.P95, s.LatencyMS.P99, s.LatencyMS.Max, s.PollEveryMS, s.PollMS.P50, s.PollMS.Max, s.Polls)
	if s.Sampled < 10 || s.Seen != s.Sampled || s.Unseen != 0 || s.PollErrors != 0 {
		t.Errorf("sampled %d, seen %d, unseen %d (poll errors %d, %s): want every sampled key seen", s.Sampled, s.Seen, s.Unseen, s.PollErrors, s.LastPollError)
	}
	l := s.LatencyMS
	if !(l.P50 > 0 && l.P50 <= l.P95 && l.P95 <= l.P99 && l.P99 <= l.Max) {
		t.Errorf("latency %+v: want 0 < p50 ≤ p95 ≤ p99 ≤ max", l)
	}
	if l.Max > float64(wall.Milliseconds()) {
		t.Errorf("max latency %.0f ms, longer than the whole run (%v)", l.Max, wall)
	}
	if len(s.LatencyDistributionMS) == 0 || s.LatencyDistributionMS[0][1] < 450 {
		t.Errorf("distribution %v: want no key readable before the engine's 0.5 s idle poll ended the stream", s.LatencyDistributionMS)
	}
	if s.MeasuredFrom != "handed to producer" || s.KeyColumn != "WatchID" || len(s.Series) == 0 {
		t.Errorf("measured from %q, key %q, %d samples", s.MeasuredFrom, s.KeyColumn, len(s.Series))
	}
}

// TestRealClickHouseStoreFreshness: a day of hits played through real Kafka into the real
// server, followed into ods.event_dist and in the consumer group at once: every sampled key
// seen, after the stream's idle poll; then, the parse view detached (a stalled pipeline: the
// group still takes everything, nothing reaches the table), the next day's sampled keys are
// unseen, listed, and store_unseen==0 ends the run with exit code 3 after the follow timeout.
func TestRealClickHouseStoreFreshness(t *testing.T) {
	t.Parallel() // its own servers: it waits on them beside the other real tiers
	s := startRealStand(t)
	dir := t.TempDir()
	rep := filepath.Join(dir, "day0.json")
	start := time.Now()
	_, errs := mustRun(t, "batch", "--day", "0", "--brokers", s.brokers, "--topic", "hits",
		"--follow-clickhouse", s.ch.URL(), "--follow-table", "ods.event_dist", "--follow-sample", "300/s",
		"--follow-group", realclickhouse.HitsGroup, "--follow-timeout", "3m", "--report", rep)
	wall := time.Since(start)
	t.Logf("batch day 0 with both followers in %v:\n%s", wall.Round(time.Millisecond), lastLines(errs, 6))
	r := readStoreReport(t, rep)
	checkFreshness(t, r.Store, wall)
	if g, ok := r.Follow[realclickhouse.HitsGroup]; !ok || g.DrainedS == nil {
		t.Errorf("the group beside the store: %+v, want it followed and drained", g)
	} else {
		t.Logf("group %s: p50 %.0f ms p99 %.0f ms max %.0f ms", realclickhouse.HitsGroup, g.LatencyMS.P50, g.LatencyMS.P99, g.LatencyMS.Max)
	}
	if !strings.Contains(errs, "store ods.event_dist: ") || !strings.Contains(errs, "each figure is at most") {
		t.Errorf("stderr says nothing of the store:\n%s", errs)
	}

	s.ch.Query("DETACH TABLE ods.event_mv")
	rep = filepath.Join(dir, "day1.json")
	out, errs, code := clickgen(t, "batch", "--day", "1", "--brokers", s.brokers, "--topic", "hits",
		"--follow-clickhouse", s.ch.URL(), "--follow-sample", "50/s", "--follow-group", realclickhouse.HitsGroup,
		"--follow-timeout", "15s", "--threshold", "store_unseen==0", "--report", rep)
	t.Logf("batch day 1 with ods.event_mv detached: exit %d\n%s", code, lastLines(errs, 6))
	if code != 3 {
		t.Fatalf("exit %d, want 3 (store_unseen==0 crossed)\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	r = readStoreReport(t, rep)
	st := r.Store
	if st == nil || st.Unseen == 0 || st.Unseen != st.Sampled || st.Seen != 0 || len(st.UnseenKeys) == 0 {
		t.Fatalf("store section %+v: want every sampled key unseen and listed", st)
	}
	if st.WaitedS < 15 || st.WaitedS > 15+10 {
		t.Errorf("waited %.1fs for the unseen keys, want the 15s timeout (and not much more)", st.WaitedS)
	}
	if !strings.Contains(errs, "NOT readable within --follow-timeout 15s: WatchID ") || !strings.Contains(errs, "store_unseen==0 crossed: store_unseen ") {
		t.Errorf("stderr does not name the unseen keys and the crossed threshold:\n%s", errs)
	}
	if g := r.Follow[realclickhouse.HitsGroup]; g.DrainedS == nil {
		t.Errorf("the group did not drain with the view detached: the stall is the table's, not the consumer's")
	}
}

// realCluster is the stand's topology fed by real Kafka: one Kafka node with topics hits and
// orders, ZooKeeper and the ClickHouse cluster whose pipeline (one reader per server, one
// consumer group) reads them. The verify of a store read through Distributed is judged on it.
type realCluster struct {
	kafka   *realkafka.Cluster
	ch      *realclickhouse.Cluster
	brokers string
}

// startRealCluster starts Kafka, a cluster of shards × replicas, creates the topics, lays out
// the pipeline ON CLUSTER and makes clickgen run as the built command.
func startRealCluster(t *testing.T, shards, replicas int) *realCluster {
	t.Helper()
	start := time.Now()
	k := realkafka.Start(t, 1)
	t.Logf("Kafka node up in %v", time.Since(start).Round(time.Millisecond))
	buildClickgen(t) // verifyCmd runs the built command
	resetTopics(t, k.Bootstrap(), standTopics)
	start = time.Now()
	c := realclickhouse.StartCluster(t, realclickhouse.ClusterOptions{Shards: shards, Replicas: replicas})
	t.Logf("cluster of %d×%d up in %v", shards, replicas, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	c.ApplyDDL(k.Bootstrap(), realclickhouse.Topics{})
	t.Logf("stand DDL applied ON CLUSTER in %v", time.Since(start).Round(time.Millisecond))
	return &realCluster{kafka: k, ch: c, brokers: k.Bootstrap()}
}

// fillRealCluster plays the stand's starting world of the world flags given (nil: the stand's
// own) into a cluster of shards × replicas: day 0's hits first, with day0's flags (nil: none)
// added to its command line (a follower, a report), then days 1…7 and the snapshots of days
// 0…6; it waits until every event is in ods.event on the shards and the orders are pulled, and
// returns the cluster, the stand it makes with Kafka and the first server (whose commands add
// the world flags), the world's inventory and the wall time of day 0's run: a complete store,
// read through the Distributed faces.
func fillRealCluster(t *testing.T, shards, replicas int, worldFlags []string, day0 func(*realCluster) []string) (*realCluster, *realStand, *world.Inventory, time.Duration) {
	t.Helper()
	c := startRealCluster(t, shards, replicas)
	s := &realStand{kafka: c.kafka, ch: c.ch.First(), brokers: c.brokers, bin: buildClickgen(t), world: worldFlags}
	inv := s.inventory(t, 0, 8)
	args := []string{"batch", "--day", "0", "--brokers", c.brokers, "--topic", "hits"}
	if day0 != nil {
		args = append(args, day0(c)...)
	}
	start := time.Now()
	_, errs := s.run(t, args...)
	wall := time.Since(start)
	t.Logf("day 0 in %v:\n%s", wall.Round(time.Millisecond), lastLines(errs, 6))
	s.run(t, "batch", "--day", "1", "--days", "7", "--brokers", c.brokers, "--topic", "hits")
	s.run(t, "snapshot", "--day", "0", "--days", "8", "--brokers", c.brokers, "--topic", "orders")
	c.ch.First().WaitRows("ods.event_dist", int64(*inv.Expect.Hits.ODSEvents))
	t.Logf("fill world: its %d events in ods.event_dist %v after the first was sent", *inv.Expect.Hits.ODSEvents, time.Since(start).Round(time.Millisecond))
	c.ch.PullOrdersUntil(int64(inv.Expect.Orders.StgRows))
	if replicas > 1 {
		c.ch.WaitReplicasSynced()
	}
	return c, s, inv, wall
}

// TestRealClusterFill: the fill world through real Kafka into the stand's two shards. Day 0 is
// followed into ods.event_dist, which asks both shards, beside the consumer group: every sampled
// key seen (checkFreshness). Then the store holds exactly the inventory, read through the
// Distributed faces: every event once as FINAL counts it, on the shard its ClientID names, both
// shards holding some; every raw row; every order version and one current row per order.
func TestRealClusterFill(t *testing.T) {
	t.Parallel() // its own servers: it waits on them beside the other real tiers
	rep := filepath.Join(t.TempDir(), "day0.json")
	c, _, inv, wall := fillRealCluster(t, 2, 1, nil, func(c *realCluster) []string {
		return []string{"--follow-clickhouse", c.ch.URL(), "--follow-sample", "300/s",
			"--follow-group", realclickhouse.HitsGroup, "--follow-timeout", "3m", "--report", rep}
	})
	checkFreshness(t, readStoreReport(t, rep).Store, wall)
	first := c.ch.First()
	if got, want := first.Count("ods.event_dist", true), int64(*inv.Expect.Hits.ODSEvents); got != want {
		t.Errorf("ods.event_dist FINAL: %d rows, want %d", got, want)
	}
	if got, want := first.Count("stg.hits_raw_dist", false), int64(inv.Expect.Hits.StgRows); got != want {
		t.Errorf("stg.hits_raw_dist: %d rows, want %d", got, want)
	}
	if got, want := first.Count("ods.order_v", false), int64(*inv.Expect.Orders.ODSOrders); got != want {
		t.Errorf("ods.order_v: %d orders, want %d", got, want)
	}
	if got, want := first.Count("ods.order_dist", false), int64(inv.Expect.Orders.StgRows); got != want {
		t.Errorf("ods.order_dist: %d versions, want %d", got, want)
	}
	shards := c.ch.ShardCounts("ods.event_dist", "")
	if shards[1] == 0 || shards[2] == 0 || shards[1]+shards[2] != int64(*inv.Expect.Hits.ODSEvents) {
		t.Errorf("events per shard %v: want both shards, %d in all", shards, *inv.Expect.Hits.ODSEvents)
	}
	if n := first.Int("SELECT count() FROM ods.event_dist " + realclickhouse.ShardTagSQL(2) + " AND shard != cityHash64(ClientID) % 2 + 1"); n != 0 {
		t.Errorf("%d events on another shard than cityHash64(ClientID) names", n)
	}
	t.Logf("events per shard %v, orders per shard %v", shards, c.ch.ShardCounts("ods.order_dist", ""))
}
