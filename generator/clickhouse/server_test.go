package clickhouse_test

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
)

// TestServer1816: the client against the real ClickHouse 18.16 server (Debian's package):
// version, RowBinary of UInt64, Date, String and FixedString(16) (MD5, compared with Go's),
// its errors typed (unknown table and column, wrong password, a failure after rows were
// sent) and a long query ended by cancelling the context.
func TestServer1816(t *testing.T) {
	server := realclickhouse.Start(t, realclickhouse.Options{})
	ctx := context.Background()
	c, err := clickhouse.New(server.URL(), clickhouse.User(realclickhouse.User), clickhouse.Password(server.Password()))
	if err != nil {
		t.Fatal(err)
	}
	v, err := c.Ping(ctx)
	if want := server.Version(); err != nil || v != want {
		t.Fatalf("Ping = %q, %v; want %q", v, err, want)
	}

	t.Run("rows", func(t *testing.T) {
		srv := server.In(t)
		for _, stmt := range []string{"DROP TABLE IF EXISTS default.rows_t",
			"CREATE TABLE default.rows_t (WatchID UInt64, EventDate Date, ClientID UInt64, raw String) ENGINE = MergeTree PARTITION BY EventDate ORDER BY WatchID",
			`INSERT INTO default.rows_t VALUES (18446744073709551615, '2026-06-01', 1, '{"a":1}'), (5, '2105-12-31', 0, ''), (7, '1970-01-01', 42, 'слово\t\n')`} {
			srv.Query(stmt)
		}
		rows, err := c.Query(ctx, "SELECT WatchID, EventDate, ClientID, raw, MD5(raw) FROM default.rows_t ORDER BY WatchID")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		type row struct {
			id, client uint64
			date       uint16
			raw        string
		}
		want := []row{{5, 0, 49672, ""}, {7, 42, 0, "слово\t\n"}, {1<<64 - 1, 1, 20605, `{"a":1}`}}
		for i := 0; ; i++ {
			more, err := rows.More()
			if err != nil {
				t.Fatal(err)
			}
			if !more {
				if i != len(want) {
					t.Errorf("%d rows, want %d", i, len(want))
				}
				break
			}
			var r row
			var raw []byte
			var sum [16]byte
			r.id, _ = rows.UInt64()
			r.date, _ = rows.UInt16()
			r.client, _ = rows.UInt64()
			raw, _ = rows.String(nil)
			if err := rows.Fixed(sum[:]); err != nil {
				t.Fatal(err)
			}
			r.raw = string(raw)
			if i >= len(want) || r != want[i] {
				t.Errorf("row %d = %+v", i, r)
			}
			if sum != md5.Sum(raw) {
				t.Errorf("row %d: MD5(raw) = %x, Go's md5 = %x", i, sum, md5.Sum(raw))
			}
		}
		if err := rows.End(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			sql string
			is  error
		}{
			{"SELECT WatchID FROM nosuch.event_dist", clickhouse.ErrUnknownTable},
			{"SELECT WatchID FROM default.nosuch", clickhouse.ErrUnknownTable},
			{"SELECT NoSuchColumn FROM default.rows_t", clickhouse.ErrUnknownColumn},
		} {
			_, err := c.Query(ctx, tc.sql)
			if !errors.Is(err, tc.is) {
				t.Errorf("%s: %v, want %v", tc.sql, err, tc.is)
			}
			t.Logf("%s: %v", tc.sql, err)
		}
		bad, err := clickhouse.New(server.URL(), clickhouse.User(realclickhouse.User), clickhouse.Password("wrong-"+server.Password()))
		if err != nil {
			t.Fatal(err)
		}
		_, err = bad.Ping(ctx)
		if !errors.Is(err, clickhouse.ErrAuth) || strings.Contains(err.Error(), server.Password()) {
			t.Errorf("wrong password: %v, want ErrAuth without the password", err)
		}
		t.Logf("wrong password: %v", err)
	})

	t.Run("mid-stream", func(t *testing.T) {
		// 18.16 sends its 200 and the first blocks, then appends the exception to the body.
		rows, err := c.Query(ctx, "SELECT number, throwIf(number = 300000) FROM system.numbers LIMIT 1000000")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := 0
		for err == nil {
			var more bool
			if more, err = rows.More(); err != nil || !more {
				break
			}
			if _, err = rows.UInt64(); err == nil {
				_, err = rows.UInt8()
			}
			n++
		}
		if err == nil {
			err = rows.End()
		}
		var se *clickhouse.ServerError
		if !errors.As(err, &se) || !se.MidStream || se.Code != 395 {
			t.Fatalf("after %d rows: %v; want the mid-stream exception 395", n, err)
		}
		t.Logf("after %d rows: %v", n, err)
	})

	t.Run("cancel", func(t *testing.T) {
		srv := server.In(t)
		// A query that sleeps before its first block: cancelling ends the wait at once.
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			_, err := c.Query(cctx, "SELECT sleep(3) FROM system.numbers LIMIT 10 SETTINGS max_block_size = 1")
			done <- err
		}()
		// Cancel once the server runs it (system.processes lists it).
		srv.WaitCount("SELECT count() FROM system.processes WHERE query LIKE '%sleep(3) FROM system.numbers%' AND query NOT LIKE '%system.processes%'", 1)
		start := time.Now()
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("cancelled query: %v, want context.Canceled", err)
			}
			t.Logf("the query ended %v after cancel", time.Since(start).Round(time.Millisecond))
			// 18.16 keeps running a query whose client left: end it, or the server's
			// shutdown waits for it.
			srv.Query("KILL QUERY WHERE query LIKE '%sleep(3) FROM system.numbers%' SYNC")
		case <-time.After(time.Minute):
			t.Fatal("the query did not end after cancel")
		}
	})
}

// ExampleClient queries a server's version.
func ExampleClient() {
	c, err := clickhouse.New("http://127.0.0.1:8123", clickhouse.User("default"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Endpoint(), c.UserName())
	// Output: http://127.0.0.1:8123/ default
}
