package report_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/clickgen/clickgen/generator/measure/report"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json from the types (only with a deliberate change of the report's schema)")

// TestGolden pins the bytes of each report document, every key set and the optional ones
// both present and absent, as the command's report file indents them: the key names, their
// order and which keys are omitted when empty are the file's contract with its readers
// (clickgen plot, a user's scripts). The golden files were written by the types before they moved here from
// sink, play and follow, so they also prove the move changed no byte.
func TestGolden(t *testing.T) {
	drained := 1.25
	full := report.Report{
		Topics: map[string]report.Topic{
			"hits":   {Sent: 10, Acked: 8, Failed: 1, Unaccounted: 1, Bytes: 1234, Partitions: map[int32]int64{0: 5, 1: 3}, FailedTags: []uint32{7, 9}},
			"orders": {Sent: 2, Acked: 2, Bytes: 20, Partitions: map[int32]int64{}},
		},
		Rate:        report.Rate{TargetPerS: 100, AchievedPerS: 99.5},
		LatencyMS:   report.Latency{P50: 1.5, P95: 2.25, P99: 3, Max: 4.125},
		Interrupted: true,
		Follow: map[string]report.FollowGroup{
			"g1": {LatencyMS: report.Percentiles{P50: 1, P90: 2, P99: 3, P999: 4, Max: 5}, LatencyDistributionMS: [][2]float64{{50, 1}, {99, 3}},
				Taken: 9, DrainedS: &drained, Untaken: map[string]int64{"hits/0": 3}, NotRead: []string{"orders"},
				Lag: []report.LagSample{{T: 0.5, Partitions: map[string]int64{"hits/0": 2}}}, MeasuredFrom: "intended send time",
				Reordered: 1, Late: 2, PeakStateBytes: 72, Polls: 10, PollErrors: 1, LastPollError: "boom"},
			"g2": {Lag: []report.LagSample{}},
		},
	}
	units := []report.Unit{
		{Kind: "hits", Day: 3, Date: "2024-01-04", Clean: 5, Garbage: map[string]int{"x": 1}, Redelivered: 2, Sent: 8, Flushed: true},
		{Kind: "snapshot", Day: 4, Date: "2024-01-05", Garbage: map[string]int{}},
	}
	plain := full
	plain.Follow = nil
	verdict := plain
	got, ratio := 63.25, 0.995
	verdict.Warmup = &report.Warmup{DurationS: 2, ElapsedS: 2, Acked: 40, Failed: 1, Bytes: 4000, LatencyMS: report.Latency{P50: 10, P95: 20, P99: 30, Max: 40},
		AfterAcked: 60, AfterS: 8.5, Follow: map[string]report.WarmupFollow{"g1": {Taken: 30, LatencyMS: report.Percentiles{P50: 1, P90: 2, P99: 3, P999: 4, Max: 5}}}}
	verdict.Thresholds = []report.Threshold{
		{Expr: "p99<50ms", Figure: "p99", Value: &got, Unit: "ms", Limit: 50},
		{Expr: "freshness.p99<2s", Group: "g1", Figure: "freshness.p99", Unit: "ms", Limit: 2000, Missing: "the group took no message"},
		{Expr: "rate>=0.99", Figure: "rate", Value: &ratio, Unit: "ratio", Limit: 0.99, Held: true},
	}
	for name, doc := range map[string]any{
		"run":    report.Run{Report: plain, Units: units},
		"runnil": report.Run{},
		"stress": report.Stress{Report: full, LatencyMS: report.StressLatency{Mean: 1, P50: 2, P95: 3, P99: 4, P999: 5, Max: 6},
			LatencyDistributionMS: [][2]float64{{50, 2}}, Units: units,
			Stress: report.StressInfo{Shape: "ramp:1/s-2/s:1s", MaxRatePerS: 5, PacedS: 1.5, SendingS: 1.25, FinalFlushS: 0.25, Released: 9, MaxLagMS: 0.5, FirstDay: 1, LastDay: 2, Stopped: "duration",
				Intervals: []report.Interval{{AtS: 1, Records: 2, PerS: 3, TargetPerS: 4, MBPerS: 5, AvgLatencyMS: 6, MaxLatencyMS: 7, P50MS: 8, P95MS: 9, P99MS: 10, Errors: 11, LagMS: 12,
					Follow: map[string]report.FollowInterval{"g1": {Taken: 1, P50MS: 2, P99MS: 3, MaxMS: 4, Lag: 5}}}, {AtS: 2}}}},
		"stressnil": report.Stress{Report: plain, Stress: report.StressInfo{Intervals: []report.Interval{}}},
		// The sections a warm-up and thresholds add: absent above, every key set here.
		"verdict": report.Stress{Report: verdict, LatencyMS: report.StressLatency{Mean: 1, P50: 2, P95: 3, P99: 4, P999: 5, Max: 6},
			Stress: report.StressInfo{Intervals: []report.Interval{}}, Units: []report.Unit{}},
	} {
		var buf bytes.Buffer // as the report file writes it: indented, not HTML-escaped
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
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, want) {
			t.Errorf("%s: the report's bytes changed\n got %s\nwant %s", name, b, want)
		}
	}
}
