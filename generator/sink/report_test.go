package sink_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/metrics"
	"github.com/clickgen/clickgen/generator/report"
	. "github.com/clickgen/clickgen/generator/sink"
)

func TestReportJSON(t *testing.T) {
	var lat metrics.Histogram
	for i := 1; i <= 100; i++ {
		lat.Record(time.Duration(i) * time.Millisecond)
	}
	s := Stats{
		Topics: map[string]TopicStats{
			"hits":   {Sent: 10, Acked: 8, Failed: 2, Bytes: 800, Partitions: map[int32]int64{0: 5, 1: 3}, FailedTags: []uint32{3}},
			"orders": {Sent: 0},
		},
		Latency: lat,
	}
	r := NewReport(s)
	r.Rate = report.Rate{TargetPerS: 5000, AchievedPerS: 4987.5}
	r.Interrupted = true
	b, err := json.Marshal(r)
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
		"rate": map[string]any{"target_per_s": 5000.0, "achieved_per_s": 4987.5},
		// Bucket middles: 50 ms lies in [49.152, 50.176) ms (1024 µs wide
		// between 32.768 and 65.536 ms), 95 ms in [94.208, 96.256) and
		// 99 ms in [98.304, 100.352) (2048 µs wide above 65.536 ms).
		"latency_ms":  map[string]any{"p50": 49.663, "p95": 95.231, "p99": 99.327, "max": 100.0},
		"interrupted": true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("report JSON\n got %s\nwant %v", b, want)
	}
}
