package measure_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/measure/follow"
	"github.com/clickgen/clickgen/generator/measure/report"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// send hands n messages to snk, each due late ago, flagged warm, and flushes them.
func send(t *testing.T, snk sink.Sink, n int, late time.Duration, warm bool) {
	t.Helper()
	for range n {
		m := sink.Message{Topic: "hits", Value: []byte("{}"), Due: time.Now().Add(-late), Warmup: warm}
		if err := snk.Send(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	if err := snk.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestWarmupFigures: a run with a 2 s warm-up that began 0.5 s after its start and ended 5 s
// after it. The warm-up's 40 messages (100 ms late) are measured apart; the run's latency is
// of the 60 sent after it (10 ms late), its rate over the 2.5 s after it; the report's warmup
// section and its latency count together what was acknowledged.
func TestWarmupFigures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		snk, err := sink.NewWriter(io.Discard, sink.WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		m := measure.New(measure.Options{Target: func() float64 { return 30 }})
		start := time.Now()
		m.RunStarted(play.Start{Plan: play.Plan{Hits: "hits", Warmup: 2 * time.Second}, At: start, Stats: snk.Stats})
		time.Sleep(500 * time.Millisecond)
		until := time.Now().Add(2 * time.Second)
		send(t, snk, 40, 100*time.Millisecond, true)
		time.Sleep(2 * time.Second)
		send(t, snk, 60, 10*time.Millisecond, false)
		time.Sleep(2500 * time.Millisecond)
		if err := m.RunEnded(context.Background(), &play.End{Stats: snk.Stats(), Result: play.Result{Stopped: play.StopDays, WarmupUntil: until}}); err != nil {
			t.Fatal(err)
		}
		f := m.Figures()
		w := f.Warmup
		if w == nil || w.Duration != 2*time.Second || w.Elapsed != 2*time.Second || w.Acked != 40 || w.Latency.Count != 40 || w.Latency.Max != 100*time.Millisecond {
			t.Fatalf("warm-up %+v: want 2s of 2s, 40 acknowledged, 100ms each", w)
		}
		if f.Acked != 100 || f.Latency.Count != 60 || f.Latency.Max != 10*time.Millisecond || f.Histograms.Latency.Count() != 60 {
			t.Errorf("run: %d acknowledged, latency of %d (max %v); want 100, of the 60 after the warm-up (10ms)", f.Acked, f.Latency.Count, f.Latency.Max)
		}
		if f.Elapsed != 5*time.Second || f.RateElapsed != 2500*time.Millisecond || f.AchievedPerS != 24 || f.TargetPerS != 30 {
			t.Errorf("elapsed %v, rates over %v: %v/s of %v/s; want 5s, 2.5s, 24/s (60 in 2.5s) of 30/s", f.Elapsed, f.RateElapsed, f.AchievedPerS, f.TargetPerS)
		}
		rep := m.Report().(report.Run)
		if rw := rep.Warmup; rw == nil || rw.Acked+rw.AfterAcked != rep.Topics["hits"].Acked || rw.AfterAcked != 60 || rw.LatencyMS.Max != 100 ||
			rw.DurationS != 2 || rw.ElapsedS != 2 || rw.AfterS != 2.5 {
			t.Errorf("report's warmup section %+v: want 40 + 60 acknowledged, 100 ms, 2 s of 2 s, 2.5 s after", rw)
		}
		if rep.Rate.AchievedPerS != 24 || rep.LatencyMS.Max != 10 {
			t.Errorf("report's rate %+v, latency %+v: want those after the warm-up", rep.Rate, rep.LatencyMS)
		}
	})
}

// TestWarmupCutShort: a run that ended within its warm-up has no time after it: no rate, and a
// rate threshold says why it has no figure; the warm-up lasted as long as the run did.
func TestWarmupCutShort(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		snk, err := sink.NewWriter(io.Discard, sink.WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		m := measure.New(measure.Options{Target: func() float64 { return 30 }})
		m.RunStarted(play.Start{Plan: play.Plan{Hits: "hits", Warmup: 2 * time.Second}, At: time.Now(), Stats: snk.Stats})
		until := time.Now().Add(2 * time.Second)
		send(t, snk, 10, time.Millisecond, true)
		time.Sleep(time.Second)
		m.RunEnded(context.Background(), &play.End{Stats: snk.Stats(), Result: play.Result{WarmupUntil: until}, Err: context.Canceled, Interrupted: true})
		f := m.Figures()
		if f.Warmup.Elapsed != time.Second || f.RateElapsed != 0 || f.AchievedPerS != 0 || f.Latency.Count != 0 || f.Warmup.Acked != 10 {
			t.Errorf("figures %+v, warm-up %+v: want a warm-up of 1s with the 10 messages, nothing after it", f, f.Warmup)
		}
		var l measure.Thresholds
		if err := l.Set("rate>=0.5"); err != nil {
			t.Fatal(err)
		}
		if v := m.Judge(l)[0]; v.Held || v.Missing != "the run ended within its warm-up" {
			t.Errorf("rate on a run cut within its warm-up: %s", v)
		}
	})
}

