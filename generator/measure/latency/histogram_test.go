package latency

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestBucketsContiguous checks that buckets tile the microsecond line with
// no gap or overlap and are at most 1/32 of their value wide.
func TestBucketsContiguous(t *testing.T) {
	next := uint64(0)
	for b := range numBuckets {
		lower, width := bucketRange(b)
		if lower != next {
			t.Fatalf("bucket %d starts at %d, want %d", b, lower, next)
		}
		if lower >= subCount && width*subCount > lower {
			t.Fatalf("bucket %d [%d, +%d) wider than 1/32 of its value", b, lower, width)
		}
		if got := bucketOf(lower); got != b {
			t.Fatalf("bucketOf(%d) = %d, want %d", lower, got, b)
		}
		if got := bucketOf(lower + width - 1); got != b {
			t.Fatalf("bucketOf(%d) = %d, want %d", lower+width-1, got, b)
		}
		next = lower + width
	}
	if maxUS := uint64(math.MaxInt64 / int64(time.Microsecond)); next <= maxUS {
		t.Fatalf("buckets end at %d µs, below the largest duration %d µs", next, maxUS)
	}
}

// exactQuantile is the value of rank ceil(q·n) of sorted.
func exactQuantile(sorted []time.Duration, q float64) time.Duration {
	rank := int(math.Ceil(q * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}

func TestHistogramQuantiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	dists := map[string]func() time.Duration{
		"uniform 0-1s": func() time.Duration { return time.Duration(rng.Int64N(int64(time.Second))) },
		"exponential mean 5ms": func() time.Duration {
			return time.Duration(rng.ExpFloat64() * float64(5*time.Millisecond))
		},
		"lognormal": func() time.Duration {
			return time.Duration(math.Exp(rng.NormFloat64()*1.5) * float64(time.Millisecond))
		},
		"constant 7ms": func() time.Duration { return 7 * time.Millisecond },
	}
	for name, draw := range dists {
		t.Run(name, func(t *testing.T) {
			var h Histogram
			vals := make([]time.Duration, 200_000)
			for i := range vals {
				vals[i] = draw()
				h.Record(vals[i])
			}
			slices.Sort(vals)
			if h.Count() != uint64(len(vals)) {
				t.Fatalf("Count() = %d, want %d", h.Count(), len(vals))
			}
			if got, want := h.Max(), vals[len(vals)-1]; got != want {
				t.Errorf("Max() = %v, want exactly %v", got, want)
			}
			for _, q := range []float64{0.5, 0.9, 0.95, 0.99, 0.999} {
				got, want := h.Quantile(q), exactQuantile(vals, q)
				// Within half a bucket (1/64) plus the microsecond
				// truncation.
				tol := want/64 + time.Microsecond
				if d := got - want; d > tol || -d > tol {
					t.Errorf("Quantile(%v) = %v, want %v ± %v", q, got, want, tol)
				}
			}
			if got, want := h.Quantile(1), vals[len(vals)-1]; got != want {
				t.Errorf("Quantile(1) = %v, want max %v", got, want)
			}
		})
	}
}

func TestHistogramSmallValuesExact(t *testing.T) {
	var h Histogram
	for us := range 10 {
		h.Record(time.Duration(us) * time.Microsecond)
	}
	// Ranks 1..10 hold 0..9 µs, each in its own bucket.
	for i, q := range []float64{0.1, 0.2, 0.5, 0.9} {
		want := []time.Duration{0, 1, 4, 8}[i] * time.Microsecond
		if got := h.Quantile(q); got != want {
			t.Errorf("Quantile(%v) = %v, want %v", q, got, want)
		}
	}
	if got, want := h.Mean(), 4*time.Microsecond; got != want { // 45/10 truncated
		t.Errorf("Mean() = %v, want %v", got, want)
	}
}

func TestHistogramEmptyAndNegative(t *testing.T) {
	var h Histogram
	if h.Quantile(0.5) != 0 || h.Max() != 0 || h.Mean() != 0 || h.Count() != 0 {
		t.Errorf("empty histogram: q50 %v max %v mean %v count %d, want all zero", h.Quantile(0.5), h.Max(), h.Mean(), h.Count())
	}
	h.Record(-time.Second)
	if h.Count() != 1 || h.Max() != 0 || h.Quantile(0.5) != 0 {
		t.Errorf("negative value: count %d max %v q50 %v, want 1, 0, 0", h.Count(), h.Max(), h.Quantile(0.5))
	}
}

func TestHistogramMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var a, b, all Histogram
	for i := range 50_000 {
		d := time.Duration(rng.Int64N(int64(3 * time.Second)))
		if i%3 == 0 {
			a.Record(d)
		} else {
			b.Record(d)
		}
		all.Record(d)
	}
	var m Histogram
	m.Merge(a)
	m.Merge(b)
	m.Merge(Histogram{})
	if m.Count() != all.Count() || m.Max() != all.Max() || m.Mean() != all.Mean() || !slices.Equal(m.counts, all.counts) {
		t.Errorf("merge of parts differs from recording all: count %d/%d max %v/%v mean %v/%v",
			m.Count(), all.Count(), m.Max(), all.Max(), m.Mean(), all.Mean())
	}
}

