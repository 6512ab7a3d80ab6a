package store_test

// Verify through Distributed tables on the stand's topology (issue 37): Debian's ZooKeeper
// and ClickHouse 18.16 servers forming clickstream_cluster, the stand's pipeline laid out ON
// CLUSTER, filled by the servers' own parse of the run's messages. Runs where CLICKGEN_TIERS
// selects the cluster tier.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
)

// clusterRun is the run of these tests: four days at scale 0.05 with redeliveries, the
// snapshots of days 0…2. No malformed message: the error tables are empty on every shard, and
// a read of them must still hear from each shard.
var clusterRun = store.Range{From: 0, Days: 4, Garbage: world.Garbage{Redeliver: 0.01}}

// clusterTables are the stand's tables on 18.16, which builds no marts.
func clusterTables() store.Tables {
	t := store.StandTables()
	t.Marts = ""
	return t
}

// fillCluster starts a cluster of shards × replicas, lays out the stand's pipeline on it (its
// Kafka readers pointed where no broker listens) and fills it as the stand's pipeline does:
// the run's hits into stg.hits_raw_dist, which the parse views of each shard split; the
// snapshots' rows into stg.orders_raw_dist, split by the stand's orders load.
func fillCluster(t *testing.T, shards, replicas int) (*realclickhouse.Cluster, *world.World, *world.Inventory) {
	t.Helper()
	c := realclickhouse.StartCluster(t, realclickhouse.ClusterOptions{Shards: shards, Replicas: replicas})
	c.ApplyDDL("127.0.0.1:1", realclickhouse.Topics{})
	w, err := world.NewWorld(world.Params{Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	loadTS := uint32(time.Now().Unix())
	str := func(b []byte, s []byte) []byte { return append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	var hits, orders []byte
	for u, err := range w.Units(context.Background(), clusterRun, world.UnitOptions{}) {
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
			msgs = append(msgs, x.Value)
		}
		for _, m := range msgs {
			if u.Kind == world.HitsUnit {
				hits = binary.LittleEndian.AppendUint32(str(str(str(hits, m), []byte("hits")), []byte("test")), loadTS)
			} else {
				orders = binary.LittleEndian.AppendUint32(str(str(str(str(orders, m), []byte("orders")), []byte("test")), []byte("run")), loadTS)
			}
		}
	}
	first := c.First()
	first.InsertData("stg.hits_raw_dist", "RowBinary", bytes.NewReader(hits))
	first.InsertData("stg.orders_raw_dist", "RowBinary", bytes.NewReader(orders))
	if replicas > 1 {
		c.WaitReplicasSynced() // the split reads one replica of each shard
	}
	for _, stmt := range ciSQL(t, "pull/20-orders-load.sql") {
		first.Query(strings.ReplaceAll(stmt, "{{load_id}}", "run"))
	}
	inv, err := w.Inventory(context.Background(), clusterRun, 0)
	if err != nil {
		t.Fatal(err)
	}
	first.WaitCount("SELECT count() FROM ods.event_dist FINAL", int64(*inv.Expect.Hits.ODSEvents))
	first.WaitCount("SELECT count() FROM ods.order_dist", int64(inv.Expect.Orders.StgRows))
	if replicas > 1 {
		c.WaitReplicasSynced()
	}
	return c, w, inv
}

// verifyCluster runs Verify on the cluster's first server as user (with the cluster's
// password) over tables.
func verifyCluster(t *testing.T, c *realclickhouse.Cluster, w *world.World, user string, tables store.Tables) (*store.Result, error) {
	t.Helper()
	return verifyClusterWithin(t, c, w, user, tables, time.Minute)
}

// verifyClusterWithin is verifyCluster with the server's first byte and silences bounded by
// timeout.
func verifyClusterWithin(t *testing.T, c *realclickhouse.Cluster, w *world.World, user string, tables store.Tables, timeout time.Duration) (*store.Result, error) {
	t.Helper()
	cl, err := clickhouse.New(c.URL(), clickhouse.User(user), clickhouse.Password(c.First().Password()), clickhouse.FirstByteTimeout(timeout), clickhouse.IdleTimeout(timeout))
	if err != nil {
		t.Fatal(err)
	}
	return store.Verify(context.Background(), w, clusterRun, &store.ClickHouse{Client: cl}, store.Options{Tables: tables, Workers: 2})
}

// users are the readers whose profiles say each thing of unavailable shards.
var users = []string{realclickhouse.User, realclickhouse.LenientUser, realclickhouse.LenientReadonlyUser}

// TestDistributed1816: the stand's store on two shards is judged through its Distributed
// faces: whole, every shard's rows counted, for a reader whose profile fails on an
// unavailable shard, one whose profile skips it, and one whose profile skips it read-only
// (it cannot override the setting); a view over a Distributed table is refused to the last,
// which could not tell a shard left out. A layout whose orders are sharded by another key
// than order_id holds versions of one order on two shards: each is a difference, as SQL
// counts them. A shard killed is an error naming it, for every reader: before, the lenient
// reader's verify listed the dead shard's events as missing (issue 37: 53 567 events
// "missing" instead of a shard that could not be read). Rows of one WatchID copied onto the
// other shard are differences naming the shards (before: "5 copies", exit 0).
func TestDistributed1816(t *testing.T) {
	c, w, inv := fillCluster(t, 2, 1)

	t.Run("whole", func(t *testing.T) {
		c := c.In(t)
		for _, user := range users {
			res, err := verifyCluster(t, c, w, user, clusterTables())
			if err != nil {
				t.Fatalf("as %s: %v", user, err)
			}
			if !res.OK {
				t.Fatalf("as %s, the whole store differs:\n%s", user, table(t, res))
			}
			for _, d := range res.Events.Dates {
				want := c.ShardCounts("ods.event_dist", "EventDate = '"+d.Date+"'")
				if len(d.Shards) != 2 || d.Shards[0].Rows != want[1] || d.Shards[1].Rows != want[2] || want[1] == 0 || want[2] == 0 {
					t.Errorf("as %s, events %s per shard %+v; SQL counts %v", user, d.Date, d.Shards, want)
				}
			}
			if got, want := res.Orders.Shards, c.ShardCounts("ods.order_dist", ""); len(got) != 2 || got[0].Rows != want[1] || got[1].Rows != want[2] {
				t.Errorf("as %s, orders per shard %+v; SQL counts %v", user, got, want)
			}
			if e := res.Errors; e.Total.Planned != 0 || len(e.Shards) != 2 || e.Shards[0].Rows+e.Shards[1].Rows != 0 {
				t.Errorf("as %s, the error table: %d planned, shards %+v; want empty, both shards read", user, e.Total.Planned, e.Shards)
			}
			if user == realclickhouse.User {
				t.Logf("\n%s", table(t, res))
			}
		}
	})

	t.Run("view over Distributed", func(t *testing.T) {
		c := c.In(t)
		tables := clusterTables()
		tables.Events = "ods.event_v"
		res, err := verifyCluster(t, c, w, realclickhouse.LenientUser, tables)
		if err != nil || !res.OK {
			t.Fatalf("ods.event_v as %s (who may force skip_unavailable_shards = 0): %v", realclickhouse.LenientUser, err)
		}
		_, err = verifyCluster(t, c, w, realclickhouse.LenientReadonlyUser, tables)
		if !errors.Is(err, store.ErrShard) || !strings.Contains(err.Error(), "ods.event_v cannot be read whole") ||
			!strings.Contains(err.Error(), "it reads ods.event_dist, a Distributed table on cluster clickstream_cluster") {
			t.Errorf("ods.event_v as %s: %v; want it refused, naming the Distributed table", realclickhouse.LenientReadonlyUser, err)
		}
	})

	t.Run("orders sharded by another key", func(t *testing.T) {
		// The order versions again, through a Distributed table sharded by snapshot_date: the
		// versions of one order land on the shards their dates name.
		c := c.In(t)
		first := c.First()
		first.Query("CREATE TABLE ods.order_by_date_rep ON CLUSTER clickstream_cluster AS ods.order_rep " +
			"ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/ods/order_by_date_rep', '{replica}', snapshot_date) PARTITION BY toDate(created_at) ORDER BY order_id")
		first.Query("CREATE TABLE ods.order_by_date_dist ON CLUSTER clickstream_cluster AS ods.order_rep " +
			"ENGINE = Distributed('clickstream_cluster', 'ods', 'order_by_date_rep', toUInt32(snapshot_date))")
		first.Query("INSERT INTO ods.order_by_date_dist SELECT * FROM ods.order_dist")
		split := first.Int("SELECT count() FROM (SELECT order_id FROM ods.order_by_date_dist " + realclickhouse.ShardTagSQL(2) +
			" GROUP BY order_id HAVING uniqExact(shard) > 1)")
		if split == 0 {
			t.Fatal("no order has versions on both shards")
		}
		tables := clusterTables()
		tables.Orders = "ods.order_by_date_dist"
		res, err := verifyCluster(t, c, w, realclickhouse.User, tables)
		if err != nil {
			t.Fatal(err)
		}
		o := res.Orders
		if res.OK || o.Total.OnShards != int(split) || o.Differences < int(split) {
			t.Fatalf("orders sharded by snapshot_date: ok %v, %d orders on both shards, %d differences; SQL finds %d orders on both\n%s",
				res.OK, o.Total.OnShards, o.Differences, split, table(t, res))
		}
		n := 0
		for _, d := range o.Diffs {
			if d.Kind == store.KindOnShards {
				n++
				if d.Shards != "1, 2" || d.Versions == "" {
					t.Errorf("difference %+v: want both shards and the versions", d)
				}
			}
		}
		if n != int(split) {
			t.Errorf("%d on_shards differences listed, want %d", n, split)
		}
		t.Logf("orders sharded by snapshot_date: %d of %d orders on both shards", split, o.Total.Planned)
	})

	t.Run("shard killed", func(t *testing.T) {
		c := c.In(t)
		c.KillShard(2)
		addr := "127.0.0.1:" + strconv.Itoa(c.Server(2, 1).NativePort())
		for _, user := range users {
			res, err := verifyCluster(t, c, w, user, clusterTables())
			var se *store.ShardError
			if !errors.As(err, &se) || !errors.Is(err, store.ErrShard) || len(se.Shards) != 1 || se.Shards[0].Num != 2 ||
				!strings.Contains(err.Error(), "cannot be read whole: shard 2 ("+addr+") of cluster clickstream_cluster") {
				t.Errorf("as %s with shard 2 down: %v (result %v); want an error naming shard 2 (%s)", user, err, res != nil, addr)
				continue
			}
			t.Logf("as %s: %v", user, err)
		}
		c.Server(2, 1).Restart()
	})

	t.Run("shard frozen", func(t *testing.T) {
		// A shard that accepts connections and answers nothing holds a read through it: 18.16
		// waits without a bound of its own. The read's timeout ends it, and the error says
		// which cluster's shards the read waited for.
		c := c.In(t)
		c.Server(2, 1).Pause()
		defer c.Server(2, 1).Resume()
		_, err := verifyClusterWithin(t, c, w, realclickhouse.LenientUser, clusterTables(), 3*time.Second)
		var te *clickhouse.TimeoutError
		if !errors.Is(err, store.ErrShard) || !errors.As(err, &te) ||
			!strings.Contains(err.Error(), "it reads every shard of cluster clickstream_cluster (shard 1 (") {
			t.Errorf("with shard 2 frozen: %v; want a timeout of a read through the cluster, naming its shards", err)
		}
		t.Logf("with shard 2 frozen: %v", err)
	})

	t.Run("WatchIDs copied onto the other shard", func(t *testing.T) {
		c := c.In(t)
		first := c.First()
		ids := strings.Split(first.Query("SELECT WatchID FROM ods.event_dist WHERE EventDate = '2026-06-02' ORDER BY WatchID LIMIT 5"), "\n")
		if n := c.CopyToOtherShard("ods.event_rep", "WatchID IN ("+strings.Join(ids, ", ")+")"); n != 5 {
			t.Fatalf("copied %d rows, want 5", n)
		}
		res, err := verifyCluster(t, c, w, realclickhouse.User, clusterTables())
		if err != nil {
			t.Fatal(err)
		}
		e := res.Events
		out := oneLine(table(t, res))
		if res.OK || e.Total.OnShards != 5 || e.Differences != 5 {
			t.Fatalf("5 WatchIDs on both shards: ok %v, on shards %d, differences %d\n%s", res.OK, e.Total.OnShards, e.Differences, out)
		}
		for _, d := range e.Diffs {
			if d.Kind != store.KindOnShards || !slices.Contains(ids, strconv.FormatUint(d.WatchID, 10)) || d.Shards != "1, 2" {
				t.Errorf("difference %+v: want on_shards of a copied WatchID on shards 1 and 2", d)
			}
			if !strings.Contains(out, fmt.Sprintf("events on_shards 2026-06-02: WatchID %d ClientID %d, 2 rows on shards 1 and 2: FINAL cannot collapse it", d.WatchID, d.ClientID)) {
				t.Errorf("the table does not name WatchID %d on both shards:\n%s", d.WatchID, out)
			}
		}
		if got, want := first.Int("SELECT count() FROM ods.event_v"), int64(*inv.Expect.Hits.ODSEvents)+5; got != want {
			t.Errorf("FINAL through the Distributed face counts %d, want %d: the stand counts each copied WatchID twice", got, want)
		}
	})
}

// TestDistributedReplicas1816: two shards of two replicas each; one replica of a shard down,
// its twin answers for it, and the store is whole: OK, for every reader.
func TestDistributedReplicas1816(t *testing.T) {
	c, w, _ := fillCluster(t, 2, 2)
	c.Server(2, 1).Kill()
	for _, user := range users {
		res, err := verifyCluster(t, c, w, user, clusterTables())
		if err != nil {
			t.Fatalf("as %s with replica 1 of shard 2 down: %v", user, err)
		}
		if !res.OK {
			t.Fatalf("as %s with replica 1 of shard 2 down, the store differs:\n%s", user, table(t, res))
		}
		if s := res.Events.Shards; len(s) != 2 || s[1].Rows == 0 {
			t.Errorf("as %s, events per shard %+v: want shard 2's rows, from its twin", user, s)
		}
	}
}
