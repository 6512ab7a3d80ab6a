package clickhouse_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
)

// TestCancelOnServer1816 is issue 35's finding on the real 18.16 server: a query verify gave
// up on (Ctrl-C, --timeout) kept running on the server, which does not cancel a query whose
// client went away. A slow query (sleepEachRow over one-row blocks) ended by cancelling its
// context, by the first-byte timeout, or by the server-side limit leaves nothing of the
// client's in system.processes once Query returns; the limit is the server's own (code 159),
// and a read-only user (readonly=1 refuses max_execution_time) still reads, and still has
// its query killed.
func TestCancelOnServer1816(t *testing.T) {
	if testing.Short() {
		t.Skip("the real ClickHouse tier does not run under -short")
	}
	server := realclickhouse.Start(t, realclickhouse.Options{})
	const slow = "SELECT sleepEachRow(1) FROM numbers(120) SETTINGS max_block_size = 1"
	ours := func(c *clickhouse.Client) string {
		return server.Query("SELECT count() FROM system.processes WHERE query_id LIKE '" + c.QueryIDPrefix() + "%'")
	}
	running := func(t *testing.T, c *clickhouse.Client) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if ours(c) == "1" {
				return
			}
		}
		t.Fatal("the slow query never showed in system.processes")
	}
	newClient := func(t *testing.T, lines *[]string, opts ...clickhouse.Opt) *clickhouse.Client {
		var mu sync.Mutex
		opts = append([]clickhouse.Opt{clickhouse.User(realclickhouse.User), clickhouse.Password(server.Password()),
			clickhouse.Logf(func(f string, a ...any) { mu.Lock(); *lines = append(*lines, fmt.Sprintf(f, a...)); mu.Unlock() })}, opts...)
		c, err := clickhouse.New(server.URL(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	noneLeft := func(t *testing.T, c *clickhouse.Client, lines []string) {
		t.Helper()
		if n := ours(c); n != "0" {
			t.Errorf("%s queries of ours still in system.processes", n)
		}
		if len(lines) == 0 || !strings.Contains(lines[len(lines)-1], "cancelled on the server") {
			t.Errorf("told %q; want the cancellation said", lines)
		}
	}

	t.Run("context cancelled", func(t *testing.T) {
		var lines []string
		c := newClient(t, &lines)
		ctx, cancel := context.WithCancel(context.Background())
		go func() { running(t, c); cancel() }()
		if _, err := c.Query(ctx, slow); !errors.Is(err, context.Canceled) {
			t.Fatalf("Query = %v, want context.Canceled", err)
		}
		noneLeft(t, c, lines)
	})
	t.Run("first-byte timeout", func(t *testing.T) {
		var lines []string
		c := newClient(t, &lines, clickhouse.FirstByteTimeout(2*time.Second), clickhouse.ServerTimeLimit(0))
		_, err := c.Query(context.Background(), slow)
		var te *clickhouse.TimeoutError
		if !errors.As(err, &te) {
			t.Fatalf("Query = %v, want a TimeoutError", err)
		}
		noneLeft(t, c, lines)
	})
	t.Run("server-side limit", func(t *testing.T) {
		var lines []string
		c := newClient(t, &lines, clickhouse.ServerTimeLimit(time.Second))
		_, err := c.Query(context.Background(), slow)
		var se *clickhouse.ServerError
		if !errors.As(err, &se) || se.Code != 159 {
			t.Fatalf("Query = %v, want the server's timeout (code 159)", err)
		}
		if n := ours(c); n != "0" {
			t.Errorf("%s queries of ours still in system.processes", n)
		}
	})
	t.Run("read-only user", func(t *testing.T) {
		// The packaged users.xml's `readonly` user: no password, profile readonly (readonly=1),
		// which forbids settings and table functions in the query too: the slow query sleeps
		// over a Memory table that keeps each insert as a block of one row.
		srv := server.In(t)
		srv.Query("CREATE TABLE default.blocks (n UInt8) ENGINE = Memory")
		for i := range 60 {
			srv.Query(fmt.Sprintf("INSERT INTO default.blocks VALUES (%d)", i))
		}
		var lines []string
		c, err := clickhouse.New(server.URL(), clickhouse.User("readonly"),
			clickhouse.Logf(func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }))
		if err != nil {
			t.Fatal(err)
		}
		if v, err := c.Ping(context.Background()); err != nil || v == "" {
			t.Fatalf("Ping as a read-only user = %q, %v", v, err)
		}
		if len(lines) != 1 || !strings.Contains(lines[0], "without max_execution_time") {
			t.Errorf("told %q; want one line saying the limit was refused", lines)
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { running(t, c); cancel() }()
		if _, err := c.Query(ctx, "SELECT sleepEachRow(1) FROM default.blocks"); !errors.Is(err, context.Canceled) {
			t.Fatalf("Query = %v, want context.Canceled", err)
		}
		noneLeft(t, c, lines)
	})
}
