package session

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
// session builds (the measurement with its thresholds, the console, Prometheus, the report
// file) hears one run, the same events at the same instants, in every order of the list: the
// lines on stderr, the report file and the run's error are the same, byte for byte. (Before
// the end had two phases, the console and the report read what the measurement added to the
// end, and the thresholds what the follower had, so a list in another order printed a zero
// summary and wrote a report without its verdicts.)
func TestObserversOrderFree(t *testing.T) {
	dir := t.TempDir()
	var lat latency.Histogram
	for i := range 10 {
		lat.Record(time.Duration(i+1) * time.Millisecond)
	}
	stats := sink.Stats{Topics: map[string]sink.TopicStats{"hits": {Sent: 10, Acked: 10, Bytes: 1000, Partitions: map[int32]int64{0: 6, 1: 4}}},
		Latency: lat, AfterWarmup: lat}
	t0 := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	th := measure.Thresholds{}
	for _, expr := range []string{"max<1s", "p50<1ns", "failed==0"} {
		if err := th.Set(expr); err != nil {
			t.Fatal(err)
		}
	}
	// One run, heard by observers in the order order.
	run := func(order []int) (lines, report, errText string) {
		var stderr bytes.Buffer
		rep := filepath.Join(dir, "r.json")
		c := Config{Sink: sink.DefaultSettings(), Stdout: &bytes.Buffer{}, Stderr: &stderr,
			Outputs: Outputs{Report: rep, MetricsAddr: "127.0.0.1:0", Thresholds: th}}
		c.Sink.File = filepath.Join(dir, "data.jsonl")
		plan := play.Plan{Range: world.Range{From: 0, Days: 1}, Hits: "hits"}
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
		obs.UnitDone(play.UnitResult{Unit: play.Unit{Day: 0, Clean: 10}, Sent: 10, Bytes: 1000, Flushed: true, Played: time.Second})
		err = obs.RunEnded(context.Background(), &play.End{Result: play.Result{Stopped: play.StopDays, Sent: 10, FirstDay: 0, LastDay: 0},
			Stats: stats, At: t0.Add(2 * time.Second)})
		s.metrics.Close(context.Background(), nil)
		b, rerr := os.ReadFile(rep)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err == nil {
			t.Fatal("a crossed threshold (p50<1ns) did not fail the run")
		}
		// The metrics' free port is each run's own.
		lines = regexp.MustCompile(`127\.0\.0\.1:\d+`).ReplaceAllString(stderr.String(), "127.0.0.1:PORT")
		return lines, string(b), err.Error()
	}
	n := 4 // the measurement, the console, Prometheus, the report file
	first := []int{0, 1, 2, 3}
	wantLines, wantReport, wantErr := run(first)
	if !strings.Contains(wantLines, "clickgen: total time 2s\n") || !strings.Contains(wantLines, "clickgen: threshold p50<1ns crossed") ||
		!strings.Contains(wantReport, `"p50<1ns"`) || !strings.Contains(wantErr, "threshold(s) crossed: p50<1ns") {
		t.Fatalf("in the session's order:\nstderr:\n%s\nreport:\n%s\nerror: %s\nwant the summary, the verdicts in both, and the crossed threshold", wantLines, wantReport, wantErr)
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
