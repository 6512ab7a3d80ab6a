package play

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/pace"
	"github.com/clickgen/clickgen/generator/sink"
)

// TestMeterIntervalPercentiles: each interval's percentiles come from the latencies recorded
// in it alone, not from the run so far.
func TestMeterIntervalPercentiles(t *testing.T) {
	snk, err := sink.NewWriter(io.Discard, sink.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	shape, _ := pace.Constant(1000)
	m := NewMeter(snk, shape, nil)
	for _, late := range []time.Duration{20 * time.Millisecond, 400 * time.Millisecond} {
		for range 100 {
			if err := snk.Send(context.Background(), sink.Message{Topic: "hits", Value: []byte("{}"), Due: time.Now().Add(-late)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := snk.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		m.Interval()
	}
	iv := m.intervals
	if len(iv) != 2 {
		t.Fatalf("%d intervals, want 2", len(iv))
	}
	for i, want := range []float64{20, 400} {
		got := iv[i]
		if got.Records != 100 || got.P50MS < want*0.98 || got.P50MS > want*1.2 || got.P50MS > got.P95MS || got.P95MS > got.P99MS || got.P99MS > got.MaxLatencyMS {
			t.Errorf("interval %d: records %d, p50 %v p95 %v p99 %v max %v; want 100 records, p50 ≈ %v ms, p50 ≤ p95 ≤ p99 ≤ max",
				i, got.Records, got.P50MS, got.P95MS, got.P99MS, got.MaxLatencyMS, want)
		}
	}
}

// TestMeterRecordApart: once the meter records on its own period, the report's intervals are
// Record's (each with the records of its window only) and the progress lines add none, while
// a line still counts everything since the previous line.
func TestMeterRecordApart(t *testing.T) {
	snk, err := sink.NewWriter(io.Discard, sink.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	shape, _ := pace.Constant(1000)
	m := NewMeter(snk, shape, nil)
	m.Record()
	for range 3 {
		for range 10 {
			if err := snk.Send(context.Background(), sink.Message{Topic: "hits", Value: []byte("{}"), Due: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}
		if err := snk.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		m.Record()
	}
	line, acked := m.Interval()
	if len(m.intervals) != 4 {
		t.Fatalf("%d intervals, want 4 (Record's; the line adds none)", len(m.intervals))
	}
	for i, want := range []int64{0, 10, 10, 10} {
		if got := m.intervals[i].Records; got != want {
			t.Errorf("interval %d: %d records, want %d", i, got, want)
		}
	}
	if line.Records != 30 || acked != 30 {
		t.Errorf("progress interval %d records, %d acked in all: want the 30 records since the previous line", line.Records, acked)
	}
}
