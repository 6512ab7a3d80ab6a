package measure_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/measure/follow"
	"github.com/clickgen/clickgen/generator/measure/latency"
	"github.com/clickgen/clickgen/generator/measure/report"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json from the code (only with a deliberate change of the report)")

// latencies is a histogram of 1 … n milliseconds.
func latencies(n int) latency.Histogram {
	var h latency.Histogram
	for i := 1; i <= n; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	return h
}

// TestReportJSON: the report's common keys from the sink's counters: each topic's counters
// with its unaccounted messages, partitions never null, failed tags; the target rate and the
// achieved one over the run's time; the latency percentiles in milliseconds; interrupted.
func TestReportJSON(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := sink.Stats{
			Topics: map[string]sink.TopicStats{
				"hits":   {Sent: 10, Acked: 8, Failed: 2, Bytes: 800, Partitions: map[int32]int64{0: 5, 1: 3}, FailedTags: []uint32{3}},
				"orders": {Sent: 0},
			},
			Latency: latencies(100),
		}
		m := measure.New(measure.Options{Target: func() float64 { return 5000 }})
		m.RunStarted(play.Start{Plan: play.Plan{Hits: "hits"}, At: time.Now(), Stats: func() sink.Stats { return s }})
		time.Sleep(1600 * time.Millisecond)
		m.RunEnded(context.Background(), &play.End{Stats: s, Err: context.Canceled, Interrupted: true})
		b, err := json.Marshal(m.Report())
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{
			"topics": map[string]any{
				"hits": map[string]any{
					"sent": 10.0, "acked": 8.0, "failed": 2.0, "unaccounted": 0.0, "bytes": 800.0,
					"partitions":  map[string]any{"0": 5.0, "1": 3.0},
					"failed_tags": []any{3.0},
				},
				"orders": map[string]any{
					"sent": 0.0, "acked": 0.0, "failed": 0.0, "unaccounted": 0.0, "bytes": 0.0,
					"partitions": map[string]any{},
				},
			},
			"rate": map[string]any{"target_per_s": 5000.0, "achieved_per_s": 5.0}, // 8 acked in 1.6 s
			// Bucket middles: 50 ms lies in [49.152, 50.176) ms (1024 µs wide
			// between 32.768 and 65.536 ms), 95 ms in [94.208, 96.256) and
			// 99 ms in [98.304, 100.352) (2048 µs wide above 65.536 ms).
			"latency_ms":  map[string]any{"p50": 49.663, "p95": 95.231, "p99": 99.327, "max": 100.0},
			"interrupted": true,
			"units":       []any{},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("report JSON\n got %s\nwant %v", b, want)
		}
	})
}

