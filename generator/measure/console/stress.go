package console

import (
	"fmt"
	"strconv"
	"time"

	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/measure/report"
)

// A rate-paced run's lines, in the style of Kafka's producer performance tool: one per
// progress interval and the total at the end. The figures are generator/measure's; the words
// are the console's.

// stressLine is the progress line of interval iv, acked records having been acknowledged so
// far.
func stressLine(iv report.Interval, acked int64) string {
	return fmt.Sprintf("stress %5.1fs: %d records sent, %.1f records/sec (%.2f MB/sec), %.1f ms avg latency, %.1f ms max latency, %d errors (target %.0f/s, lag %.1f ms, %d total)",
		iv.AtS, iv.Records, iv.PerS, iv.MBPerS, iv.AvgLatencyMS, iv.MaxLatencyMS, iv.Errors, iv.TargetPerS, iv.LagMS, acked)
}

// stressTotal is the final line of the whole run. The records sent are the topic line's (the
// command's summary); the rate is of the acknowledged ones. When some were not acknowledged
// the line says how many were, so that it never counts acknowledged records as the sent ones
// (77 958 "sent" beside the topic's 87 958).
func stressTotal(f measure.Figures) string {
	sent := strconv.FormatInt(f.Sent, 10) + " records sent"
	if f.Acked != f.Sent {
		sent += fmt.Sprintf(" (%d acked, %d failed, %d unaccounted)", f.Acked, f.Failed, f.Unaccounted)
	}
	l, ms := f.Latency, measure.Millis
	over := fmt.Sprintf("over %.1fs", f.Elapsed.Seconds())
	if w := f.Warmup; w != nil {
		over = fmt.Sprintf("over the %.1fs after the %v warm-up", f.RateElapsed.Seconds(), w.Duration)
	}
	return fmt.Sprintf("stress total: %s, %.1f records/sec (%.2f MB/sec), %.2f ms avg latency, %.2f ms max latency, "+
		"%.2f ms 50th, %.2f ms 95th, %.2f ms 99th, %.2f ms 99.9th, %d errors (target %.1f/s %s)",
		sent, f.AchievedPerS, f.MBPerS, ms(l.Mean), ms(l.Max), ms(l.P50), ms(l.P95), ms(l.P99), ms(l.P999), f.Failed, f.TargetPerS, over)
}

// stressWarmup is a rate-paced run's line of its warm-up, before the total: what it measured
// apart, in the total's words.
func stressWarmup(w measure.Warmup) string {
	l, ms := w.Latency, measure.Millis
	return fmt.Sprintf("stress warm-up: %d records acked of those due in the first %v (measured apart), %.2f ms avg latency, %.2f ms max latency, "+
		"%.2f ms 50th, %.2f ms 95th, %.2f ms 99th, %.2f ms 99.9th, %d errors",
		w.Acked, w.Duration, ms(l.Mean), ms(l.Max), ms(l.P50), ms(l.P95), ms(l.P99), ms(l.P999), w.Failed)
}

// warmupLine is the summary's line of the warm-up: what it measured apart (after "clickgen: ").
func warmupLine(w measure.Warmup) string {
	s := fmt.Sprintf("warm-up, the first %v, measured apart: %d acked, %d failed", w.Duration, w.Acked, w.Failed)
	if w.Elapsed < w.Duration {
		s += fmt.Sprintf(" (the run ended %v into it)", w.Elapsed.Round(time.Millisecond))
	}
	if l := w.Latency; l.Count > 0 {
		s += fmt.Sprintf("; latency p50 %v p95 %v p99 %v max %v", round(l.P50), round(l.P95), round(l.P99), round(l.Max))
	}
	return s
}