// TestLatencyRecorderConcurrent records from many goroutines (run with
// -race) and checks the snapshot equals a serial histogram of the same values.
func TestLatencyRecorderConcurrent(t *testing.T) {
	var r Recorder
	var want Histogram
	const workers, per = 8, 10_000
	vals := make([][]time.Duration, workers)
	for w := range workers {
		rng := rand.New(rand.NewPCG(uint64(w), 7))
		for range per {
			d := time.Duration(rng.Int64N(int64(time.Minute)))
			vals[w] = append(vals[w], d)
			want.Record(d)
		}
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for _, d := range vals[w] {
				r.Record(d)
			}
		})
	}
	wg.Wait()
	got := r.Snapshot()
	if got.Count() != want.Count() || got.Max() != want.Max() || got.Mean() != want.Mean() || !slices.Equal(got.counts, want.counts) {
		t.Errorf("concurrent snapshot: count %d max %v mean %v, want %d %v %v", got.Count(), got.Max(), got.Mean(), want.Count(), want.Max(), want.Mean())
	}
}

func TestHistogramSinceAndCountAtMost(t *testing.T) {
	var h Histogram
	for _, us := range []int{10, 20, 500, 700} {
		h.Record(time.Duration(us) * time.Microsecond)
	}
	prev := h
	prev.counts = append([]uint64(nil), h.counts...)
	for _, us := range []int{30, 900, 5000} {
		h.Record(time.Duration(us) * time.Microsecond)
	}
	w := h.Since(prev)
	if w.Count() != 3 || w.Sum() != 5930*time.Microsecond || w.Max() != 5000*time.Microsecond {
		t.Errorf("Since: count %d sum %v max %v; want 3, 5.93ms, 5ms", w.Count(), w.Sum(), w.Max())
	}
	if n := w.CountAtMost(time.Millisecond); n != 2 {
		t.Errorf("window CountAtMost(1ms) = %d, want 2", n)
	}
	if n := h.CountAtMost(25 * time.Microsecond); n != 2 {
		t.Errorf("CountAtMost(25µs) = %d, want 2 (10 and 20 µs are exact buckets)", n)
	}
	if n := h.CountAtMost(time.Hour); n != h.Count() {
		t.Errorf("CountAtMost(1h) = %d, want all %d", n, h.Count())
	}
	if w := h.Since(h); w.Count() != 0 {
		t.Errorf("Since(itself) counts %d values", w.Count())
	}
	// A window without a new overall maximum reports its highest bucket's middle.
	h2 := h
	h2.counts = append([]uint64(nil), h.counts...)
	h2.Record(40 * time.Microsecond)
	if w := h2.Since(h); w.Count() != 1 || w.Max() != 40*time.Microsecond {
		t.Errorf("Since with one small value: count %d max %v, want 1, 40µs", w.Count(), w.Max())
	}
}
