package tests

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
)

// storeBound bounds one verify process of these tests: one that does not end within it hangs.
const storeBound = 3 * time.Minute

// TestVerifyStoreWaitBoundsAFrozenServer is issue 35's finding: `verify --clickhouse URL --wait
// 5s` against a frozen (SIGSTOPped) 18.16 server took 122 s, the client's first-byte timeout.
// The wait bounds the first answer too: verify ends with exit 1 saying that the server did not
// answer within the wait, and that --wait bounded it.
func TestVerifyStoreWaitBoundsAFrozenServer(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	if testing.Short() {
		t.Skip("the real ClickHouse tier does not run under -short")
	}
	server := realclickhouse.Start(t, realclickhouse.Options{})
	bin := buildClickgen(t)
	server.Pause()
	defer server.Resume()
	ctx, cancel := context.WithTimeout(context.Background(), storeBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "verify", "--day", "0", "--clickhouse", server.URL(), "--wait", "3s")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("verify --wait 3s against a frozen server did not end within %v:\n%s", storeBound, errb.String())
	}
	if code := exitCodeOf(t, err); code != 1 || !strings.Contains(errb.String(), "did not answer within the wait of 3s") ||
		!strings.Contains(errb.String(), "(--wait)") {
		t.Errorf("exit %d; want 1 saying the wait of 3s bounded it:\n%s", code, errb.String())
	}
	t.Log(errb.String())
}

// TestVerifyStoreInterruptCancelsItsQuery is issue 35's finding: after Ctrl-C, verify's query
// kept running on the 18.16 server (which does not cancel a query whose client went away)
// until someone killed it. An events table whose count takes a minute (a view sleeping a
// second per one-row block) is read; SIGINT while its query runs ends verify with 130, and
// system.processes holds none of verify's queries once it has exited.
func TestVerifyStoreInterruptCancelsItsQuery(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	if testing.Short() {
		t.Skip("the real ClickHouse tier does not run under -short")
	}
	server := realclickhouse.Start(t, realclickhouse.Options{})
	bin := buildClickgen(t)
	server.Query("CREATE TABLE default.slow_events (WatchID UInt64, EventDate Date, ClientID UInt64, _load_ts DateTime) ENGINE = Memory")
	for i := range 60 { // one block each
		server.Query(fmt.Sprintf("INSERT INTO default.slow_events VALUES (%d, '2026-06-01', %d, now())", i+1, i+1))
	}
	server.Query("CREATE VIEW default.slow_view AS SELECT * FROM default.slow_events WHERE sleepEachRow(1) = 0")
	ours := func() string {
		return server.Query("SELECT count() FROM system.processes WHERE query_id LIKE 'clickgen-%'")
	}

	ctx, cancel := context.WithTimeout(context.Background(), storeBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "verify", "--day", "0", "--clickhouse", server.URL(), "--events-table", "default.slow_view",
		"--errors-table", "", "--raw-table", "", "--orders-table", "", "--order-errors-table", "", "--marts-view", "")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A read of the slow view (its count or its rows, each a second a row), not a quick query
	// before it: one of those (the probe's, which reads system.tables and system.columns only)
	// seen running had ended by itself before the signal came on a loaded machine, and the
	// interrupted verify had no query left to cancel.
	reading := func() string {
		return server.Query("SELECT count() FROM system.processes WHERE query_id LIKE 'clickgen-%' " +
			"AND position(query, 'slow_view') > 0 AND position(query, 'system.') = 0")
	}
	for reading() != "1" {
		if ctx.Err() != nil {
			t.Fatalf("verify's query never showed in system.processes:\n%s", errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("verify did not end after SIGINT:\n%s", errb.String())
	}
	if code := exitCodeOf(t, err); code != 130 {
		t.Errorf("exit %d after SIGINT, want 130:\n%s", code, errb.String())
	}
	if n := ours(); n != "0" {
		t.Errorf("%s of verify's queries still run on the server after it exited:\n%s", n, errb.String())
	}
	if !strings.Contains(errb.String(), "cancelled on the server") {
		t.Errorf("verify did not say it cancelled its query:\n%s", errb.String())
	}
	t.Log(errb.String())
}
