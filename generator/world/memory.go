package world

import "math"

// Memory a run needs, measured with /usr/bin/time (peak resident size) on linux/amd64, Go
// 1.26, playing days 0–2 into /dev/null under the soft memory limit below: scale 1 took
// 95 MB, scale 4 137 MB, scale 10 233 MB, scale 16 319 MB, scale 30 559 MB (16 MB per unit of
// scale over an 80 MB base: two days' compact models, the cohorts' future activity and a
// window of rendered batches); garbage adds about 1.2 KB per malformed or redelivered message,
// which a day holds in memory until it is sent (--garbage 3 at scale 4: 1.22 GB). The
// constants below round those up, for days larger than day 0 and for a run without the limit.
const (
	memoryBase        = 96 << 20 // bytes, whatever the scale
	memoryPerScale    = 20 << 20 // bytes per unit of scale
	memoryPerExtra    = 1536     // bytes per garbage or redelivered message
	eventsPerScale    = 60_000   // a day's events per unit of scale, rounded up (day 0: 52 100)
	maxMemoryEstimate = math.MaxInt64
)

// MemoryNeeded estimates the peak memory, in bytes, of generating and playing days at scale
// with garbage g: one day is built whole before it is sent, and a multi-day run holds about
// one day at a time (the command sets a soft memory limit to keep it so). It is an upper
// estimate from measurements (see the constants above), not a bound the runtime enforces.
func MemoryNeeded(scale float64, g Garbage) int64 {
	scale = max(scale, 0)
	extras := scale * eventsPerScale * (max(g.Rate, 0) + max(g.Redeliver, 0))
	b := memoryBase + scale*memoryPerScale + extras*memoryPerExtra
	if b >= maxMemoryEstimate || math.IsNaN(b) {
		return maxMemoryEstimate
	}
	return int64(b)
}

// The soft memory limit is softMemoryBase plus softMemoryPerScale per unit of scale (at least
// one): 1.4 to 1.9 times the live heap after collection measured with GODEBUG=gctrace=1 on
// batch --day 0 --days 3 (54 MB at scale 1, 176 MB at scale 10, 390 MB at scale 30: two days'
// compact models, the cohorts' future activity and the window of rendered batches,
// play.FlushWindow). Closer than that, collection costs CPU: on one core, 8 days at scale 1
// took 0.41 user seconds under 80 MiB and 0.37 under 100 MiB (peak resident 107 MB); at scale
// 10 a limit of 200 MiB cost nothing against one of 452 MiB.
const (
	softMemoryBase     = 84 << 20
	softMemoryPerScale = 16 << 20
)

// SoftMemoryLimit is the soft memory limit (runtime/debug.SetMemoryLimit) that keeps a run of
// days at scale with garbage g near what it needs rather than letting the collector drift
// to twice the live heap: 100 MiB at scale 1, 244 MiB at scale 10, plus what the garbage's
// extras need ([MemoryNeeded]'s share for them), which a day holds until it is sent.
func SoftMemoryLimit(scale float64, g Garbage) int64 {
	extras := MemoryNeeded(scale, g) - MemoryNeeded(scale, Garbage{})
	return int64(softMemoryBase+max(1, scale)*softMemoryPerScale) + extras
}
