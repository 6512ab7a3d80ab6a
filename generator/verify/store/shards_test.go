package store_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/internal/testenv"
)

// sharded spreads the fake store's events and orders over two shards as the stand's
// Distributed tables do, by a hash of the key (here ClientID and the order_id's bytes), and
// gives its Distributed tables their cluster.
func sharded(f *fakeStore) {
	cl := &store.Cluster{Name: "clickstream_cluster", Shards: []store.Shard{
		{Num: 1, Replicas: []string{"127.0.0.1:9001"}}, {Num: 2, Replicas: []string{"127.0.0.1:9004"}}}}
	for _, info := range f.layout {
		if info.Engine == "Distributed" {
			info.Cluster = cl
		}
	}
	for i := range f.events {
		f.events[i].shard = int(f.events[i].clientID%2) + 1
	}
	for i := range f.orders {
		sum := 0
		for _, c := range []byte(f.orders[i].id) {
			sum += int(c)
		}
		f.orders[i].shard = sum%2 + 1
	}
}

// TestShardsOfAKey: a key read through a Distributed table whose rows came from two shards
// is a difference, whatever its rows hold: FINAL collapses a key's rows within one shard, so
// the stand counts it once per shard. Before, an equal row of a WatchID on the other shard was
// a copy, and verify said OK (issue 37: five rows of shard 1 copied onto shard 2, "5 copies",
// exit 0). The same row twice on one shard stays a copy; and the report gives each shard's rows.
func TestShardsOfAKey(t *testing.T) {
	testenv.SkipUnderRace(t, watchedReadAhead)
	w, f, _ := filled(t)
	sharded(f)
	res := verify(t, w, f, store.Options{})
	if !res.OK {
		t.Fatalf("an exact store on two shards differs:\n%s", table(t, res))
	}
	e := res.Events
	if e.Cluster != "clickstream_cluster" || len(e.Shards) != 2 || e.Shards[0].Rows == 0 || e.Shards[1].Rows == 0 ||
		e.Shards[0].Rows+e.Shards[1].Rows != e.Total.Rows || !slices.Equal(e.Shards[1].Replicas, []string{"127.0.0.1:9004"}) {
		t.Errorf("events per shard %+v of %d rows on cluster %q: want both shards' rows, with their replicas", e.Shards, e.Total.Rows, e.Cluster)
	}
	for _, d := range e.Dates {
		if len(d.Shards) != 2 || d.Shards[0].Rows+d.Shards[1].Rows != d.Rows {
			t.Errorf("events %s per shard %+v, want the date's %d rows", d.Date, d.Shards, d.Rows)
		}
	}
	if o := res.Orders; len(o.Shards) != 2 || o.Shards[0].Rows+o.Shards[1].Rows != o.Total.Rows || o.Shards[0].Rows == 0 {
		t.Errorf("orders per shard %+v of %d rows", o.Shards, o.Total.Rows)
	}
	out := oneLine(table(t, res))
	if !strings.Contains(out, "every shard of cluster clickstream_cluster read: shard 1 (127.0.0.1:9001) ") {
		t.Errorf("the table does not say the shards read:\n%s", out)
	}

	t.Run("copy on the same shard", func(t *testing.T) {
		g := f.clone()
		g.events = append(g.events, g.events[10])
		got := verify(t, w, g, store.Options{})
		if !got.OK || got.Events.Total.Copies != res.Events.Total.Copies+1 || got.Events.Total.OnShards != 0 {
			t.Errorf("a row twice on its shard: ok %v, copies %d (%d before), on shards %d; want one copy more, OK",
				got.OK, got.Events.Total.Copies, res.Events.Total.Copies, got.Events.Total.OnShards)
		}
	})

	t.Run("events", func(t *testing.T) {
		g := f.clone()
		var moved []uint64
		for _, i := range []int{10, 500, 1500} {
			c := g.events[i]
			c.shard = 3 - c.shard
			g.events = append(g.events, c)
			moved = append(moved, c.watchID)
		}
		res := verify(t, w, g, store.Options{})
		out := oneLine(table(t, res))
		if res.OK || res.Events.OK || res.Events.Total.OnShards != 3 || res.Events.Differences != 3 {
			t.Fatalf("3 WatchIDs on both shards: ok %v, on shards %d, differences %d; want 3 differences\n%s",
				res.OK, res.Events.Total.OnShards, res.Events.Differences, out)
		}
		for _, d := range res.Events.Diffs {
			if d.Kind != store.KindOnShards || !slices.Contains(moved, d.WatchID) || d.Shards != "1, 2" || d.Rows != 2 {
				t.Errorf("difference %+v: want on_shards of a moved WatchID, shards 1, 2, 2 rows", d)
			}
		}
		if !strings.Contains(out, "rows on shards 1 and 2: FINAL cannot collapse it") {
			t.Errorf("the differences do not say the shards:\n%s", out)
		}
	})

	t.Run("orders", func(t *testing.T) {
		// An older version of an order on the other shard: a layout sharded by another key
		// than order_id places a later version away from the earlier.
		g := f.clone()
		k := slices.IndexFunc(g.orders, func(o ordRow) bool {
			return slices.ContainsFunc(g.orders, func(p ordRow) bool { return p.id == o.id && p.date > o.date })
		})
		if k < 0 {
			t.Fatal("no order with two versions")
		}
		g.orders[k].shard = 3 - g.orders[k].shard
		res := verify(t, w, g, store.Options{})
		out := oneLine(table(t, res))
		if res.OK || res.Orders.Total.OnShards != 1 || res.Orders.Differences != 1 {
			t.Fatalf("an order's versions on two shards: ok %v, on shards %d, differences %d; want 1\n%s", res.OK, res.Orders.Total.OnShards, res.Orders.Differences, out)
		}
		d := res.Orders.Diffs[0]
		if d.Kind != store.KindOnShards || d.OrderID != g.orders[k].id || d.Shards != "1, 2" ||
			!strings.Contains(d.Versions, g.orders[k].date.String()+"@") {
			t.Errorf("difference %+v: want on_shards of order %s, shards 1, 2, its versions", d, g.orders[k].id)
		}
		if !strings.Contains(out, "orders on_shards: order_id "+g.orders[k].id) || !strings.Contains(out, "FINAL cannot collapse it") {
			t.Errorf("the differences do not name the order:\n%s", out)
		}
	})
}

