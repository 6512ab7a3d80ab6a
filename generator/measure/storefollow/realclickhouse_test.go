package storefollow

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
)

// TestClickHouseStoreOnTheStandCluster asks a real two-shard cluster of ClickHouse 18.16 (the
// stand's DDL, ON CLUSTER) what a follower asks: the events' Distributed face is described as
// hits with EventDate and _load_ts, the Kafka reader is refused, and a lookup through the
// Distributed table finds the keys on both shards, fresh from before their load and stale from
// after it.
func TestClickHouseStoreOnTheStandCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("a real ClickHouse cluster: not under -short")
	}
	c := realclickhouse.StartCluster(t, realclickhouse.ClusterOptions{})
	c.ApplyDDL("127.0.0.1:1", realclickhouse.Topics{})
	msgs := hits(t, 200)
	ctx := context.Background()
	client, err := clickhouse.New(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	ch := &ClickHouse{Client: client}
	before, err := ch.Now(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(before); d > time.Minute || d < -time.Minute {
		t.Errorf("the server's clock is %v off", d)
	}
	// As the ingest view writes them: the message and its load time.
	var rows []string
	for _, m := range msgs {
		b, _ := json.Marshal(map[string]string{"raw": string(m), "_load_ts": time.Now().UTC().Format(time.DateTime)})
		rows = append(rows, string(b))
	}
	c.First().Insert("stg.hits_raw_dist", rows...)
	c.First().WaitRows("ods.event_dist", int64(len(msgs)))
	tb, err := ch.Describe(ctx, "ods.event_dist")
	if err != nil || tb.Kind != Hits || !tb.Date || !tb.LoadTime || tb.Engine != "Distributed" {
		t.Fatalf("Describe(ods.event_dist): %+v, %v", tb, err)
	}
	if _, err := ch.Describe(ctx, "stg.hits_raw_kafka"); !errors.Is(err, ErrNotFollowable) {
		t.Errorf("Describe(stg.hits_raw_kafka): %v, want a refusal (a stream engine)", err)
	}
	var keys []Key
	for _, m := range msgs {
		k, ok := keyOf(Hits, m)
		if !ok {
			t.Fatal("a clean message is not a row")
		}
		keys = append(keys, k)
	}
	keys = append(keys, Key{WatchID: 1, Date: keys[0].Date})
	found, err := ch.Lookup(ctx, tb, keys, before.Add(-time.Second))
	if err != nil {
		t.Fatal(err)
	}
	fresh := 0
	for _, f := range found {
		if f.Fresh {
			fresh++
		}
	}
	if len(found) != len(msgs) || fresh != len(msgs) {
		t.Errorf("a lookup of %d stored keys and one other found %d, %d fresh; want %d, all fresh", len(msgs), len(found), fresh, len(msgs))
	}
	shards := c.ShardCounts("ods.event_dist", "")
	if len(shards) != 2 {
		t.Errorf("rows per shard %v: want both shards to hold keys", shards)
	}
	found, err = ch.Lookup(ctx, tb, keys, time.Now().Add(time.Hour))
	if err != nil || len(found) != len(msgs) || found[0].Fresh {
		t.Errorf("a lookup from an hour on: %d found (first fresh %v), %v; want all found stale", len(found), len(found) > 0 && found[0].Fresh, err)
	}
	c.First().Insert("ods.order_dist", `{"order_id":"20260601-0001","snapshot_date":"2026-06-03","created_at":"2026-06-01 10:00:00","_load_ts":"2030-01-01 00:00:00"}`)
	ot, err := ch.Describe(ctx, "ods.order_dist")
	if err != nil || ot.Kind != Orders || !ot.Date || !ot.LoadTime {
		t.Fatalf("Describe(ods.order_dist): %+v, %v", ot, err)
	}
	found, err = ch.Lookup(ctx, ot, []Key{{OrderID: "20260601-0001"}, {OrderID: "x'y"}}, before)
	if err != nil || len(found) != 1 || found[0].Key.OrderID != "20260601-0001" || found[0].Key.Date.String() != "2026-06-03" || !found[0].Fresh {
		t.Errorf("orders lookup: %+v, %v", found, err)
	}
}
