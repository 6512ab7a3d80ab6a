package console

import (
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/measure/report"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// TestStressLines: the stress lines' words, which scripts and the README quote, from the
// meter's figures: the progress line, the total, and the total after a delivery failure,
// which says how many of the sent records were acknowledged.
func TestStressLines(t *testing.T) {
	iv := report.Interval{AtS: 5.004, Records: 99_990, PerS: 19_998.4, MBPerS: 22.654, AvgLatencyMS: 7.17, MaxLatencyMS: 30.43,
		Errors: 0, TargetPerS: 20_000, LagMS: 0.25}
	if got, want := stressLine(iv, 100_000), "stress   5.0s: 99990 records sent, 19998.4 records/sec (22.65 MB/sec), 7.2 ms avg latency, 30.4 ms max latency, 0 errors (target 20000/s, lag 0.2 ms, 100000 total)"; got != want {
		t.Errorf("stressLine =\n%s\nwant\n%s", got, want)
	}
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	f := measure.Figures{Sent: 300_000, Acked: 300_000, AchievedPerS: 19_997.5, MBPerS: 22.651, Elapsed: 15002 * time.Millisecond, TargetPerS: 20_000,
		Latency: measure.Percentiles{Mean: ms(7.17), Max: ms(30.43), P50: ms(7.1), P95: ms(12.41), P99: ms(13.95), P999: ms(24.32)}}
	if got, want := stressTotal(f), "stress total: 300000 records sent, 19997.5 records/sec (22.65 MB/sec), 7.17 ms avg latency, 30.43 ms max latency, 7.10 ms 50th, 12.41 ms 95th, 13.95 ms 99th, 24.32 ms 99.9th, 0 errors (target 20000.0/s over 15.0s)"; got != want {
		t.Errorf("stressTotal =\n%s\nwant\n%s", got, want)
	}
	f.Sent, f.Acked, f.Failed, f.Unaccounted = 87_958, 77_958, 0, 10_000
	if got, want := stressTotal(f), "stress total: 87958 records sent (77958 acked, 0 failed, 10000 unaccounted), "; len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("stressTotal after a failure = %s, want it to start %q", got, want)
	}
}

// TestWarmupLines: with a warm-up the total's rate is over the time after it and says so, the
// warm-up has a line of its own before it, and the summary's latency says what it is of; a run
// that ended within its warm-up says how far into it.
func TestWarmupLines(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	w := measure.Warmup{Duration: 2 * time.Second, Elapsed: 2 * time.Second, Acked: 40_000, Failed: 0,
		Latency: measure.Percentiles{Count: 40_000, Mean: ms(21.5), Max: ms(250), P50: ms(12), P95: ms(80), P99: ms(150), P999: ms(240)}}
	f := measure.Figures{Sent: 300_000, Acked: 300_000, AchievedPerS: 20_000, MBPerS: 22.6, Elapsed: 15002 * time.Millisecond,
		RateElapsed: 13002 * time.Millisecond, TargetPerS: 20_000, Warmup: &w,
		Latency: measure.Percentiles{Count: 260_000, Mean: ms(7.17), Max: ms(30.43), P50: ms(7.1), P95: ms(12.41), P99: ms(13.95), P999: ms(24.32)}}
	if got, want := stressWarmup(w), "stress warm-up: 40000 records acked of those due in the first 2s (measured apart), 21.50 ms avg latency, 250.00 ms max latency, 12.00 ms 50th, 80.00 ms 95th, 150.00 ms 99th, 240.00 ms 99.9th, 0 errors"; got != want {
		t.Errorf("stressWarmup =\n%s\nwant\n%s", got, want)
	}
	if got, want := stressTotal(f), "stress total: 300000 records sent, 20000.0 records/sec (22.60 MB/sec), 7.17 ms avg latency, 30.43 ms max latency, 7.10 ms 50th, 12.41 ms 95th, 13.95 ms 99th, 24.32 ms 99.9th, 0 errors (target 20000.0/s over the 13.0s after the 2s warm-up)"; got != want {
		t.Errorf("stressTotal =\n%s\nwant\n%s", got, want)
	}
	sum := Summary(sink.Stats{Topics: map[string]sink.TopicStats{"hits": {Sent: 300_000, Acked: 300_000}}}, f)
	for _, want := range []string{
		"clickgen: latency p50 7.1ms p95 12.41ms p99 13.95ms max 30.43ms (from intended send time to ack, of the 260000 acknowledged after the 2s warm-up)\n",
		"clickgen: warm-up, the first 2s, measured apart: 40000 acked, 0 failed; latency p50 12ms p95 80ms p99 150ms max 250ms\n",
	} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary\n%s\nlacks %q", sum, want)
		}
	}
	w.Elapsed, w.Acked, w.Latency = 1200*time.Millisecond, 0, measure.Percentiles{}
	if got, want := warmupLine(w), "warm-up, the first 2s, measured apart: 0 acked, 0 failed (the run ended 1.2s into it)"; got != want {
		t.Errorf("warmupLine = %q, want %q", got, want)
	}
}
