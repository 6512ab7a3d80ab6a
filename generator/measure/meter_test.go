package measure

import (
	"context"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clickgen/clickgen/generator/measure/follow"
	"github.com/clickgen/clickgen/generator/measure/latency"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// rateRun is a Run of a rate-paced plan into snk, started, with no runner (the sink's
// counters alone).
func rateRun(t *testing.T, snk sink.Sink, opt Options) *Run {
	t.Helper()
	shape, err := pace.Constant(1000)
	if err != nil {
		t.Fatal(err)
	}
	m := New(opt)
	m.RunStarted(play.Start{Plan: play.Plan{Hits: "hits", Pacing: play.Pacing{ByCount: true, Shape: shape}}, At: time.Now(), Stats: snk.Stats})
	return m
}

// sendLate sends n messages due late ago into snk and flushes them.
func sendLate(t *testing.T, snk sink.Sink, n int, late time.Duration) {
	t.Helper()
	for range n {
		if err := snk.Send(context.Background(), sink.Message{Topic: "hits", Value: []byte("{}"), Due: time.Now().Add(-late)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := snk.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestIntervalPercentiles: each interval's percentiles come from the latencies recorded in it
// alone, not from the run so far; once the run has ended, a line adds no interval to the
// report. Time is synctest's: a message due 20 ms ago is acknowledged 20 ms late however long
// the machine takes to send it (the CI run of 4910a2d, busy, measured p50 24.8 ms on the wall
// clock).
func TestIntervalPercentiles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		snk, err := sink.NewWriter(io.Discard, sink.WriterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		m := rateRun(t, snk, Options{})
		for _, late := range []time.Duration{20 * time.Millisecond, 400 * time.Millisecond} {
			sendLate(t, snk, 100, late)
			m.Interval()
		}
		iv := m.meter.intervals
		if len(iv) != 2 {
			t.Fatalf("%d intervals, want 2", len(iv))
		}
		for i, want := range []float64{20, 400} {
			got := iv[i]
			if got.Records != 100 || got.P50MS < want*0.98 || got.P50MS > want*1.02 || got.P50MS > got.P95MS || got.P95MS > got.P99MS || got.P99MS > got.MaxLatencyMS {
				t.Errorf("interval %d: records %d, p50 %v p95 %v p99 %v max %v; want 100 records, p50 ≈ %v ms, p50 ≤ p95 ≤ p99 ≤ max",
					i, got.Records, got.P50MS, got.P95MS, got.P99MS, got.MaxLatencyMS, want)
			}
		}
		m.RunEnded(context.Background(), &play.End{Stats: snk.Stats()})
		sendLate(t, snk, 5, time.Millisecond)
		if iv, _ := m.Interval(); iv.Records != 5 || len(m.meter.intervals) != 2 {
			t.Errorf("a line after the end: %d records, the report %d intervals; want 5 on the line, still 2 in the report", iv.Records, len(m.meter.intervals))
		}
	})
}

// TestRecordApart: when the run records its report's intervals on their own period, the
// report's intervals are the recorder's (each with the records of its window only) and the
// progress lines add none, while a line still counts everything since the previous line.
func TestRecordApart(t *testing.T) {
	snk, err := sink.NewWriter(io.Discard, sink.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := rateRun(t, snk, Options{RecordEvery: time.Hour, LineEvery: time.Second}) // the hour never comes: record is called below
	defer m.stopRecording()
	for range 3 {
		sendLate(t, snk, 10, 0)
		m.record()
	}
	line, acked := m.Interval()
	if len(m.meter.intervals) != 3 {
		t.Fatalf("%d intervals, want 3 (the recorder's; the line adds none)", len(m.meter.intervals))
	}
	for i, iv := range m.meter.intervals {
		if iv.Records != 10 {
			t.Errorf("interval %d: %d records, want 10", i, iv.Records)
		}
	}
	if line.Records != 30 || acked != 30 {
		t.Errorf("progress interval %d records, %d acked in all: want the 30 records since the previous line", line.Records, acked)
	}
}

// TestFiguresWithFreshness: the figures are fixed at the end, from the final counters; the
// followed groups' freshness joins them whether following ended before or after, and a run
// not paced by a rate has its Options.Target as target.
func TestFiguresWithFreshness(t *testing.T) {
	snk, err := sink.NewWriter(io.Discard, sink.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := New(Options{Target: func() float64 { return 35 }})
	m.RunStarted(play.Start{Plan: play.Plan{Hits: "hits"}, At: time.Now().Add(-time.Second), Stats: snk.Stats})
	sendLate(t, snk, 50, 3*time.Millisecond)
	res := follow.Result{Groups: []follow.Group{{Name: "g", Latency: latencies(10), Drained: true}}}
	m.Follow(res) // before the end
	m.RunEnded(context.Background(), &play.End{Stats: snk.Stats()})
	f := m.Figures()
	if f.Acked != 50 || f.Latency.Count != 50 || f.TargetPerS != 35 || f.AchievedPerS <= 0 || f.AchievedPerS > 50 || f.Elapsed < time.Second {
		t.Errorf("figures %+v: want 50 acked over at least 1 s, target 35", f)
	}
	if g := f.Freshness["g"]; g.Count != 10 || g.Max != 10*time.Millisecond {
		t.Errorf("freshness %+v, want g's 10 latencies up to 10ms", f.Freshness)
	}
	m.Follow(follow.Result{Groups: []follow.Group{{Name: "h", Latency: latencies(3)}}}) // after
	if f := m.Figures(); f.Freshness["h"].Count != 3 || f.Acked != 50 {
		t.Errorf("figures after following ended %+v: want h's freshness beside the counts", f)
	}
}

// TestReportEvery: the report's interval is a sixtieth of the planned duration in whole
// seconds, between 1 s and 5 s, never longer than the console's line period, and the line's
// period when the duration is not known.
func TestReportEvery(t *testing.T) {
	s := time.Second
	for _, tc := range []struct{ duration, line, want time.Duration }{
		{15 * s, 5 * s, s}, {59 * s, 5 * s, s}, {2 * time.Minute, 5 * s, 2 * s}, {10 * time.Minute, 5 * s, 5 * s},
		{time.Hour, 5 * s, 5 * s}, {time.Hour, 10 * s, 5 * s}, {15 * s, 500 * time.Millisecond, 500 * time.Millisecond},
		{0, 5 * s, 5 * s}, {0, 2 * s, 2 * s},
	} {
		if got := ReportEvery(tc.duration, tc.line); got != tc.want {
			t.Errorf("ReportEvery(%v, %v) = %v, want %v", tc.duration, tc.line, got, tc.want)
		}
	}
}

// latencies is a histogram of 1 … n milliseconds.
func latencies(n int) latency.Histogram {
	var h latency.Histogram
	for i := 1; i <= n; i++ {
		h.Record(time.Duration(i) * time.Millisecond)
	}
	return h
}