// oneLine is the console's table with its wrapped lines joined.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestShardErr: a server's error of a read through a Distributed table names the shard whose
// replica's address it names (not one whose address is a prefix of it), all of them for code
// 279 naming none, and leaves other errors as they are; the 18.16 message's repeated tries are
// said once.
func TestShardErr(t *testing.T) {
	cl := &store.Cluster{Name: "c", Shards: []store.Shard{{Num: 1, Replicas: []string{"127.0.0.1:900"}}, {Num: 2, Replicas: []string{"127.0.0.1:9001"}}}}
	refused := "Code: 210, e.displayText() = DB::NetException: Connection refused (127.0.0.1:9001), e.what() = DB::NetException "
	for _, tc := range []struct {
		name   string
		err    error
		shards []int
		text   string
	}{
		{"279 naming shard 2", &clickhouse.ServerError{Code: 279, Message: "All connection tries failed. Log: " + refused + refused + refused},
			[]int{2}, "c cannot be read whole: shard 2 (127.0.0.1:9001) of cluster c could not be read: code 279: All connection tries failed: Connection refused (127.0.0.1:9001) (code 210); nothing was judged"},
		{"279 naming none", &clickhouse.ServerError{Code: 279, Message: "All connection tries failed. Log: Code: 32, e.displayText() = DB::Exception: Attempt to read after eof, e.what() = DB::Exception"},
			[]int{1, 2}, "Attempt to read after eof (code 32)"},
		{"mid-stream, naming shard 1", &clickhouse.ServerError{Code: 32, MidStream: true, Message: "Attempt to read after eof: while reading from 127.0.0.1:900"},
			[]int{1}, "shard 1 (127.0.0.1:900) of cluster c could not be read"},
		{"another table's error", &clickhouse.ServerError{Code: 60, Message: "Table t.x doesn't exist."}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := store.ShardErr("c", cl, tc.err)
			var se *store.ShardError
			if tc.shards == nil {
				if err != tc.err {
					t.Errorf("%v became %v", tc.err, err)
				}
				return
			}
			if !errors.As(err, &se) {
				t.Fatalf("%v: want a ShardError", err)
			}
			var got []int
			for _, s := range se.Shards {
				got = append(got, s.Num)
			}
			if !slices.Equal(got, tc.shards) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("shards %v, %q; want shards %v and %q", got, err, tc.shards, tc.text)
			}
		})
	}
}

// TestClusterOfOneServerTwice: a cluster that lists one server in two shards has its table
// read once per shard through the Distributed table, and which shard sent a row cannot be
// told: the table is not read, a difference naming the server, not copies judged OK.
func TestClusterOfOneServerTwice(t *testing.T) {
	w, f, _ := filled(t)
	sharded(f)
	cl := &store.Cluster{Name: "twice", Shards: []store.Shard{{Num: 1, Replicas: []string{"127.0.0.1:9000"}}, {Num: 2, Replicas: []string{"127.0.0.1:9000"}}}}
	f.layout[store.StandTables().Events].Cluster = cl
	res := verify(t, w, f, store.Options{})
	if res.OK || !strings.Contains(res.Events.Error, "cluster twice lists 127.0.0.1:9000 in shards 1 and 2") {
		t.Errorf("events through a cluster listing one server twice: ok %v, error %q; want it unread, naming the server", res.OK, res.Events.Error)
	}
}
