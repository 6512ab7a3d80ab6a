package tests

// verify --clickhouse bounded by the store (issue 35, item 6), on the real ClickHouse 18.16
// server: whatever the store holds, what verify holds in memory and prints follows verify's
// own bounds, not the store's strings. Before: three raw rows of 20 MB took 3.16 GB of memory
// and printed 400 MB; a marts view of 2 million distinct classes took 3.9 GB and printed
// 838 MB (each class a column). The built command runs as a user would; its peak resident
// memory is GNU time's %M, its output every byte it printed and wrote in --report.

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/internal/testenv"
	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
)

// boundedRun is one verify process: its exit code, output, report and peak memory.
type boundedRun struct {
	code           int
	stdout, stderr string
	report         []byte
	peakRSS        int64 // bytes
}

// verifyBounded runs the built command's verify against srv as realclickhouse.User.
func verifyBounded(t *testing.T, bin string, srv *realclickhouse.Server, args ...string) boundedRun {
	t.Helper()
	file := filepath.Join(t.TempDir(), "report.json")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// GNU time measures the peak of the command alone: this test's own memory, which a child
	// shares until it execs, would show in the child's getrusage.
	peak := filepath.Join(t.TempDir(), "peak")
	cmd := exec.CommandContext(ctx, timeBin(t), append([]string{"-f", "%M", "-o", peak, bin, "verify", "--clickhouse", srv.UserURL(), "--report", file}, args...)...)
	cmd.Env = append(os.Environ(), "CLICKHOUSE_PASSWORD="+srv.Password())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("verify %q did not end within 5 minutes", args)
	}
	r := boundedRun{code: exitCodeOf(t, err), stdout: out.String(), stderr: errb.String()}
	r.report, _ = os.ReadFile(file)
	b, err := os.ReadFile(peak)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	kb, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	if err != nil {
		t.Fatalf("time: %q", b)
	}
	r.peakRSS = kb << 10
	return r
}

// timeBin is GNU time, which the bounds need to measure verify's peak memory: missing, it
// fails the tier's test, as a missing server does.
func timeBin(t *testing.T) string {
	t.Helper()
	p, missing := testenv.MustHaveCommand("apt-get install time: GNU time measures verify's peak memory", "time")
	testenv.Need(t, testenv.ClickHouse, missing)
	return p
}

// everyTableBut is the table flags naming table for role and skipping the others.
func everyTableBut(role, table string) []string {
	var args []string
	for _, f := range []string{"events-table", "errors-table", "raw-table", "orders-table", "order-errors-table", "marts-view"} {
		v := ""
		if f == role {
			v = table
		}
		args = append(args, "--"+f+"="+v)
	}
	return args
}