// TestWarmupTarget: a rate-paced run's target after its warm-up is the shape's mean over the
// time after it: steps of 100/s for 2 s then 300/s, with a 2 s warm-up and a 4 s duration,
// aim at 300/s, not the whole run's 200/s.
func TestWarmupTarget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		shape, err := pace.ParseShape("steps:100/s@2s,300/s@10s")
		if err != nil {
			t.Fatal(err)
		}
		runner, err := pace.NewRunner(pace.ByCount(shape))
		if err != nil {
			t.Fatal(err)
		}
		for _, warmup := range []time.Duration{0, 2 * time.Second} {
			snk, err := sink.NewWriter(io.Discard, sink.WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			m := measure.New(measure.Options{})
			plan := play.Plan{Hits: "hits", Warmup: warmup, Pacing: play.Pacing{ByCount: true, Shape: shape, Runner: runner}, Stop: play.Stop{Duration: 4 * time.Second}}
			start := time.Now()
			m.RunStarted(play.Start{Plan: plan, At: start, Stats: snk.Stats})
			time.Sleep(4 * time.Second)
			res := play.Result{Stopped: play.StopDuration, PacedFrom: start}
			if warmup > 0 {
				res.WarmupUntil = start.Add(warmup)
			}
			m.RunEnded(context.Background(), &play.End{Stats: snk.Stats(), Result: res})
			want := map[time.Duration]float64{0: 200, 2 * time.Second: 300}[warmup]
			if got := m.Figures().TargetPerS; got != want {
				t.Errorf("warm-up %v: target %v/s, want %v/s", warmup, got, want)
			}
		}
	})
}

// TestVerdictGolden pins the report of a rate-paced run with a warm-up, a followed group and
// thresholds judged: the warmup and thresholds sections, held and crossed, a group's freshness
// and a figure that could not be measured. A report without them is pinned by
// TestReportGolden, byte for byte as before.
func TestVerdictGolden(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		snk, err := sink.NewWriter(io.Discard, sink.WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		shape, err := pace.Constant(100)
		if err != nil {
			t.Fatal(err)
		}
		runner, err := pace.NewRunner(pace.ByCount(shape))
		if err != nil {
			t.Fatal(err)
		}
		m := measure.New(measure.Options{})
		plan := play.Plan{Hits: "hits", Warmup: time.Second, Pacing: play.Pacing{ByCount: true, Shape: shape, Runner: runner}, Stop: play.Stop{Duration: 3 * time.Second}}
		start := time.Now()
		m.RunStarted(play.Start{Plan: plan, At: start, Stats: snk.Stats})
		send(t, snk, 100, 40*time.Millisecond, true)
		time.Sleep(time.Second)
		send(t, snk, 190, 5*time.Millisecond, false)
		time.Sleep(2 * time.Second)
		m.RunEnded(context.Background(), &play.End{Stats: snk.Stats(), Result: play.Result{Stopped: play.StopDuration, Sent: 290, PacedFrom: start,
			WarmupUntil: start.Add(time.Second)}})
		m.Follow(follow.Result{MeasuredFrom: "intended send time", Groups: []follow.Group{
			{Name: "g1", Latency: latencies(40), Warmup: latencies(10), Drained: true},
			{Name: "g2", Warmup: latencies(3), Drained: true},
		}})
		var l measure.Thresholds
		for _, e := range []string{"p99<50ms", "max<1ms", "rate>=0.9", "failed==0", "freshness.p99<30ms"} {
			if err := l.Set(e); err != nil {
				t.Fatal(err)
			}
		}
		vs := m.Judge(l)
		var crossed []string
		for _, v := range measure.Crossed(vs) {
			crossed = append(crossed, v.String())
		}
		want := []string{"max<1ms crossed: max 5ms", "freshness.p99<30ms crossed for g1: freshness.p99 40ms",
			"freshness.p99<30ms crossed for g2: no data (the group took no message after the warm-up)"}
		if len(vs) != 6 || !slices.Equal(crossed, want) {
			t.Errorf("%d verdicts, crossed %q; want 6, crossed %q", len(vs), crossed, want)
		}
		err = &measure.CrossedError{Verdicts: measure.Crossed(vs)}
		var ce *measure.CrossedError
		if !errors.As(err, &ce) || err.Error() != "threshold(s) crossed: max<1ms (max 5ms), freshness.p99<30ms for g1 (freshness.p99 40ms), "+
			"freshness.p99<30ms for g2 (no data: the group took no message after the warm-up)" {
			t.Errorf("CrossedError: %v", err)
		}
		golden(t, "verdict", m.Report())
	})
}