// TestUnitLinesCountClasses: a run measured with no console. The Run, the only observer,
// keeps a line per unit that splits every extra into its class or a re-send, and what the
// lines count is what was sent, matching the inventory of the same days; the report's topics
// agree.
func TestUnitLinesCountClasses(t *testing.T) {
	w, err := world.NewWorld(world.Params{Scale: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	g := world.Garbage{Rate: 0.05, Redeliver: 0.02}
	snk, err := sink.NewWriter(&bytes.Buffer{}, sink.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := measure.New(measure.Options{})
	ctx := context.Background()
	res, err := play.Run(ctx, play.Plan{World: w, Range: world.Range{From: 1, Days: 2, Garbage: g}, Hits: "hits"}, snk, m)
	if err := play.Finish(ctx, snk, m, time.Minute, res, err); err != nil {
		t.Fatal(err)
	}
	inv, err := w.Inventory(ctx, world.Range{From: 1, Days: 2, Garbage: g}, 0)
	if err != nil {
		t.Fatal(err)
	}
	rep, ok := m.Report().(report.Run)
	if !ok || len(rep.Units) != 2 {
		t.Fatalf("report %#v: want a run report with 2 unit lines", m.Report())
	}
	units := rep.Units
	if h := rep.Topics["hits"]; h.Sent != res.Sent || h.Sent != units[0].Sent+units[1].Sent {
		t.Errorf("report: hits sent %d; the run sent %d, its units %d + %d", h.Sent, res.Sent, units[0].Sent, units[1].Sent)
	}
	for i, u := range units {
		want := inv.Days[i]
		extras := u.Redelivered
		for _, n := range u.Garbage {
			extras += n
		}
		if u.Kind != "hits" || u.Day != want.Day || u.Date != want.Date || !u.Flushed {
			t.Errorf("unit %d = %+v, want flushed hits of day %d (%s)", i, u, want.Day, want.Date)
		}
		if u.Clean != want.Events || int64(u.Clean+extras) != u.Sent || int(u.Sent) != want.Messages {
			t.Errorf("day %d: clean %d + extras %d, sent %d; inventory: %d events, %d messages", u.Day, u.Clean, extras, u.Sent, want.Events, want.Messages)
		}
		if u.Redelivered != want.Redelivered || len(u.Garbage) == 0 {
			t.Errorf("day %d: redelivered %d, garbage %v; inventory: redelivered %d, garbage %v", u.Day, u.Redelivered, u.Garbage, want.Redelivered, want.Garbage)
		}
		for c, n := range u.Garbage {
			if want.Garbage[c] != n {
				t.Errorf("day %d class %s: sent %d, inventory %d", u.Day, c, n, want.Garbage[c])
			}
		}
	}
	if f := m.Figures(); f.Acked != res.Sent || f.Latency.Count != uint64(res.Sent) || f.AchievedPerS <= 0 {
		t.Errorf("figures %+v: want %d acked, as many latencies, a rate", f, res.Sent)
	}
}

// golden compares doc, marshalled as the report file holds it (reportfile.Write: indented, not
// HTML-escaped), with testdata/name.json.
func golden(t *testing.T, name string, doc any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	path := filepath.Join("testdata", name+".json")
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("%s: the assembled report changed\n got %s\nwant %s", name, b, want)
	}
}

// followed is what following two groups measured: g1 drained, g2 did not.
func followed() follow.Result {
	return follow.Result{MeasuredFrom: "intended send time", Timeout: time.Minute, Waited: 2 * time.Second, Groups: []follow.Group{
		{Name: "g1", Latency: latencies(40), Drained: true, DrainedAfter: 1250 * time.Millisecond, NotRead: []string{"orders"},
			Lag:       []follow.LagSample{{At: 500 * time.Millisecond, Partitions: map[string]int64{"hits/0": 2}}, {At: 1750 * time.Millisecond, Partitions: map[string]int64{"hits/0": 0}}},
			Reordered: 1, Late: 2, PeakStateBytes: 72, Polls: 10, PollErrors: 1, LastPollError: "boom"},
		{Name: "g2", Untaken: map[string]int64{"hits/0": 3, "hits/1": 4}, Polls: 10},
	}}
}

// TestReportGolden pins the bytes of both report documents as a Run assembles them from raw
// measurements (in a synctest bubble: the clock and the pacer are deterministic): which
// counter, histogram, unit, pacing figure and follower value lands in which key, every key of
// the schema filled (generator/measure/report's golden pins the schema alone).
func TestReportGolden(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stats := sink.Stats{
			Topics: map[string]sink.TopicStats{
				"hits":   {Sent: 160, Acked: 150, Failed: 1, Bytes: 150_000, Partitions: map[int32]int64{0: 80, 1: 70}, FailedTags: []uint32{7}},
				"orders": {Sent: 2, Acked: 2, Bytes: 20},
			},
			Latency: latencies(152),
		}
		ctx := context.Background()
		days := []play.UnitResult{
			{Unit: play.Unit{Kind: play.HitsUnit, Day: 3, Clean: 150, Extras: 10, Garbage: map[string]int{world.GarbageNotAnObject: 4}}, Sent: 160, Flushed: true},
			{Unit: play.Unit{Kind: play.SnapshotUnit, Day: 2, Clean: 2}, Sent: 2, Flushed: true},
		}

		run := measure.New(measure.Options{Target: func() float64 { return 100 }})
		run.RunStarted(play.Start{Plan: play.Plan{Hits: "hits", Orders: "orders"}, At: time.Now(), Stats: func() sink.Stats { return stats }})
		for _, u := range days {
			run.UnitDone(u)
		}
		time.Sleep(1500 * time.Millisecond)
		run.RunEnded(ctx, &play.End{Stats: stats, Result: play.Result{Stopped: play.StopDays}})
		run.Follow(followed())
		golden(t, "run", run.Report())

		// A rate-paced run of 100/s, cut at 3 s by its duration: two progress intervals, with
		// the groups' states.
		shape, err := pace.Constant(100)
		if err != nil {
			t.Fatal(err)
		}
		runner, err := pace.NewRunner(pace.ByCount(shape))
		if err != nil {
			t.Fatal(err)
		}
		var cur sink.Stats
		states := map[string]follow.State{"g1": {}}
		stress := measure.New(measure.Options{MaxRate: 500, LineEvery: time.Second})
		stress.FollowIntervals(func() map[string]follow.State { return states })
		plan := play.Plan{Hits: "hits", Pacing: play.Pacing{ByCount: true, Shape: shape, Runner: runner}, Stop: play.Stop{Duration: 3 * time.Second}}
		stress.RunStarted(play.Start{Plan: plan, At: time.Now(), Stats: func() sink.Stats { return cur }})
		var lines []report.Interval
		for i, n := range []int{100, 160} {
			for range n - int(runner.Snapshot().Sent) {
				if _, err := runner.Wait(ctx, 0); err != nil {
					t.Fatal(err)
				}
			}
			cur = sink.Stats{Topics: map[string]sink.TopicStats{"hits": {Sent: int64(n), Acked: int64(n - 10*i), Bytes: int64(1000 * (n - 10*i))}},
				Latency: latencies(n - 10*i)}
			states = map[string]follow.State{"g1": {Latency: latencies(20 * (i + 1)), Untaken: int64(n - 10*i - 20*(i+1))}}
			iv, _ := stress.Interval()
			lines = append(lines, iv)
		}
		stress.UnitDone(play.UnitResult{Unit: days[0].Unit, Sent: 160}) // released, not flushed: a rate run flushes at its end
		time.Sleep(400 * time.Millisecond)                              // the final flush
		stress.RunEnded(ctx, &play.End{Stats: stats, Result: play.Result{Stopped: play.StopDuration, Sent: 160, FirstDay: 0, LastDay: 1,
			PacedFrom: time.Now().Add(-2 * time.Second), SendingEnded: time.Now().Add(-400 * time.Millisecond), FinalFlush: 400 * time.Millisecond}})
		stress.Follow(followed())
		doc := stress.Report()
		golden(t, "stress", doc)
		if got := doc.(report.Stress).Stress.Intervals; !reflect.DeepEqual(got, lines) {
			t.Errorf("report intervals %+v, want the progress lines' %+v", got, lines)
		}
	})
}
