package measure

import (
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/measure/latency"
)

// TestMillis: milliseconds rounded to the microsecond, half away from zero, wherever a
// duration becomes a report's or a line's milliseconds.
func TestMillis(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want float64
	}{
		{0, 0}, {1499 * time.Nanosecond, 0.001}, {1500 * time.Nanosecond, 0.002}, {1234567 * time.Nanosecond, 1.235},
		{1234499 * time.Nanosecond, 1.234}, {26701071 * time.Microsecond, 26701.071}, {time.Hour, 3_600_000},
	} {
		if got := Millis(tc.d); got != tc.want {
			t.Errorf("Millis(%v) = %v, want %v", tc.d, got, tc.want)
		}
	}
}

// TestPercentilesOf: the figures of a histogram are its own quantiles, mean, maximum and
// count; an empty one is zero.
func TestPercentilesOf(t *testing.T) {
	if p := PercentilesOf(latency.Histogram{}); p != (Percentiles{}) {
		t.Errorf("empty: %+v, want zero", p)
	}
	var h latency.Histogram
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i)*time.Millisecond + 123*time.Nanosecond)
	}
	p := PercentilesOf(h)
	want := Percentiles{Count: 1000, Mean: h.Mean(), P50: h.Quantile(0.5), P90: h.Quantile(0.9), P95: h.Quantile(0.95),
		P99: h.Quantile(0.99), P999: h.Quantile(0.999), Max: time.Second + 123}
	if p != want {
		t.Errorf("PercentilesOf = %+v, want %+v", p, want)
	}
	if l := p.latency(); l.Max != 1000 || l.P50 != Millis(p.P50) || l.P99 != Millis(p.P99) {
		t.Errorf("latency_ms %+v from %+v", l, p)
	}
	if s := p.stress(); s.Mean != Millis(p.Mean) || s.P999 != Millis(p.P999) || s.Max != 1000 {
		t.Errorf("stress latency_ms %+v from %+v", s, p)
	}
	if f := p.pipeline(); f.P90 != Millis(p.P90) || f.Max != 1000 {
		t.Errorf("pipeline latency_ms %+v from %+v", f, p)
	}
}

// TestDistribution: the distribution lists every percentile of DistributionPercentiles in
// order with non-decreasing latencies, p 0 at the smallest value's bucket, p 100 the exact
// maximum; an empty histogram has none.
func TestDistribution(t *testing.T) {
	var h latency.Histogram
	if d := Distribution(h); d != nil {
		t.Errorf("empty: %v, want nil", d)
	}
	for i := 1; i <= 100000; i++ {
		h.Record(time.Duration(i) * time.Microsecond) // 1 µs … 100 ms
	}
	d := Distribution(h)
	if len(d) != len(DistributionPercentiles) {
		t.Fatalf("%d points, want %d", len(d), len(DistributionPercentiles))
	}
	for i, pt := range d {
		if pt[0] != DistributionPercentiles[i] || i > 0 && pt[1] < d[i-1][1] {
			t.Errorf("point %d = %v after %v: want p %v, latency non-decreasing", i, pt, d[max(i-1, 0)], DistributionPercentiles[i])
		}
	}
	if d[0][1] > 0.002 || d[len(d)-1][1] != 100 {
		t.Errorf("p0 %v ms, p100 %v ms; want ≤ 0.002 (1 µs) and exactly 100", d[0][1], d[len(d)-1][1])
	}
	if p50 := d[1][1]; p50 < 50*63/64.0 || p50 > 50*65/64.0 {
		t.Errorf("p50 %v ms, want 50 within 1/64", p50)
	}
}
