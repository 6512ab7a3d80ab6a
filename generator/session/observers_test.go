package session

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/measure/latency"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// TestObserversOrderFree: the order of a run's observers changes nothing. The list the
// session builds (the measurement with its thresholds, the console, the follower of a table,
// Prometheus, the report file) hears one run, the same events at the same instants, in every
// order of the list: the lines on stderr, the report file and the run's error are the same,
// byte for byte but for the time a key took to be queryable. (Before the end had two phases,
// the console and the report read what the measurement added to the end, and the thresholds
// what the follower had, so a list in another order printed a zero summary and wrote a report
// without its verdicts; the store follower handed its result to the measurement, which judged
// store_unseen on nothing when it came first.)
func TestObserversOrderFree(t *testing.T) {
	dir := t.TempDir()
	table := fakeTable(t)
	sampled := hitsOfDay0(t, 1)[0]
	var lat latency.Histogram
	for i := range 10 {
		lat.Record(time.Duration(i+1) * time.Millisecond)
	}
	stats := sink.Stats{Topics: map[string]sink.TopicStats{"hits": {Sent: 10, Acked: 10, Bytes: 1000, Partitions: map[int32]int64{0: 6, 1: 4}}},
		Latency: lat, AfterWarmup: lat}
	t0 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	th := measure.Thresholds{}
	for _, expr := range []string{"max<1s", "p50<1ns", "failed==0", "store_unseen==0"} {
		if err := th.Set(expr); err != nil {
			t.Fatal(err)
		}
	}
	// One run, heard by observers in the order order.
	run := func(order []int) (lines, report, errText string) {
		var stderr bytes.Buffer
		rep := filepath.Join(dir, "r.json")
		c := Config{Sink: sink.DefaultSettings(), Stdout: &bytes.Buffer{}, Stderr: &stderr, Command: "batch",
			Outputs: Outputs{Report: rep, MetricsAddr: "127.0.0.1:0", Thresholds: th, Store: StoreFollow{URL: table}}}
		c.Sink.File = filepath.Join(dir, "data.jsonl")
		plan := play.Plan{Range: world.Range{From: 0, Days: 1}, Hits: "hits"}
		c.armReport()
		s, err := c.listen(context.Background(), map[string]int32{"hits": 2}, listening{plan: plan})
		if err != nil {
			t.Fatal(err)
		}
		defer s.snk.Close()
		if len(s.list) != len(order) {
			t.Fatalf("the session listens with %d observers, the test shuffles %d", len(s.list), len(order))
		}
		shuffled := make([]play.Observer, len(order))
		for i, j := range order {
			shuffled[i] = s.list[j]
		}
		obs := play.Observers(shuffled...)
		obs.RunStarted(play.Start{Plan: plan, At: t0, Stats: func() sink.Stats { return stats }})
		obs.UnitStarted(play.Unit{Day: 0, Clean: 10})
		obs.Acks()(sink.Ack{Topic: "hits", Due: time.Now(), Intended: true, Value: sampled})
		obs.UnitDone(play.UnitResult{Unit: play.Unit{Day: 0, Clean: 10}, Sent: 10, Bytes: 1000, Flushed: true, Played: time.Second})
		err = obs.RunEnded(context.Background(), &play.End{Result: play.Result{Stopped: play.StopDays, Sent: 10, FirstDay: 0, LastDay: 0},
			Stats: stats, At: t0.Add(2 * time.Second)})
		s.metrics.Close(context.Background(), nil)
		if err == nil {
			t.Fatal("a crossed threshold (p50<1ns) did not fail the run")
		}
		err = c.rep.Finish(err, nil)
		b, rerr := os.ReadFile(rep)
		if rerr != nil {
			t.Fatal(rerr)
		}
		// The metrics' free port is each run's own; the time until queryable and a poll's
		// round trip are the clock's.
		lines = regexp.MustCompile(`127\.0\.0\.1:\d+`).ReplaceAllString(stderr.String(), "127.0.0.1:PORT")
		lines = regexp.MustCompile(`clickgen: store [^\n]*`).ReplaceAllStringFunc(lines, func(l string) string {
			return regexp.MustCompile(`[0-9.]+(ns|µs|ms|s)\b`).ReplaceAllString(l, "D")
		})
		return lines, timeless(t, b), err.Error()
	}
	n := 5 // the measurement, the console, the table's follower, Prometheus, the report file
	first := []int{0, 1, 2, 3, 4}
	wantLines, wantReport, wantErr := run(first)
	if !strings.Contains(wantLines, "clickgen: total time 2s\n") || !strings.Contains(wantLines, "clickgen: threshold p50<1ns crossed") ||
		!strings.Contains(wantLines, "clickgen: store ods.event_dist: 1 sampled (WatchID of topic hits, at most 100/s), 1 seen, 0 unseen") ||
		!strings.Contains(wantLines, "clickgen: threshold store_unseen==0 held: store_unseen 0") ||
		!strings.Contains(wantReport, `"p50<1ns"`) || !strings.Contains(wantReport, `"seen":1`) || !strings.Contains(wantErr, "threshold(s) crossed: p50<1ns") {
		t.Fatalf("in the session's order:\nstderr:\n%s\nreport:\n%s\nerror: %s\nwant the summary, the table's lines, the verdicts in both, and the crossed threshold", wantLines, wantReport, wantErr)
	}
	var errs []error
	for order := range permutations(n) {
		if slices.Equal(order, first) {
			continue
		}
		lines, report, errText := run(order)
		if lines != wantLines {
			errs = append(errs, errors.New("order "+sprint(order)+": stderr\n"+lines+"want\n"+wantLines))
		}
		if report != wantReport {
			errs = append(errs, errors.New("order "+sprint(order)+": report\n"+report+"want\n"+wantReport))
		}
		if errText != wantErr {
			errs = append(errs, errors.New("order "+sprint(order)+": error "+errText+", want "+wantErr))
		}
	}
	for _, err := range errs {
		t.Error(err)
	}
}

