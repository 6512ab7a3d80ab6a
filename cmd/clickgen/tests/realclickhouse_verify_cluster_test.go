package tests

// `clickgen verify --clickhouse` through the stand's Distributed tables (issue 37): the built
// command plays the fill world through real Apache Kafka 4.3.1 into the stand's cluster
// (ZooKeeper and Debian's ClickHouse 18.16 servers, the pipeline laid out ON CLUSTER), and
// the built command's verify reads it through the Distributed faces. Runs where
// CLICKGEN_TIERS selects the kafka and cluster tiers, not under -short.

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
)

// clusterVerifyArgs judge the fill world (days 0…7, snapshots 0…6; judgedWorld's tenth of
// it) with a bound on every answer that a dead shard must not reach.
var clusterVerifyArgs = []string{"--day", "0", "--days", "8", "--timeout", "30s"}

// oneLineOut is a console's table with its wrapped lines joined.
func oneLineOut(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestRealClusterVerify: the fill world in the stand's two shards, judged through the
// Distributed faces by the built command. The complete store is OK, every shard's rows
// counted as SQL counts them. A WatchID and an order version copied onto the other shard (as
// a layout sharded by another key places them) are exit 1, each named with both shards:
// FINAL, which collapses within a shard only, counts them twice (before: "copies", exit 0).
// Shard 2 killed, for a reader whose profile skips unavailable shards and one whose profile
// does so read-only: exit 1 naming shard 2 and its address, at once, not a timeout (before:
// the dead shard's events listed as missing).
func TestRealClusterVerify(t *testing.T) {
	t.Parallel() // its own servers: it waits on them beside the other real tiers
	c, s, inv, _ := fillRealCluster(t, 2, 1, judgedWorld, nil)

	t.Run("whole", func(t *testing.T) {
		r := s.verifyStore(t, s.ch.Password(), clusterVerifyArgs...)
		if r.code != 0 || !strings.Contains(r.stdout, "OK: every table read holds exactly what the inventory says") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		e := r.report.Events
		want := c.ch.ShardCounts("ods.event_dist", "")
		if e.Cluster != realclickhouse.ClusterName || len(e.Shards) != 2 || e.Shards[0].Rows != want[1] || e.Shards[1].Rows != want[2] {
			t.Errorf("events per shard %+v on %q; SQL counts %v", e.Shards, e.Cluster, want)
		}
		if e.Total.Present != *inv.Expect.Hits.ODSEvents {
			t.Errorf("%d events present, the inventory says %d", e.Total.Present, *inv.Expect.Hits.ODSEvents)
		}
		if !strings.Contains(oneLineOut(r.stdout), fmt.Sprintf("every shard of cluster clickstream_cluster read: shard 1 (%s) %d rows, shard 2 (%s) %d rows",
			"127.0.0.1:"+strconv.Itoa(c.ch.Server(1, 1).NativePort()), want[1], "127.0.0.1:"+strconv.Itoa(c.ch.Server(2, 1).NativePort()), want[2])) {
			t.Errorf("the table does not give each shard's rows:\n%s", r.stdout)
		}
		t.Logf("verify took %v:\n%s", r.took, lastLines(r.stdout, 30))
	})

	t.Run("key copied onto the other shard", func(t *testing.T) {
		first := c.ch.First()
		watchID := first.Query("SELECT WatchID FROM ods.event_dist WHERE EventDate = '2026-06-03' ORDER BY WatchID LIMIT 1 OFFSET 100")
		order := strings.Split(first.Query("SELECT order_id, toString(snapshot_date) FROM ods.order_dist WHERE snapshot_date = '2026-06-04' ORDER BY order_id LIMIT 1"), "\t")
		events := "WatchID = " + watchID
		orders := "order_id = '" + order[0] + "' AND snapshot_date = '" + order[1] + "'"
		from := map[string]int{}
		for table, where := range map[string]string{"ods.event": events, "ods.order": orders} {
			for sh := range c.ch.ShardCounts(table+"_dist", where) {
				from[table] = sh
			}
			if n := c.ch.CopyToOtherShard(table+"_rep", where); n != 1 {
				t.Fatalf("copied %d rows of %s where %s, want 1", n, table, where)
			}
		}
		defer func() {
			// The copies go again: each from the shard it was copied onto.
			c.ch.Server(3-from["ods.event"], 1).DeleteWhere("ods.event_rep", events)
			c.ch.Server(3-from["ods.order"], 1).DeleteWhere("ods.order_rep", orders)
		}()
		r := s.verifyStore(t, s.ch.Password(), clusterVerifyArgs...)
		out := oneLineOut(r.stdout)
		if r.code != 1 || !strings.Contains(r.stderr, "events ods.event_dist: 1 difference") || !strings.Contains(r.stderr, "orders ods.order_dist: 1 difference") {
			t.Fatalf("exit %d, want 1 with one difference in events and one in orders\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(out, "events on_shards 2026-06-03: WatchID "+watchID+" ClientID ") || !strings.Contains(out, "2 rows on shards 1 and 2: FINAL cannot collapse it") {
			t.Errorf("the table does not name WatchID %s on both shards:\n%s", watchID, r.stdout)
		}
		if !strings.Contains(out, "orders on_shards: order_id "+order[0]+", ") || !strings.Contains(out, order[1]+"@1") || !strings.Contains(out, order[1]+"@2") {
			t.Errorf("the table does not name order %s on both shards:\n%s", order[0], r.stdout)
		}
		if e := r.report.Events; e.Total.OnShards != 1 || e.Diffs[0].WatchID != parseUintText(t, watchID) {
			t.Errorf("the report: %d WatchIDs on shards, first difference %+v", e.Total.OnShards, e.Diffs[0])
		}
		t.Logf("verify with a WatchID and an order version on both shards, exit %d:\n%s", r.code, lastLines(r.stdout, 6))
	})

	t.Run("shard killed", func(t *testing.T) {
		c.ch.KillShard(2)
		defer c.ch.Server(2, 1).Restart()
		addr := "127.0.0.1:" + strconv.Itoa(c.ch.Server(2, 1).NativePort())
		for _, user := range []string{realclickhouse.LenientUser, realclickhouse.LenientReadonlyUser} {
			r := s.verifyStore(t, s.ch.Password(), append([]string{"--clickhouse-user", user}, clusterVerifyArgs...)...)
			if r.code != 1 || !strings.Contains(r.stderr, "cannot be read whole: shard 2 ("+addr+") of cluster clickstream_cluster") ||
				strings.Contains(r.stderr, "--timeout") || r.judged() || strings.Contains(r.stdout, "missing") {
				t.Errorf("as %s with shard 2 killed: exit %d, want 1 naming shard 2 (%s), nothing judged\nstdout:\n%s\nstderr:\n%s", user, r.code, addr, r.stdout, r.stderr)
				continue
			}
			t.Logf("as %s with shard 2 killed, exit %d after %v: %s", user, r.code, r.took, lastLines(r.stderr, 1))
		}
	})
}

// TestRealClusterVerifyReplicas: the fill world in two shards of two replicas each; one
// replica of shard 2 killed, its twin answers, and the store read through the Distributed
// faces is whole: exit 0, for a reader whose profile skips unavailable shards read-only too.
func TestRealClusterVerifyReplicas(t *testing.T) {
	t.Parallel() // its own servers: it waits on them beside the other real tiers
	c, s, _, _ := fillRealCluster(t, 2, 2, judgedWorld, nil)
	c.ch.Server(2, 1).Kill()
	for _, user := range []string{realclickhouse.User, realclickhouse.LenientReadonlyUser} {
		r := s.verifyStore(t, s.ch.Password(), append([]string{"--clickhouse-user", user}, clusterVerifyArgs...)...)
		if r.code != 0 {
			t.Errorf("as %s with replica 1 of shard 2 down: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", user, r.code, r.stdout, r.stderr)
			continue
		}
		if sh := r.report.Events.Shards; len(sh) != 2 || sh[1].Rows == 0 {
			t.Errorf("as %s, events per shard %+v: want shard 2's, from its twin", user, sh)
		}
		t.Logf("as %s with replica 1 of shard 2 down: exit 0 in %v", user, r.took)
	}
}

// parseUintText reads a decimal UInt64 a query answered.
func parseUintText(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
