package pace

import (
	"strings"
	"time"
)

// The inverse of Due: a Pacer says when message n is due; a progress line, a report and a
// Prometheus gauge need the other direction, how many messages the shape has released by an
// elapsed time, and so the target rate over an interval. Like Due these read no clock.

// Scheduled returns how many messages the shape p releases before the elapsed time t: the
// number of n with p.Due(n) < t, which is what an open-loop sender should have released by
// then. It inverts Due by bisection (Due is non-decreasing), so it costs O(log n) calls of
// Due and agrees with Due to the message. A count too large to find (beyond 2^62) is
// returned as the first power of two above 2^62.
func Scheduled(p Pacer, t time.Duration) uint64 {
	before := func(n uint64) bool {
		d, ok := p.Due(n)
		return ok && d < t
	}
	if !before(0) {
		return 0
	}
	lo, hi := uint64(0), uint64(1) // before(lo); find hi with !before(hi)
	for before(hi) {
		lo, hi = hi, hi*2
		if hi > 1<<62 {
			return hi
		}
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if before(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// AllowedRate is the shape's mean rate between the elapsed times from and to, in messages
// per second: the messages [Scheduled] between them over the interval's length (the inverse
// of Due, averaged). It is 0 for an empty or backward interval.
func AllowedRate(p Pacer, from, to time.Duration) float64 {
	if to <= from {
		return 0
	}
	return float64(Scheduled(p, to)-Scheduled(p, from)) / (to - from).Seconds()
}

// ShapeName is the shape p as the report and the log spell it: its String, except that a
// constant rate is the bare rate ("20000/s", not "constant:20000/s").
func ShapeName(p Pacer) string { return strings.TrimPrefix(p.String(), "constant:") }