// timeless is the report b without what the clock says: when it was written, and the time
// until queryable and the polls' round trips of its store section.
func timeless(t *testing.T, b []byte) string {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	delete(doc, "written_at")
	if st, ok := doc["store"].(map[string]any); ok {
		for _, k := range []string{"latency_ms", "latency_distribution_ms", "poll_ms", "series", "waited_s", "polls"} {
			delete(st, k)
		}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.Encode(doc)
	return out.String()
}

// fakeTable is a ClickHouse HTTP front holding the stand's events (ods.event_dist: WatchID,
// EventDate, _load_ts) with every key it is asked for; its URL.
func fakeTable(t *testing.T) string {
	t.Helper()
	in := regexp.MustCompile(`WatchID IN \(([0-9, ]+)\)`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		sql := string(b)
		str := func(dst []byte, s string) []byte { return append(binary.AppendUvarint(dst, uint64(len(s))), s...) }
		var out []byte
		switch {
		case strings.Contains(sql, "FROM system.tables"):
			out = str(out, "Distributed")
		case strings.Contains(sql, "FROM system.columns"):
			for _, c := range [][2]string{{"WatchID", "UInt64"}, {"EventDate", "Date"}, {"_load_ts", "DateTime"}} {
				out = str(str(out, c[0]), c[1])
			}
		case strings.Contains(sql, "now()"):
			out = binary.LittleEndian.AppendUint32(out, uint32(time.Now().Unix()))
		default:
			m := in.FindStringSubmatch(sql)
			if m == nil {
				http.Error(w, "Code: 62. DB::Exception: Syntax error", http.StatusBadRequest)
				return
			}
			for _, id := range strings.Split(m[1], ", ") {
				n, _ := strconv.ParseUint(id, 10, 64)
				out = append(binary.LittleEndian.AppendUint64(out, n), 1)
			}
		}
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// hitsOfDay0 are the first n clean hit messages of day 0.
func hitsOfDay0(t *testing.T, n int) [][]byte {
	t.Helper()
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	err = w.Play(context.Background(), 0, 1, world.PlayOptions{}, func(b *world.Batch) error {
		for i := range b.Msgs {
			if len(out) < n {
				out = append(out, append([]byte(nil), b.Value(i)...))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// permutations yields every order of 0 … n−1.
func permutations(n int) func(yield func([]int) bool) {
	return func(yield func([]int) bool) {
		p := make([]int, n)
		for i := range p {
			p[i] = i
		}
		var perm func(k int) bool
		perm = func(k int) bool {
			if k == n {
				return yield(slices.Clone(p))
			}
			for i := k; i < n; i++ {
				p[k], p[i] = p[i], p[k]
				if !perm(k + 1) {
					return false
				}
				p[k], p[i] = p[i], p[k]
			}
			return true
		}
		perm(0)
	}
}

func sprint(order []int) string {
	var b strings.Builder
	for i, o := range order {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte(byte('0' + o))
	}
	return b.String()
}
