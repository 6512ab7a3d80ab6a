package latency

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

// The latency histogram is log-linear: values are counted in microseconds,
// exactly below 32 µs, and above that in 32 linear sub-buckets per power of
// two, so a bucket is at most 1/32 of its value wide. Quantiles report the
// middle of their bucket, which keeps the relative error within 1/64 (about
// 1.6 %); the maximum is kept exactly. 1600 buckets cover every
// time.Duration.
const (
	subBits  = 5
	subCount = 1 << subBits
	// maxExp is the exponent of the largest microsecond count a
	// time.Duration holds (math.MaxInt64/1000 < 2^54).
	maxExp     = 53
	numBuckets = (maxExp - subBits + 2) * subCount
)

// bucketOf returns the bucket counting us microseconds.
func bucketOf(us uint64) int {
	if us < subCount {
		return int(us)
	}
	e := bits.Len64(us) - 1 // e >= subBits
	g := e - subBits
	return g*subCount + int(us>>g)
}

// bucketRange returns the smallest value counted by bucket b and its width,
// both in microseconds.
func bucketRange(b int) (lower, width uint64) {
	if b < subCount {
		return uint64(b), 1
	}
	g := b/subCount - 1
	sub := uint64(b%subCount + subCount)
	return sub << g, 1 << g
}

// Histogram is a snapshot of a latency distribution: a compact log-linear
// histogram (relative error of quantiles within 1/64) with an exact count,
// sum and maximum. The zero value is an empty histogram. Histograms of
// separate runs or sinks merge exactly with [Histogram.Merge]. A Histogram is
// plain data and not safe for concurrent mutation; sinks record into their own
// concurrent recorder and hand out Histogram snapshots in [Stats].
type Histogram struct {
	counts []uint64 // nil until the first value; len numBuckets after
	n      uint64
	sumUS  uint64
	max    time.Duration
}

// Record adds one value. Negative durations count as zero.
func (h *Histogram) Record(d time.Duration) {
	d = max(d, 0)
	if h.counts == nil {
		h.counts = make([]uint64, numBuckets)
	}
	us := uint64(d / time.Microsecond)
	h.counts[bucketOf(us)]++
	h.n++
	h.sumUS += us
	h.max = max(h.max, d)
}

// RecordN adds n values d at once (a run of messages that share a latency); n <= 0 adds none.
func (h *Histogram) RecordN(d time.Duration, n int64) {
	if n <= 0 {
		return
	}
	d = max(d, 0)
	if h.counts == nil {
		h.counts = make([]uint64, numBuckets)
	}
	us := uint64(d / time.Microsecond)
	h.counts[bucketOf(us)] += uint64(n)
	h.n += uint64(n)
	h.sumUS += us * uint64(n)
	h.max = max(h.max, d)
}

// Merge adds every value counted in o to h.
func (h *Histogram) Merge(o Histogram) {
	if o.n == 0 {
		return
	}
	if h.counts == nil {
		h.counts = make([]uint64, numBuckets)
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sumUS += o.sumUS
	h.max = max(h.max, o.max)
}

// Count returns the number of values recorded.
func (h Histogram) Count() uint64 { return h.n }

// Max returns the largest value recorded, exactly; zero if none.
func (h Histogram) Max() time.Duration { return h.max }

// Mean returns the mean of the recorded values (microsecond resolution);
// zero if none.
func (h Histogram) Mean() time.Duration {
	if h.n == 0 {
		return 0
	}
	return time.Duration(h.sumUS/h.n) * time.Microsecond
}

// Quantile returns the q-quantile (0 < q <= 1) of the recorded values: the
// middle of the bucket holding the value of rank ceil(q·count), never more
// than Max. Quantile(1) is Max exactly. It returns zero if nothing was
// recorded.
func (h Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	if q >= 1 {
		return h.max
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = max(rank, 1)
	var seen uint64
	for b, c := range h.counts {
		seen += c
		if seen >= rank {
			lower, width := bucketRange(b)
			d := time.Duration(lower+(width-1)/2) * time.Microsecond
			return min(d, h.max)
		}
	}
	return h.max
}

// Sum returns the total of the recorded values, at microsecond resolution.
func (h Histogram) Sum() time.Duration { return time.Duration(h.sumUS) * time.Microsecond }

// CountAtMost returns how many recorded values are at most d, at bucket resolution: a
// bucket counts when its middle is at most d (the value Quantile reports for it). It is what a
// Prometheus histogram bucket with upper bound d holds.
func (h Histogram) CountAtMost(d time.Duration) uint64 {
	var n uint64
	for b, c := range h.counts {
		if c == 0 {
			continue
		}
		lower, width := bucketRange(b)
		if time.Duration(lower+(width-1)/2)*time.Microsecond > d {
			break
		}
		n += c
	}
	return n
}

// Since returns the values recorded after prev, an earlier snapshot of the same histogram:
// count, sum and buckets exactly; the maximum at bucket resolution (the middle of the highest
// bucket that grew), or exactly when the window holds a new overall maximum.
func (h Histogram) Since(prev Histogram) Histogram {
	if h.n <= prev.n {
		return Histogram{}
	}
	w := Histogram{counts: make([]uint64, numBuckets), n: h.n - prev.n, sumUS: h.sumUS - prev.sumUS}
	for b, c := range h.counts {
		var was uint64
		if prev.counts != nil {
			was = prev.counts[b]
		}
		if c > was {
			w.counts[b] = c - was
			lower, width := bucketRange(b)
			w.max = time.Duration(lower+(width-1)/2) * time.Microsecond
		}
	}
	if h.max > prev.max {
		w.max = h.max
	}
	return w
}

// Recorder is the concurrent side of a Histogram: promises record into
// it with atomics only, and snapshot copies it out.
type Recorder struct {
	counts [numBuckets]atomic.Uint64
	sumUS  atomic.Uint64
	max    atomic.Int64 // nanoseconds
}

func (r *Recorder) Record(d time.Duration) {
	d = max(d, 0)
	us := uint64(d / time.Microsecond)
	r.counts[bucketOf(us)].Add(1)
	r.sumUS.Add(us)
	for {
		old := r.max.Load()
		if int64(d) <= old || r.max.CompareAndSwap(old, int64(d)) {
			return
		}
	}
}

func (r *Recorder) Snapshot() Histogram {
	var h Histogram
	for i := range r.counts {
		c := r.counts[i].Load()
		if c == 0 {
			continue
		}
		if h.counts == nil {
			h.counts = make([]uint64, numBuckets)
		}
		h.counts[i] = c
		h.n += c
	}
	h.sumUS = r.sumUS.Load()
	h.max = time.Duration(r.max.Load())
	return h
}
