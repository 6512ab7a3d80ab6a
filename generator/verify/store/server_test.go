package store_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/store"
	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
)

// ddl1816 lays out the stand's six tables, with the stand's names and the columns verify
// reads, in what ClickHouse 18.16 accepts (no LowCardinality, no DateTime64, local engines
// instead of Distributed ones; the marts view over a table).
var ddl1816 = []string{
	"CREATE DATABASE IF NOT EXISTS ods", "CREATE DATABASE IF NOT EXISTS stg", "CREATE DATABASE IF NOT EXISTS dm",
	"CREATE TABLE ods.event_dist (WatchID UInt64, EventDate Date, ClientID UInt64, _load_ts DateTime) ENGINE = ReplacingMergeTree(_load_ts) PARTITION BY EventDate ORDER BY (EventDate, intHash32(ClientID), WatchID)",
	"CREATE TABLE ods.event_errors_dist (raw String, error_class String, _load_ts DateTime) ENGINE = MergeTree PARTITION BY toDate(_load_ts) ORDER BY error_class",
	"CREATE TABLE stg.hits_raw_dist (raw String, _load_ts DateTime) ENGINE = MergeTree PARTITION BY toDate(_load_ts) ORDER BY _load_ts",
	"CREATE TABLE ods.order_dist (order_id String, snapshot_date Date) ENGINE = ReplacingMergeTree(snapshot_date) ORDER BY order_id",
	"CREATE TABLE ods.order_errors_dist (raw String, error_class String) ENGINE = MergeTree ORDER BY error_class",
	"CREATE TABLE dm.purchase_vs_orders_dist (order_day Date, order_id String, mismatch_class String) ENGINE = MergeTree ORDER BY (order_day, order_id)",
	"CREATE VIEW dm.purchase_vs_orders_v AS SELECT order_day, order_id, mismatch_class FROM dm.purchase_vs_orders_dist",
}

