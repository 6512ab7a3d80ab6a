package realclickhouse_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
)

// dayMessages are the first n clean hits of day 0, as the producer sends them.
func dayMessages(t *testing.T, n int) [][]byte {
	t.Helper()
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		t.Fatal(err)
	}
	var msgs [][]byte
	err = w.Play(context.Background(), 0, 1, world.PlayOptions{}, func(b *world.Batch) error {
		for i := range b.Msgs {
			if len(msgs) < n {
				msgs = append(msgs, b.Value(i))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// startStandCluster starts a cluster of the given shape, lays out the stand's pipeline on it
// (its Kafka readers pointed at a port where no broker listens) and feeds the raw table's
// Distributed face with n clean hits of day 0, as the ingest view would; it waits until the
// events table holds them all.
func startStandCluster(t *testing.T, shards, replicas, n int) *realclickhouse.Cluster {
	t.Helper()
	start := time.Now()
	c := realclickhouse.StartCluster(t, realclickhouse.ClusterOptions{Shards: shards, Replicas: replicas})
	t.Logf("cluster of %d×%d up in %v (ZooKeeper answered after %v)", shards, replicas, time.Since(start).Round(time.Millisecond), c.KeeperUp().Round(time.Millisecond))
	start = time.Now()
	c.ApplyDDL("127.0.0.1:1", realclickhouse.Topics{})
	t.Logf("stand DDL applied ON CLUSTER in %v", time.Since(start).Round(time.Millisecond))
	c.First().InsertRaw("stg.hits_raw_dist", dayMessages(t, n)...)
	c.First().WaitRows("ods.event_dist", int64(n))
	return c
}

// TestClusterLaysOutTheStand starts the stand's topology (a keeper, two shards) and lays out the
// pipeline as the stand's DDL does: every server has every table with the stand's engines, the
// macros of its shard, the cluster of both; hits fed to the raw table's Distributed face reach
// ods.event on both shards through the views, each row on the shard its sharding key,
// cityHash64(ClientID), names, and read whole through ods.event_dist.
func TestClusterLaysOutTheStand(t *testing.T) {
	const n = 4000
	c := startStandCluster(t, 2, 1, n)
	for s := 1; s <= 2; s++ {
		srv := c.Server(s, 1)
		if got, want := srv.Query("SELECT substitution FROM system.macros WHERE macro = 'shard'"), strconv.Itoa(s); got != want {
			t.Errorf("shard %d's macro shard = %q", s, got)
		}
		if got := srv.Query("SELECT shard_num, port, is_local FROM system.clusters WHERE cluster = 'clickstream_cluster' ORDER BY shard_num"); strings.Count(got, "\n") != 1 {
			t.Errorf("shard %d's clickstream_cluster:\n%s\nwant two shards", s, got)
		}
		engines := srv.Query("SELECT concat(database, '.', name, ' ', engine_full) FROM system.tables WHERE database IN ('stg', 'ods') AND (name LIKE '%\\_rep' OR name LIKE '%\\_dist') ORDER BY database, name")
		for _, want := range []string{
			"ods.event_rep ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/ods/event_rep', '{replica}', _load_ts)",
			"ods.event_dist Distributed('clickstream_cluster', 'ods', 'event_rep', cityHash64(ClientID))",
			"ods.order_rep ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/ods/order_rep', '{replica}', snapshot_date)",
			"ods.order_dist Distributed('clickstream_cluster', 'ods', 'order_rep', cityHash64(order_id))",
			"stg.hits_raw_rep ReplicatedMergeTree('/clickhouse/tables/{shard}/stg/hits_raw_rep', '{replica}')",
			"stg.hits_raw_dist Distributed('clickstream_cluster', 'stg', 'hits_raw_rep', cityHash64(raw))",
		} {
			if !strings.Contains(strings.ReplaceAll(engines, `\'`, `'`), want) {
				t.Errorf("shard %d has no %s; its tables:\n%s", s, want, engines)
			}
		}
		if got := srv.Int("SELECT count() FROM system.tables WHERE database IN ('stg', 'ods')"); got != 19 {
			t.Errorf("shard %d has %d tables and views in stg and ods, want the stand's 19", s, got)
		}
	}
	local := map[int]int64{}
	for s := 1; s <= 2; s++ {
		local[s] = c.Server(s, 1).Count("ods.event_rep", false)
		if local[s] == 0 {
			t.Errorf("shard %d holds no event: the views did not reach it", s)
		}
	}
	t.Logf("%d events split %d / %d", n, local[1], local[2])
	if local[1]+local[2] != n {
		t.Errorf("the shards hold %d + %d events, want %d", local[1], local[2], n)
	}
	if got := c.ShardCounts("ods.event_dist", ""); got[1] != local[1] || got[2] != local[2] {
		t.Errorf("rows per shard through ods.event_dist = %v, want each shard's own %v", got, local)
	}
	if got := c.First().Int("SELECT count() FROM ods.event_v"); got != n {
		t.Errorf("ods.event_v counts %d, want %d", got, n)
	}
	// Distributed picks shard key % 2 (equal weights): 0 is the first shard.
	if got := c.First().Int("SELECT count() FROM ods.event_dist " + realclickhouse.ShardTagSQL(2) + " AND shard != cityHash64(ClientID) % 2 + 1"); got != 0 {
		t.Errorf("%d events on another shard than cityHash64(ClientID) names", got)
	}
	if got := c.First().Int("SELECT count() FROM (SELECT WatchID FROM ods.event_dist GROUP BY WatchID HAVING count() > 1)"); got != 0 {
		t.Errorf("%d WatchIDs on more than one row", got)
	}
}

// TestClusterReplicas starts two shards of two replicas each: every replica holds its shard's
// rows, one replica down leaves the read whole (its twin answers), both replicas of a shard
// down is an error naming the shard's servers, unless the reader's profile skips unavailable
// shards, which then reads the other shard alone, without a word.
func TestClusterReplicas(t *testing.T) {
	const n = 2000
	c := startStandCluster(t, 2, 2, n)
	c.WaitReplicasSynced()
	for s := 1; s <= 2; s++ {
		a, b := c.Server(s, 1).Count("ods.event_rep", false), c.Server(s, 2).Count("ods.event_rep", false)
		if a != b || a == 0 {
			t.Errorf("shard %d: replicas hold %d and %d events, want the same, not none", s, a, b)
		}
	}
	shard1 := c.Server(1, 1).Count("ods.event_rep", false)
	c.Server(2, 1).Kill()
	if got := c.First().Count("ods.event_dist", false); got != n {
		t.Errorf("with one replica of shard 2 down, ods.event_dist counts %d, want %d (its twin answers)", got, n)
	}
	c.Server(2, 2).Kill()
	assertShardDown(t, c, 2, n, shard1)
}

// TestClusterFaults builds the faults a reader of the stand's store meets and shows what the
// server itself says of them: a row copied onto the other shard is counted twice by FINAL
// through the Distributed face; a shard killed is an error (code 279) naming its address for a
// reader whose profile does not skip unavailable shards, and for one whose profile does, the
// other shard's rows alone; a read-only such profile cannot be overridden by the query.
func TestClusterFaults(t *testing.T) {
	const n = 3000
	c := startStandCluster(t, 2, 1, n)
	ids := strings.Split(c.First().Query("SELECT WatchID FROM ods.event_dist ORDER BY WatchID LIMIT 5"), "\n")
	before := c.ShardCounts("ods.event_dist", "WatchID IN ("+strings.Join(ids, ", ")+")")
	if rows := c.CopyToOtherShard("ods.event_rep", "WatchID IN ("+strings.Join(ids, ", ")+")"); rows != 5 {
		t.Fatalf("CopyToOtherShard copied %d rows of 5 WatchIDs, want 5", rows)
	}
	t.Logf("WatchIDs %v were %v per shard before the copy", ids, before)
	if got := c.First().Int("SELECT count() FROM ods.event_v"); got != n+5 {
		t.Errorf("FINAL through ods.event_dist counts %d after 5 copies onto the other shard, want %d: FINAL collapses within a shard only", got, n+5)
	}
	if got := c.ShardCounts("ods.event_dist", "WatchID IN ("+strings.Join(ids, ", ")+")"); got[1] != 5 || got[2] != 5 {
		t.Errorf("the copied WatchIDs per shard: %v, want 5 on each", got)
	}
	shard1 := c.Server(1, 1).Count("ods.event_rep", false)
	c.KillShard(2)
	assertShardDown(t, c, 2, n+5, shard1)
}

// assertShardDown checks the reads of a cluster whose shard dead is down (total rows in all,
// alive on shard 1): an error naming the shard's address for User; shard 1's rows alone for
// LenientUser, and an error when the query forces skip_unavailable_shards off; a refusal of
// that override for LenientReadonlyUser.
func assertShardDown(t *testing.T, c *realclickhouse.Cluster, dead int, total, alive int64) {
	t.Helper()
	if dead == 1 {
		t.Fatal("assertShardDown reads through shard 1, which must be alive")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first, pw := c.First(), c.First().Password()
	addr := fmt.Sprintf("127.0.0.1:%d", c.Server(dead, 1).NativePort())
	_, err := first.QueryAs(ctx, realclickhouse.User, pw, "SELECT count() FROM ods.event_dist")
	var qe *realclickhouse.QueryError
	if !errors.As(err, &qe) || !strings.Contains(qe.Body, "Code: 279") || !strings.Contains(qe.Body, addr) {
		t.Errorf("as %s with shard %d down: %v; want code 279 naming %s", realclickhouse.User, dead, err, addr)
	}
	out, err := first.QueryAs(ctx, realclickhouse.LenientUser, pw, "SELECT count() FROM ods.event_dist")
	if err != nil || out != strconv.FormatInt(alive, 10) {
		t.Errorf("as %s with shard %d down: %q, %v; want shard 1's %d of %d rows, silently", realclickhouse.LenientUser, dead, out, err, alive, total)
	}
	_, err = first.QueryAs(ctx, realclickhouse.LenientUser, pw, "SELECT count() FROM ods.event_dist SETTINGS skip_unavailable_shards = 0")
	if !errors.As(err, &qe) || !strings.Contains(qe.Body, "Code: 279") {
		t.Errorf("as %s forcing skip_unavailable_shards = 0: %v; want code 279", realclickhouse.LenientUser, err)
	}
	_, err = first.QueryAs(ctx, realclickhouse.LenientReadonlyUser, pw, "SELECT count() FROM ods.event_dist SETTINGS skip_unavailable_shards = 0")
	if !errors.As(err, &qe) || !strings.Contains(qe.Body, "Code: 164") {
		t.Errorf("as %s forcing skip_unavailable_shards = 0: %v; want a refusal (code 164, readonly)", realclickhouse.LenientReadonlyUser, err)
	}
	out, err = first.QueryAs(ctx, realclickhouse.LenientReadonlyUser, pw, "SELECT groupArray(shard) FROM (SELECT DISTINCT shard FROM ods.event_dist "+realclickhouse.ShardTagSQL(c.Shards())+")")
	if err != nil || out != "[1]" {
		t.Errorf("as %s, the shards that answered: %q, %v; want [1]", realclickhouse.LenientReadonlyUser, out, err)
	}
}
