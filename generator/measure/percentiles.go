package measure

import (
	"math"
	"time"

	"github.com/clickgen/clickgen/generator/measure/latency"
	"github.com/clickgen/clickgen/generator/measure/report"
)

// Millis is d in milliseconds rounded to the microsecond: the one conversion of a duration
// into the report's (and the console's) milliseconds.
func Millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

// Percentiles are the figures of one latency distribution (a [latency.Histogram]): the count,
// the mean (microsecond resolution), the quantiles (the middle of their bucket: within 1/64
// of the true value) and the exact maximum. It is the one shape a latency takes between the
// histogram and the report or the console: produce latency, an interval's window, a followed
// group's pipeline latency. Zero when nothing was recorded.
type Percentiles struct {
	Count                         uint64
	Mean                          time.Duration
	P50, P90, P95, P99, P999, Max time.Duration
}

// PercentilesOf measures h.
func PercentilesOf(h latency.Histogram) Percentiles {
	return Percentiles{Count: h.Count(), Mean: h.Mean(), P50: h.Quantile(0.5), P90: h.Quantile(0.9), P95: h.Quantile(0.95),
		P99: h.Quantile(0.99), P999: h.Quantile(0.999), Max: h.Max()}
}

// DistributionPercentiles are the percentiles a report's latency distribution lists: enough
// to draw it as HdrHistogram plots one (percentile on a log scale of 1/(1−p)).
var DistributionPercentiles = []float64{0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100}

// Distribution is h as the report's [percentile, milliseconds] pairs at
// DistributionPercentiles (p 0 is the lowest bucket's middle, p 100 the exact maximum); nil
// when nothing was recorded.
func Distribution(h latency.Histogram) [][2]float64 {
	if h.Count() == 0 {
		return nil
	}
	out := make([][2]float64, len(DistributionPercentiles))
	for i, p := range DistributionPercentiles {
		out[i] = [2]float64{p, Millis(h.Quantile(p / 100))} // p 0: rank 1, the smallest value's bucket
	}
	return out
}

// The report's three spellings of a latency (its schema keeps them, key for key), each filled
// from Percentiles here and nowhere else.

// latency is a report's latency_ms.
func (p Percentiles) latency() report.Latency {
	return report.Latency{P50: Millis(p.P50), P95: Millis(p.P95), P99: Millis(p.P99), Max: Millis(p.Max)}
}

// stress is a stress report's latency_ms.
func (p Percentiles) stress() report.StressLatency {
	return report.StressLatency{Mean: Millis(p.Mean), P50: Millis(p.P50), P95: Millis(p.P95), P99: Millis(p.P99),
		P999: Millis(p.P999), Max: Millis(p.Max)}
}

// pipeline is a followed group's latency_ms.
func (p Percentiles) pipeline() report.Percentiles {
	return report.Percentiles{P50: Millis(p.P50), P90: Millis(p.P90), P99: Millis(p.P99), P999: Millis(p.P999), Max: Millis(p.Max)}
}