func appendString(b []byte, s []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// load1816 inserts the fake store's rows into the server's tables in RowBinary, loaded at
// loadTS.
func load1816(t *testing.T, srv *realclickhouse.Server, f *fakeStore, loadTS uint32) {
	t.Helper()
	var ev, raw, errs, ords, oerrs, marts []byte
	for _, e := range f.events {
		ev = binary.LittleEndian.AppendUint64(ev, e.watchID)
		ev = binary.LittleEndian.AppendUint16(ev, uint16(e.date))
		ev = binary.LittleEndian.AppendUint64(ev, e.clientID)
		ev = binary.LittleEndian.AppendUint32(ev, loadTS)
	}
	for _, r := range f.raw {
		raw = binary.LittleEndian.AppendUint32(appendString(raw, r.raw), loadTS)
	}
	for _, r := range f.errors {
		errs = binary.LittleEndian.AppendUint32(appendString(appendString(errs, r.raw), []byte(r.class)), loadTS)
	}
	for _, o := range f.orders {
		ords = binary.LittleEndian.AppendUint16(appendString(ords, []byte(o.id)), uint16(o.date))
	}
	for _, r := range f.orderErrors {
		oerrs = appendString(appendString(oerrs, r.raw), []byte(r.class))
	}
	for i, m := range f.marts {
		for k := range m.Count {
			marts = binary.LittleEndian.AppendUint16(marts, uint16(m.Day))
			marts = appendString(marts, []byte(strings.Repeat("x", i)+string(rune('a'+k%26))))
			marts = appendString(marts, []byte(m.Class))
		}
	}
	for table, data := range map[string][]byte{"ods.event_dist": ev, "stg.hits_raw_dist": raw, "ods.event_errors_dist": errs,
		"ods.order_dist": ords, "ods.order_errors_dist": oerrs, "dm.purchase_vs_orders_dist": marts} {
		srv.In(t).InsertData(table, "RowBinary", bytes.NewReader(data))
	}
}

// TestServer1816Verify: Verify's queries on the real ClickHouse 18.16 server, over tables
// with the stand's names holding only the keys verify reads with --columns keys, filled with
// the run as the stand's intake lands it: exact; then a
// day deleted (ALTER DELETE), a day replayed (copies, not differences), a table dropped (a
// difference naming it), and a user without the password (an error, no result).
func TestServer1816Verify(t *testing.T) {
	server := realclickhouse.Start(t, realclickhouse.Options{})
	srv := server
	w, f, inv := filled(t)
	for _, stmt := range ddl1816 {
		srv.Query(stmt)
	}
	now := time.Now().Unix()
	load1816(t, srv, f, uint32(now-120))
	c, err := clickhouse.New(srv.URL(), clickhouse.User(realclickhouse.User), clickhouse.Password(srv.Password()))
	if err != nil {
		t.Fatal(err)
	}
	src := &store.ClickHouse{Client: c}
	run := store.Range{From: runFrom, Days: runDays, Garbage: every}
	check := func(t *testing.T, opt store.Options) *store.Result {
		t.Helper()
		// These tables hold the keys alone (verify_store_1816_test.go judges values).
		opt.Tables, opt.Columns = store.StandTables(), store.ColumnsKeys
		res, err := store.Verify(context.Background(), w, run, src, opt)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	t.Run("sipHash64", func(t *testing.T) {
		// Every length up to 300 bytes (each tail length, one and several 8-byte words), with
		// NUL, 0xff and UTF-8 bytes, and raw messages of the run: the server's sipHash64 is
		// SipHash64.
		srv := server.In(t)
		var msgs [][]byte
		for n := range 301 {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(i*131 + n*7)
			}
			msgs = append(msgs, b)
		}
		msgs = append(msgs, []byte("слово\t\n\x00"))
		for _, r := range f.raw[:50] {
			msgs = append(msgs, r.raw)
		}
		var data []byte
		for i, m := range msgs {
			data = binary.LittleEndian.AppendUint32(data, uint32(i))
			data = appendString(data, m)
		}
		srv.Query("CREATE TABLE default.hashes (i UInt32, raw String) ENGINE = Memory")
		srv.InsertData("default.hashes", "RowBinary", bytes.NewReader(data))
		got := strings.Split(srv.Query("SELECT sipHash64(raw) FROM default.hashes ORDER BY i"), "\n")
		if len(got) != len(msgs) {
			t.Fatalf("%d hashes for %d strings", len(got), len(msgs))
		}
		for i, m := range msgs {
			if want := strconv.FormatUint(store.SipHash64(m), 10); got[i] != want {
				t.Errorf("sipHash64 of %d bytes %q…: server %s, SipHash64 %s", len(m), m[:min(len(m), 20)], got[i], want)
			}
		}
	})

	t.Run("exact", func(t *testing.T) {
		res := check(t, store.Options{})
		if !res.OK {
			t.Fatalf("the exact store differs:\n%s", table(t, res))
		}
		if !strings.Contains(res.Store, "ClickHouse 18.16") || res.Raw.Total.Expired != 0 || len(res.Raw.Notes) != 0 {
			t.Errorf("store %q, raw %+v, notes %v", res.Store, res.Raw.Total, res.Raw.Notes)
		}
		t.Logf("\n%s", table(t, res))
	})

	t.Run("a day deleted", func(t *testing.T) {
		srv := server.In(t)
		srv.DeleteDay("ods.event_dist", world.DayDate(2).String())
		res := check(t, store.Options{})
		d := res.Events.Dates[2]
		if want := *inv.Days[2].Expect.ODSEvents; res.OK || d.Missing != want || res.Events.Differences != want || !res.Raw.OK {
			t.Errorf("day 2 deleted: OK %v, missing %d, differences %d, raw OK %v; want %d missing", res.OK, d.Missing, res.Events.Differences, res.Raw.OK, want)
		}
	})

	t.Run("a day replayed", func(t *testing.T) {
		srv := server.In(t)
		srv.Query("TRUNCATE TABLE ods.event_dist")
		load1816(t, srv, &fakeStore{events: f.events}, uint32(now-60))
		srv.Query("INSERT INTO ods.event_dist SELECT * FROM ods.event_dist WHERE EventDate = '" + world.DayDate(3).String() + "'")
		res := check(t, store.Options{})
		if !res.OK || res.Events.Dates[3].Copies < *inv.Days[3].Expect.ODSEvents {
			t.Errorf("day 3 replayed: OK %v, copies %d; want OK with a copy of every event", res.OK, res.Events.Dates[3].Copies)
		}
		if res := check(t, store.Options{ExactlyOnce: true}); res.OK || res.Events.OK {
			t.Error("day 3 replayed: --exactly-once finds no difference")
		}
	})

	t.Run("a table dropped", func(t *testing.T) {
		srv := server.In(t)
		srv.Query("DROP TABLE dm.purchase_vs_orders_v")
		res := check(t, store.Options{})
		if res.OK || res.Marts.OK || !strings.Contains(res.Marts.Error, "dm.purchase_vs_orders_v does not exist") {
			t.Errorf("marts: %+v", res.Marts.TableHead)
		}
		t.Logf("marts: %s", res.Marts.Error)
	})

	t.Run("no password", func(t *testing.T) {
		c, err := clickhouse.New(srv.URL(), clickhouse.User(realclickhouse.User))
		if err != nil {
			t.Fatal(err)
		}
		res, err := store.Verify(context.Background(), w, run, &store.ClickHouse{Client: c}, store.Options{Tables: store.StandTables(), Columns: store.ColumnsKeys})
		if res != nil || err == nil || !strings.Contains(err.Error(), realclickhouse.User) {
			t.Fatalf("Verify without the password = %v, %v; want an error and no result", res != nil, err)
		}
		t.Log(err)
	})

	t.Run("expired raw rows", func(t *testing.T) {
		srv := server.In(t)
		// Day 0's events were loaded four days ago, and its raw rows are gone.
		srv.DeleteWhere("stg.hits_raw_dist", "visitParamExtractString(raw, 'EventDate') = '"+world.DayDate(0).String()+"'")
		srv.Query("TRUNCATE TABLE ods.event_dist")
		var old, recent []evRow
		for _, e := range f.events {
			if e.date == world.DayDate(0) {
				old = append(old, e)
			} else {
				recent = append(recent, e)
			}
		}
		load1816(t, srv, &fakeStore{events: old}, uint32(now-4*86400))
		load1816(t, srv, &fakeStore{events: recent}, uint32(now-60))
		res := check(t, store.Options{Tables: store.Tables{}})
		u := res.Raw.Units[0]
		if u.Expired == 0 || u.Missing != 0 {
			t.Errorf("raw day 0: %+v; want its rows expired", u.DigestCounts)
		}
		t.Logf("raw day 0: %+v", u.DigestCounts)
	})
}
