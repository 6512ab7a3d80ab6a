package storefollow

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/schema"
)

// str appends a RowBinary String.
func str(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// fakeClickHouse answers the follower's queries over HTTP in RowBinary as a server holding
// one table of engine with columns would, and records the queries.
func fakeClickHouse(t *testing.T, engine string, cols [][2]string, answer func(sql string) []byte) (*ClickHouse, *[]string) {
	t.Helper()
	var queries []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		sql := strings.TrimSuffix(string(b), "\nFORMAT RowBinary")
		queries = append(queries, sql)
		var out []byte
		switch {
		case strings.Contains(sql, "FROM system.tables"):
			if engine != "" {
				out = str(out, engine)
			}
		case strings.Contains(sql, "FROM system.columns"):
			for _, c := range cols {
				out = str(str(out, c[0]), c[1])
			}
		case strings.Contains(sql, "now()"):
			out = binary.LittleEndian.AppendUint32(out, 1_800_000_000)
		default:
			out = answer(sql)
		}
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	c, err := clickhouse.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return &ClickHouse{Client: c}, &queries
}

var eventCols = [][2]string{{"WatchID", "UInt64"}, {"EventDate", "Date"}, {"ClientID", "UInt64"}, {"_load_ts", "DateTime('UTC')"}}

// TestDescribe: the table's kind from its key column, its date and load-time columns; a
// missing table, a stream engine, a table without a key column or with both are refused.
func TestDescribe(t *testing.T) {
	ctx := context.Background()
	ch, q := fakeClickHouse(t, "Distributed", eventCols, nil)
	tb, err := ch.Describe(ctx, "ods.event_dist")
	if err != nil || tb.Kind != Hits || !tb.Date || !tb.LoadTime || tb.Engine != "Distributed" {
		t.Fatalf("Describe: %+v, %v", tb, err)
	}
	if !strings.Contains((*q)[0], "database = 'ods' AND name = 'event_dist'") {
		t.Errorf("probe %q", (*q)[0])
	}
	ch, _ = fakeClickHouse(t, "ReplacingMergeTree", [][2]string{{"order_id", "String"}, {"snapshot_date", "Date"}}, nil)
	if tb, err := ch.Describe(ctx, "order_rep"); err != nil || tb.Kind != Orders || !tb.Date || tb.LoadTime {
		t.Errorf("orders without _load_ts: %+v, %v", tb, err)
	}
	for _, tc := range []struct {
		engine string
		cols   [][2]string
		want   string
	}{
		{"", eventCols, "no such table"},
		{"Kafka", [][2]string{{"raw", "String"}}, "a stream a read would consume"},
		{"MergeTree", [][2]string{{"raw", "String"}}, "neither WatchID"},
		{"MergeTree", [][2]string{{"WatchID", "UInt64"}, {"order_id", "String"}}, "both"},
		{"MergeTree", [][2]string{{"WatchID", "String"}}, "its WatchID is String"},
	} {
		ch, _ := fakeClickHouse(t, tc.engine, tc.cols, nil)
		_, err := ch.Describe(ctx, "stg.t")
		if !errors.Is(err, ErrNotFollowable) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("engine %q, columns %v: %v, want %q", tc.engine, tc.cols, err, tc.want)
		}
	}
	if _, err := ch.Describe(ctx, "ods.t'; DROP TABLE x"); err == nil {
		t.Error("a name that is not an identifier was spliced into SQL")
	}
}

// TestLookup: the query names the keys and their dates, and the answer's rows become Found.
func TestLookup(t *testing.T) {
	ctx := context.Background()
	from := time.Unix(1_800_000_000, 0)
	ch, q := fakeClickHouse(t, "Distributed", eventCols, func(sql string) []byte {
		out := binary.LittleEndian.AppendUint64(nil, 7)
		return append(out, 1)
	})
	tb := Table{Name: "ods.event_dist", Kind: Hits, Date: true, LoadTime: true}
	keys := []Key{{WatchID: 7, Date: 20605}, {WatchID: 9, Date: 20606}, {WatchID: 8, Date: 20605}}
	got, err := ch.Lookup(ctx, tb, keys, from)
	if err != nil || len(got) != 1 || got[0].Key.WatchID != 7 || !got[0].Fresh {
		t.Fatalf("Lookup: %+v, %v", got, err)
	}
	want := "SELECT WatchID, toUInt8(max(_load_ts) >= toDateTime(1800000000)) FROM ods.event_dist WHERE EventDate IN ('2026-06-01', '2026-06-02') AND WatchID IN (7, 9, 8) GROUP BY WatchID"
	if (*q)[0] != want {
		t.Errorf("query\n%s\nwant\n%s", (*q)[0], want)
	}
	ot := Table{Name: "ods.order_dist", Kind: Orders, Date: true}
	if got, want := LookupSQL(ot, []Key{{OrderID: "20260601-0001"}, {OrderID: `a'b\`}}, from),
		`SELECT order_id, snapshot_date, toUInt8(1) FROM ods.order_dist WHERE order_id IN ('20260601-0001', 'a\'b\\') GROUP BY order_id, snapshot_date`; got != want {
		t.Errorf("orders query\n%s\nwant\n%s", got, want)
	}
	ch, _ = fakeClickHouse(t, "", nil, func(string) []byte {
		out := str(nil, "20260601-0001")
		out = binary.LittleEndian.AppendUint16(out, uint16(schema.Date(20607)))
		return append(out, 0)
	})
	got, err = ch.Lookup(ctx, ot, []Key{{OrderID: "20260601-0001"}}, from)
	if err != nil || len(got) != 1 || got[0].Key.OrderID != "20260601-0001" || got[0].Key.Date != 20607 || got[0].Fresh {
		t.Errorf("orders Lookup: %+v, %v", got, err)
	}
	ch, _ = fakeClickHouse(t, "", nil, func(string) []byte { return []byte{1, 2, 3} })
	if _, err := ch.Lookup(ctx, tb, keys, from); err == nil {
		t.Error("an answer cut inside a row was taken")
	}
}
