package tests

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeTable is a ClickHouse HTTP front holding one events table (WatchID, EventDate,
// _load_ts) of engine: a lookup returns the keys it asks for when holds says the table has
// them (fresh), none otherwise. It counts the lookups.
type fakeTable struct {
	srv     *httptest.Server
	mu      sync.Mutex
	lookups int
	holds   bool
}

var inList = regexp.MustCompile(`WatchID IN \(([0-9, ]+)\)`)

func newFakeTable(t *testing.T, engine string, holds bool) *fakeTable {
	t.Helper()
	f := &fakeTable{holds: holds}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		sql := string(b)
		str := func(dst []byte, s string) []byte { return append(binary.AppendUvarint(dst, uint64(len(s))), s...) }
		var out []byte
		switch {
		case strings.Contains(sql, "FROM system.tables"):
			out = str(out, engine)
		case strings.Contains(sql, "FROM system.columns"):
			for _, c := range [][2]string{{"WatchID", "UInt64"}, {"EventDate", "Date"}, {"_load_ts", "DateTime"}} {
				out = str(str(out, c[0]), c[1])
			}
		case strings.Contains(sql, "now()"):
			out = binary.LittleEndian.AppendUint32(out, uint32(time.Now().Unix()))
		default:
			f.mu.Lock()
			f.lookups++
			holds := f.holds
			f.mu.Unlock()
			m := inList.FindStringSubmatch(sql)
			if m == nil {
				http.Error(w, "Code: 62. DB::Exception: Syntax error", http.StatusBadRequest)
				return
			}
			if holds {
				for _, id := range strings.Split(m[1], ", ") {
					n, _ := strconv.ParseUint(id, 10, 64)
					out = append(binary.LittleEndian.AppendUint64(out, n), 1)
				}
			}
		}
		w.Write(out)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// storeSection is the part of a report the tests read.
type storeSection struct {
	Store *struct {
		Table      string   `json:"table"`
		Sampled    int64    `json:"sampled"`
		Seen       int64    `json:"seen"`
		Unseen     int64    `json:"unseen"`
		UnseenKeys []string `json:"unseen_keys"`
		LatencyMS  struct {
			P50, Max float64
		} `json:"latency_ms"`
		Series []json.RawMessage `json:"series"`
	} `json:"store"`
	Thresholds []struct {
		Expr string `json:"expr"`
		Held bool   `json:"held"`
	} `json:"thresholds"`
}

func readStoreSection(t *testing.T, path string) storeSection {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s storeSection
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return s
}

// TestStoreFollowIntoFakeTable: a batch followed into a table that holds every key at once:
// sampled messages all seen, at most --follow-sample a second, the store section in the report
// and the store lines on stderr.
func TestStoreFollowIntoFakeTable(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	_, addr := kfakeCluster(t)
	ft := newFakeTable(t, "Distributed", true)
	rep := filepath.Join(t.TempDir(), "r.json")
	_, errs, code := clickgen(t, "batch", "--day", "0", "--limit", "3000", "--brokers", addr, "--topic", "hits",
		"--follow-clickhouse", ft.srv.URL, "--follow-sample", "1000/s", "--follow-every", "20ms", "--report", rep)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	s := readStoreSection(t, rep).Store
	if s == nil || s.Table != "ods.event_dist" || s.Sampled == 0 || s.Seen != s.Sampled || s.Unseen != 0 || len(s.Series) == 0 {
		t.Fatalf("store section %+v", s)
	}
	if !strings.Contains(errs, "store ods.event_dist: "+strconv.FormatInt(s.Sampled, 10)+" sampled (WatchID of topic hits, at most 1000/s)") {
		t.Errorf("stderr has no store line for %d sampled:\n%s", s.Sampled, errs)
	}
}

// TestStoreFollowNothingStored: a table that never holds the keys (a stalled pipeline): the
// sampled keys are unseen and listed after --follow-timeout; that alone does not fail the run,
// store_unseen==0 does, with exit code 3.
func TestStoreFollowNothingStored(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	_, addr := kfakeCluster(t)
	ft := newFakeTable(t, "ReplacingMergeTree", false)
	dir := t.TempDir()
	args := []string{"batch", "--day", "0", "--limit", "500", "--brokers", addr, "--topic", "hits",
		"--follow-clickhouse", ft.srv.URL, "--follow-table", "ods.event_rep", "--follow-timeout", "1s"}
	_, errs, code := clickgen(t, append(args, "--report", filepath.Join(dir, "a.json"))...)
	if code != 0 || !strings.Contains(errs, "NOT readable within --follow-timeout 1s: WatchID ") {
		t.Errorf("without a threshold: exit %d, want 0 and the unseen keys named\n%s", code, errs)
	}
	_, errs, code = clickgen(t, append(args, "--threshold", "store_unseen==0", "--threshold", "store_p99<1h", "--report", filepath.Join(dir, "b.json"))...)
	if code != 3 || !strings.Contains(errs, "store_unseen==0 crossed: store_unseen ") || !strings.Contains(errs, "store_p99<1h crossed: no data (no sampled key was seen") {
		t.Errorf("with store_unseen==0: exit %d, want 3 and both verdicts\n%s", code, errs)
	}
	for _, l := range strings.Split(strings.TrimRight(errs, "\n"), "\n") {
		if !strings.HasPrefix(l, "clickgen: ") {
			t.Errorf("a stderr line without the clickgen: prefix: %q", l)
		}
	}
	s := readStoreSection(t, filepath.Join(dir, "b.json"))
	if s.Store == nil || s.Store.Unseen == 0 || s.Store.Unseen != s.Store.Sampled || len(s.Store.UnseenKeys) != int(s.Store.Unseen) ||
		len(s.Thresholds) != 2 || s.Thresholds[0].Held {
		t.Errorf("report %+v", s)
	}
}

// TestStoreFollowFlagsChecked: store-following flags that cannot work are usage errors before
// anything is sent; a table a read would consume (a Kafka engine) is refused before the run,
// and a server that cannot be reached fails it before anything is sent.
func TestStoreFollowFlagsChecked(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	_, addr := kfakeCluster(t)
	base := []string{"batch", "--day", "0", "--limit", "10", "--brokers", addr, "--topic", "hits"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--follow-table", "ods.event_dist"}, "--follow-table needs --follow-clickhouse"},
		{[]string{"--follow-sample", "5/s"}, "--follow-sample needs --follow-clickhouse"},
		{[]string{"--clickhouse-user", "u"}, "--clickhouse-user needs --follow-clickhouse"},
		{[]string{"--threshold", "store_unseen==0"}, "--threshold store_unseen==0: the time until queryable is measured by following a table"},
		{[]string{"--follow-clickhouse", "ftp://x"}, "--follow-clickhouse"},
		{[]string{"--follow-clickhouse", "http://127.0.0.1:1", "--follow-table", "a;b"}, "--follow-table"},
		{[]string{"--follow-clickhouse", "http://127.0.0.1:1", "--follow-sample", "0/s"}, "--follow-sample"},
		{[]string{"--follow-clickhouse", "http://127.0.0.1:1", "--follow-sample", "1/24h"}, "--follow-sample"},
		{[]string{"--follow-clickhouse", "http://127.0.0.1:1", "--follow-every", "1ms"}, "--follow-every"},
		{[]string{"--follow-clickhouse", "http://u:secret@127.0.0.1:1"}, "--follow-clickhouse"},
	} {
		_, errs, code := clickgen(t, append(append([]string{}, base...), tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Contains(errs, "secret") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	kafka := newFakeTable(t, "Kafka", true)
	_, errs, code := clickgen(t, append(base, "--follow-clickhouse", kafka.srv.URL, "--follow-table", "stg.hits_raw_kafka")...)
	if code != 2 || !strings.Contains(errs, "a stream a read would consume") || strings.Contains(errs, "acknowledged") {
		t.Errorf("a Kafka engine table: exit %d, stderr %q; want 2, refused before the run", code, errs)
	}
	events := newFakeTable(t, "Distributed", true)
	_, errs, code = clickgen(t, "snapshot", "--day", "1", "--brokers", addr, "--topic", "orders", "--follow-clickhouse", events.srv.URL)
	if code != 2 || !strings.Contains(errs, "which this run does not send") {
		t.Errorf("an events table followed by a run of orders: exit %d, stderr %q; want 2", code, errs)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	_, errs, code = clickgen(t, append(base, "--follow-clickhouse", dead, "--connect-timeout", "2s")...)
	if code != 1 || !strings.Contains(errs, "--follow-clickhouse "+dead) {
		t.Errorf("an unreachable server: exit %d, stderr %q; want 1 naming it", code, errs)
	}
}

// TestStoreFollowSignalEndsWait: a signal during the wait for unseen keys ends it at once:
// exit 130, the keys listed as unseen with the wait said interrupted.
func TestStoreFollowSignalEndsWait(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	if testing.Short() {
		t.Skip("builds the command")
	}
	_, addr := kfakeCluster(t)
	ft := newFakeTable(t, "Distributed", false)
	// The test's bound, far below --follow-timeout: a wait the signal does not end is killed
	// by it, and the exit is then not 130.
	bound, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(bound, buildClickgen(t), "batch", "--day", "0", "--limit", "200", "--brokers", addr, "--topic", "hits",
		"--follow-clickhouse", ft.srv.URL, "--follow-timeout", "10m")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var lines []string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.Contains(sc.Text(), "waiting for") && strings.Contains(sc.Text(), "readable from ods.event_dist") {
			break
		}
	}
	signalled := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err = cmd.Wait()
	took := time.Since(signalled)
	all := strings.Join(lines, "\n")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(all, "NOT readable (the wait was interrupted after") {
		t.Fatalf("after SIGINT in the wait: %v, stderr:\n%s\nwant exit 130 and the unseen keys", err, all)
	}
	t.Logf("the wait ended %v after the signal (--follow-timeout 10m)", took)
}
