package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Issue 31's last silent waits, and what an interrupted verb says: verify reading the topics,
// brokers (or a ClickHouse server) that accept the connection and never answer. Each wait
// says, a second in, what it waits for and how long at most; the first signal ends it; the
// verb then says it was interrupted and what it had done, exit 130.

// interruptedRun runs clickgen with args in the background and, once stderr has a line
// containing waitFor, sends the first signal; it returns stderr, the error and the exit code.
func interruptedRun(t *testing.T, waitFor string, args ...string) (stderr *lineWatch, err error, code int) {
	t.Helper()
	ctx, signal := context.WithCancel(context.Background())
	defer signal()
	stderr, done := newLineWatch(), make(chan error, 1)
	go func() {
		err := run(ctx, args, io.Discard, stderr)
		stderr.Close()
		done <- err
	}()
	awaitLine(t, stderr, waitFor, time.Minute)
	signal()
	select {
	case err = <-done:
		return stderr, err, exitCode(err, io.Discard)
	case <-time.After(30 * time.Second):
		t.Fatalf("%q: the first signal did not end the wait within 30s:\n%s", args, stderr)
	}
	return nil, nil, -1
}

// TestConnectWaitAnnounced: every verb that connects to Kafka says, a second into a
// connection check that brokers do not answer, which brokers it waits for and how long at
// most (it was silent for the whole --connect-timeout); the first signal ends the wait, and
// the verb says it was interrupted there, before anything was sent or read.
func TestConnectWaitAnnounced(t *testing.T) {
	url, _ := silentServer(t)
	addr := strings.TrimPrefix(url, "http://")
	for _, args := range [][]string{
		{"verify", "--day", "0"},
		{"batch", "--day", "0", "--topic", "hits"},
		{"live", "--day", "0", "--topic", "hits"},
		{"snapshot", "--day", "1", "--topic", "orders"},
		{"inject", "--topic", "hits", "--class", "keyset_mismatch"},
		{"run", "smoke"},
	} {
		t.Run(args[0], func(t *testing.T) {
			t.Parallel()
			args := append(args, "--brokers", addr, "--connect-timeout", "1h")
			want := "clickgen: waiting for Kafka at " + addr + " to answer, at most 1h0m0s (--connect-timeout; Ctrl-C stops)"
			stderr, err, code := interruptedRun(t, want, args...)
			if code != 130 || err == nil || !strings.HasPrefix(err.Error(), args[0]+": interrupted after ") ||
				!strings.HasSuffix(err.Error(), " while reaching Kafka at "+addr+", before anything was sent or read") {
				t.Errorf("exit %d, %v; want 130, interrupted while reaching Kafka\n%s", code, err, stderr)
			}
		})
	}
}

// TestClickHouseWaitAnnounced: verify --clickhouse of a server that never answers says what
// it waits for a second in (it was silent for --timeout, 2 minutes), and the first signal
// ends it.
func TestClickHouseWaitAnnounced(t *testing.T) {
	url, _ := silentServer(t)
	want := "clickgen: waiting for ClickHouse at " + url + "/ to answer, at most 2m10s (--connect-timeout, then --timeout; Ctrl-C stops)"
	stderr, err, code := interruptedRun(t, want, "verify", "--day", "0", "--clickhouse", url)
	if code != 130 || err == nil || err.Error() != "verify: interrupted while reading ClickHouse at "+url+"/: nothing was judged" {
		t.Errorf("exit %d, %v; want 130, interrupted while reading ClickHouse\n%s", code, err, stderr)
	}
}

// TestVerifyReadProgress: verify says how far it has read a topic a second into the read,
// and an interrupted read says which topic, how far, and that nothing was judged. Its errors
// speak of reading topics from Kafka, never of a sink.
func TestVerifyReadProgress(t *testing.T) {
	c, addr := kfakeCluster(t)
	if _, errs, code := clickgen(t, "batch", "--day", "0", "--scale", "0.05", "--brokers", addr, "--topic", "hits"); code != 0 {
		t.Fatalf("batch: exit %d\n%s", code, errs)
	}
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free()
	c.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.SleepControl(func() { <-release }) // the brokers hold back the hits
		return nil, nil, false
	})
	stderr, err, code := interruptedRun(t, "clickgen: verify: reading hits: 0 of ", "verify", "--day", "0", "--scale", "0.05", "--brokers", addr)
	free()
	line := awaitLine(t, stderr, "clickgen: verify: reading hits: ", time.Second)
	// verify's --timeout is 5m: the line says when the read gives up (a frozen broker kept
	// it counting up with no end in sight).
	const tail = " expected messages read (1s; gives up in 4m59s)"
	if !strings.HasSuffix(line, tail) {
		t.Errorf("progress line %q, want how many of the expected messages were read a second in, and when the read gives up", line)
	}
	n := strings.TrimSuffix(strings.TrimPrefix(line, "clickgen: verify: reading hits: 0 of "), tail)
	want := "verify: interrupted while reading topic hits: 0 of " + n + " expected messages read; nothing was judged"
	if code != 130 || err == nil || err.Error() != want {
		t.Errorf("exit %d, %v; want 130 and %q\n%s", code, err, want, stderr)
	}

	for _, args := range [][]string{
		{"verify", "--day", "0", "--brokers", "127.0.0.1:1", "--connect-timeout", "1s"}, // refused: tried again until then
		{"verify", "--day", "0", "--brokers", addr, "--orders-topic", "absent", "--scale", "0.05", "--days", "2"},
	} {
		_, errs, code := clickgen(t, args...)
		if code != 1 || strings.Contains(errs, "sink") || strings.Contains(errs, "broker:") || !strings.Contains(errs, "Kafka at ") {
			t.Errorf("%q: exit %d, stderr %q; want exit 1, the error in words of reading from Kafka", args, code, errs)
		}
	}
	pem := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(pem, []byte("not a certificate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := clickgen(t, "verify", "--day", "0", "--brokers", addr, "--tls-ca", pem); code != 2 || strings.Contains(errs, "sink") {
		t.Errorf("verify --tls-ca junk: exit %d, stderr %q; want exit 2, no sink", code, errs)
	}
}

// TestInterruptedSaysWhatWasDone: a verb interrupted before it printed anything says so and
// how far it got, not a bare "context canceled" (inventory), exit 130.
func TestInterruptedSaysWhatWasDone(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"inventory", "--day", "0", "--days", "300"}, "inventory: interrupted after counting 0 of 300 days' hits and 0 of 299 snapshots: nothing was printed"},
		{[]string{"inventory", "--day", "5", "--days", "3", "--segment", "1/2"}, "inventory: interrupted after counting 0 of 3 days' hits and 0 of 3 snapshots: nothing was printed"},
		{[]string{"plot", fifo}, "plot: interrupted while reading " + fifo + ": no page was written"},
		{[]string{"profiles", "show", "--profile-file", fifo}, "profiles: interrupted while reading " + fifo},
		{[]string{"inventory", "--day", "0", "--catalog", fifo}, "inventory: interrupted while reading " + fifo},
	} {
		err := run(cancelled, tc.args, io.Discard, io.Discard)
		if code := exitCode(err, io.Discard); code != 130 || err.Error() != tc.want {
			t.Errorf("%q interrupted: exit %d, %v; want 130 and %q", tc.args, code, err, tc.want)
		}
	}
}