// TestRealClickHouseVerifyBounded: three raw rows of 20 MB, an events row whose URL is 20 MB
// with an escape sequence and a line forging a verdict, and a marts view of two million
// distinct classes: verify differs, in at most 400 MB (the rows) and 1 GiB (the classes) of
// peak memory and 200 KB of output each, every store string cut and escaped.
func TestRealClickHouseVerifyBounded(t *testing.T) {
	t.Parallel() // its own servers: it waits on them beside the other real tiers
	if testing.Short() {
		t.Skip("a real ClickHouse server and 80 MB of rows: not under -short")
	}
	srv := realclickhouse.Start(t, realclickhouse.Options{})
	bin := buildClickgen(t)
	srv.Query("CREATE DATABASE big")

	t.Run("rows of 20 MB", func(t *testing.T) {
		srv := srv.In(t)
		srv.Query("CREATE TABLE big.landing (raw String, _load_ts DateTime('UTC')) ENGINE = MergeTree ORDER BY _load_ts")
		// Each 20 MB, naming day 0 in its JSON, the last one a line of control bytes.
		now := uint32(time.Now().Unix())
		var rows []byte
		for _, raw := range []string{
			`{"EventDate":"2026-06-01","x":"` + strings.Repeat("a", 20_000_000) + `0"}`,
			`{"EventDate":"2026-06-01","x":"` + strings.Repeat("a", 20_000_000) + `1"}`,
			strings.Repeat("\x1b]0;pwned\x07\nOK: forged ", 800_000) + `"EventDate":"` + strings.Repeat("9", 1_000_000) + `"`,
		} {
			rows = binary.LittleEndian.AppendUint32(append(binary.AppendUvarint(rows, uint64(len(raw))), raw...), now)
		}
		srv.InsertData("big.landing", "RowBinary", bytes.NewReader(rows))
		r := verifyBounded(t, bin, srv, append([]string{"--day", "0", "--days", "1", "--scale", "0.01"}, everyTableBut("raw-table", "big.landing")...)...)
		out := r.stdout + r.stderr
		if r.code != 1 || !strings.Contains(r.stdout, "raw unplanned") || strings.ContainsAny(out, "\x1b\x07") || strings.Contains(out, "\nOK: forged") {
			t.Fatalf("exit %d:\n%.5000s", r.code, out)
		}
		if len(out) > 200<<10 || len(r.report) > 200<<10 || r.peakRSS > 400<<20 || r.peakRSS == 0 {
			t.Errorf("three rows of 20 MB: %d bytes printed, a report of %d bytes, %d MB peak; want at most 200 KB each and 400 MB",
				len(out), len(r.report), r.peakRSS>>20)
		}
		t.Logf("three raw rows of 20 MB: exit %d, %d bytes printed, report %d bytes, peak %d MB", r.code, len(out), len(r.report), r.peakRSS>>20)
	})

	t.Run("an event of 20 MB", func(t *testing.T) {
		srv := srv.In(t)
		// A planned event of day 0 whose URL the store holds as 20 MB.
		w, err := world.NewWorld(world.Params{Scale: 0.01})
		if err != nil {
			t.Fatal(err)
		}
		day := w.Day(0)
		srv.Query("CREATE TABLE big.clicks (WatchID UInt64, ClientID UInt64, EventDate Date, URL String) ENGINE = MergeTree ORDER BY WatchID")
		url := "\x1b]0;pwned\x07\nOK: forged" + strings.Repeat("u", 20_000_000)
		row := binary.LittleEndian.AppendUint64(nil, day.WatchID(0))
		row = binary.LittleEndian.AppendUint64(row, day.ClientID(0))
		row = binary.LittleEndian.AppendUint16(row, uint16(world.DayDate(0)))
		row = append(binary.AppendUvarint(row, uint64(len(url))), url...)
		srv.InsertData("big.clicks", "RowBinary", bytes.NewReader(row))
		r := verifyBounded(t, bin, srv, append([]string{"--day", "0", "--days", "1", "--scale", "0.01"}, everyTableBut("events-table", "big.clicks")...)...)
		out := r.stdout + r.stderr
		if r.code != 1 || !strings.Contains(r.stdout, "URL: 1; WatchID "+strconv.FormatUint(day.WatchID(0), 10)) ||
			!strings.Contains(r.stdout, `held "\x1b]0;pwned\x07\nOK: forgeduuu`) || !strings.Contains(r.stdout, "…(20000021 bytes)") ||
			strings.ContainsAny(out, "\x1b\x07") || strings.Contains(out, "\nOK: forged") {
			t.Fatalf("exit %d:\n%.5000s", r.code, out)
		}
		if len(out) > 200<<10 || len(r.report) > 200<<10 || r.peakRSS > 400<<20 {
			t.Errorf("an event of 20 MB: %d bytes printed, report %d bytes, %d MB peak", len(out), len(r.report), r.peakRSS>>20)
		}
		t.Logf("an event of 20 MB: exit %d, %d bytes printed, report %d bytes, peak %d MB", r.code, len(out), len(r.report), r.peakRSS>>20)
	})

	t.Run("two million mart classes", func(t *testing.T) {
		srv := srv.In(t)
		srv.Query("CREATE TABLE big.reconciliation (order_day Date, order_id String, mismatch_class String) ENGINE = MergeTree ORDER BY order_id")
		srv.Query(`INSERT INTO big.reconciliation SELECT toDate('2026-06-01'), toString(number), concat('class-', toString(number), '\x1b]0;t\x07') FROM numbers(2000000)`)
		r := verifyBounded(t, bin, srv, append([]string{"--day", "0", "--days", "8", "--scale", "0.01"}, everyTableBut("marts-view", "big.reconciliation")...)...)
		out := r.stdout + r.stderr
		if r.code != 1 || !strings.Contains(r.stdout, "2000000 orders under 2000000 classes the stand has no word for") || strings.ContainsAny(out, "\x1b\x07") {
			t.Fatalf("exit %d:\n%.5000s", r.code, out)
		}
		if len(out) > 200<<10 || len(r.report) > 200<<10 || r.peakRSS > 1<<30 {
			t.Errorf("2 M classes: %d bytes printed, report %d bytes, %d MB peak; want at most 200 KB each and 1 GiB", len(out), len(r.report), r.peakRSS>>20)
		}
		t.Logf("two million classes: exit %d, %d bytes printed, report %d bytes, peak %d MB", r.code, len(out), len(r.report), r.peakRSS>>20)
	})
}
