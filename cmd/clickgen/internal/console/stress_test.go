package console

import (
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/report"
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
