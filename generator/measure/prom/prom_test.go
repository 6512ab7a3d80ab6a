package prom

import (
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// scrape fetches h's exposition in the text format and parses it as Prometheus does.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("scrape: %d %s", rec.Code, rec.Body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	return fams
}

// value is the value of the sample of family name whose labels are exactly labels (name,
// value pairs); ok is false when there is none.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) (v float64, ok bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		if len(m.Label)*2 != len(labels) {
			continue
		}
		for i, l := range m.Label {
			if l.GetName() != labels[2*i] || l.GetValue() != labels[2*i+1] {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Untyped != nil:
			return m.Untyped.GetValue(), true
		}
	}
	return 0, false
}

// TestExposition serves a file sink's stats through the client library: the counters by
// topic (an awkward topic name escaped and read back intact), the latency histogram and
// summary taken from the sink's own histogram, the observer's series, and the Go and process
// collectors.
func TestExposition(t *testing.T) {
	w, err := sink.NewWriter(io.Discard, sink.WriterOptions{Partitions: map[string]int32{"hits": 2}})
	if err != nil {
		t.Fatal(err)
	}
	// A pacer whose one message was released 1.5 s after it was due.
	runner, err := pace.NewRunner(func(uint64, time.Duration) (time.Duration, bool) { return -1500 * time.Millisecond, true })
	if err != nil {
		t.Fatal(err)
	}
	s := New()
	s.RunStarted(play.Start{Plan: play.Plan{Hits: "hits", Pacing: play.Pacing{Runner: runner}}, Stats: w.Stats})
	ctx := context.Background()
	if _, err := runner.Wait(ctx, 0); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		w.Send(ctx, sink.Message{Topic: "hits", Key: []byte{byte('a' + i)}, Value: []byte("12345"), Due: time.Now().Add(-1500 * time.Millisecond)})
	}
	odd := "we\"ird\\\n"
	w.Send(ctx, sink.Message{Topic: odd, Value: []byte("x")})
	w.Flush(ctx)
	s.UnitStarted(play.Unit{Kind: play.HitsUnit, Day: 3})
	s.ExtraSent("hits", world.GarbageNotAnObject)
	s.ExtraSent("hits", "")
	s.ExtraSent("hits", "")
	s.UnitDone(play.UnitResult{Unit: play.Unit{Kind: play.HitsUnit, Day: 3}})

	fams := scrape(t, s.Handler())
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{MessagesSent, []string{"topic", "hits"}, 5},
		{MessagesAcked, []string{"topic", "hits"}, 5},
		{MessagesFailed, []string{"topic", "hits"}, 0},
		{AckedBytes, []string{"topic", "hits"}, 25},
		{MessagesSent, []string{"topic", odd}, 1},
		{InFlight, nil, 0},
		{ModelDay, []string{"kind", "hits"}, 3},
		{UnitsDone, []string{"kind", "hits"}, 1},
		{ExtraMessages, []string{"class", world.GarbageNotAnObject, "topic", "hits"}, 1},
		{ExtraMessages, []string{"class", RedeliveryClass, "topic", "hits"}, 2},
		{ExtraMessages, []string{"class", world.GarbageKeysetMismatch, "topic", "hits"}, 0},
	} {
		if got, ok := value(fams, c.name, c.labels...); !ok || got != c.want {
			t.Errorf("%s%q = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	if lag, _ := value(fams, Lag); lag < 1.5 {
		t.Errorf("%s = %v, want >= 1.5 (the pacer released its message 1.5s after it was due)", Lag, lag)
	}
	if n, _ := value(fams, Released); n != 1 {
		t.Errorf("%s = %v, want the pacer's 1", Released, n)
	}
	var parts float64
	for _, m := range fams[PartitionAcked].GetMetric() {
		parts += m.GetCounter().GetValue()
	}
	var wantParts int64
	for _, ts := range w.Stats().Topics {
		for _, n := range ts.Partitions {
			wantParts += n
		}
	}
	if parts != float64(wantParts) || parts == 0 {
		t.Errorf("%s adds up to %v, the sink's partitions to %d", PartitionAcked, parts, wantParts)
	}

	// The histogram and summary are the sink's own histogram, bucket by bucket.
	h := w.Stats().Latency
	hist := fams[Latency].GetMetric()[0].GetHistogram()
	if hist.GetSampleCount() != h.Count() || hist.GetSampleCount() != 6 || hist.GetSampleSum() != h.Sum().Seconds() {
		t.Errorf("histogram count %d sum %v, want %d %v", hist.GetSampleCount(), hist.GetSampleSum(), h.Count(), h.Sum().Seconds())
	}
	if len(hist.Bucket) != len(LatencyBounds)+1 {
		t.Errorf("%d buckets, want %d and +Inf", len(hist.Bucket), len(LatencyBounds))
	}
	for _, b := range hist.Bucket {
		if math.IsInf(b.GetUpperBound(), 1) {
			if b.GetCumulativeCount() != h.Count() {
				t.Errorf("bucket +Inf holds %d, want the count %d", b.GetCumulativeCount(), h.Count())
			}
			continue
		}
		if want := h.CountAtMost(time.Duration(b.GetUpperBound() * float64(time.Second))); b.GetCumulativeCount() != want {
			t.Errorf("bucket le=%v holds %d, the sink's histogram %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
	sum := fams[LatencyRun].GetMetric()[0].GetSummary()
	if len(sum.Quantile) != len(LatencyQuantiles) {
		t.Fatalf("summary quantiles %v", sum.Quantile)
	}
	for _, q := range sum.Quantile {
		if want := h.Quantile(q.GetQuantile()).Seconds(); q.GetValue() != want {
			t.Errorf("summary quantile %v = %v, the sink's histogram says %v", q.GetQuantile(), q.GetValue(), want)
		}
	}
	if mx, _ := value(fams, LatencyMax); mx != h.Max().Seconds() {
		t.Errorf("%s = %v, want %v", LatencyMax, mx, h.Max().Seconds())
	}
	for _, name := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_cpu_seconds_total", "process_resident_memory_bytes"} {
		if fams[name] == nil {
			t.Errorf("no %s", name)
		}
	}
	for name, f := range fams {
		if f.GetType() == dto.MetricType_COUNTER && name[len(name)-6:] != "_total" {
			t.Errorf("counter %s does not end in _total", name)
		}
	}
}

// TestNilServer: without --metrics-addr there is no Server, and every call a caller makes on
// one is harmless.
func TestNilServer(t *testing.T) {
	var s *Server
	if s.KafkaHooks() != nil {
		t.Errorf("a nil Server hands out options or hooks")
	}
	s.Follow(nil)
	s.Linger(time.Second)
	s.Close(context.Background(), nil)
	s.Stop()
}

// TestTargetRate: the target rate of shapes whose rate is known at every moment, also in the
// first second and across a step, where a count in a time window would be off.
func TestTargetRate(t *testing.T) {
	for _, c := range []struct {
		shape string
		at    time.Duration
		want  float64
	}{
		{"3000/s", 300 * time.Millisecond, 3000},
		{"3000/s", 7 * time.Second, 3000},
		{"7/s", 5 * time.Second, 7},
		{"steps:1000/s@10s,5000/s@10s", 5 * time.Second, 1000},
		{"steps:1000/s@10s,5000/s@10s", 15 * time.Second, 5000},
	} {
		shape, err := pace.ParseShape(c.shape)
		if err != nil {
			t.Fatal(err)
		}
		if got := targetRate(shape, c.at); math.Abs(got-c.want) > c.want*1e-5 {
			t.Errorf("targetRate(%s, %v) = %v, want %v", c.shape, c.at, got, c.want)
		}
	}
}

// TestRunQuantilesAfterWarmup: with a warm-up the whole-run quantiles are those of the final
// line, of the messages sent after it; the histogram keeps every message.
func TestRunQuantilesAfterWarmup(t *testing.T) {
	w, err := sink.NewWriter(io.Discard, sink.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := New()
	s.RunStarted(play.Start{Plan: play.Plan{Hits: "hits", Warmup: time.Second}, Stats: w.Stats})
	ctx := context.Background()
	for i := range 10 {
		late := 10 * time.Millisecond
		if i < 4 {
			late = 2 * time.Second
		}
		w.Send(ctx, sink.Message{Topic: "hits", Value: []byte("x"), Due: time.Now().Add(-late), Warmup: i < 4})
	}
	w.Flush(ctx)
	fams := scrape(t, s.Handler())
	sum := fams[LatencyRun].GetMetric()[0].GetSummary()
	if n := fams[Latency].GetMetric()[0].GetHistogram().GetSampleCount(); n != 10 || sum.GetSampleCount() != 6 {
		t.Errorf("histogram of %d, summary of %d; want 10 (every message), 6 (after the warm-up)", n, sum.GetSampleCount())
	}
	for _, q := range sum.Quantile {
		if q.GetValue() >= 1 {
			t.Errorf("summary quantile %v = %vs: the warm-up's 2s latencies are in it", q.GetQuantile(), q.GetValue())
		}
	}
}
