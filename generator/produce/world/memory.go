package world

import (
	"fmt"
	"math"
	"strconv"

	"github.com/clickgen/clickgen/generator/field"
)

// Memory a run needs, measured with /usr/bin/time (peak resident size) on linux/amd64, Go
// 1.26, playing days 0–2 into /dev/null under the soft memory limit below: scale 1 took
// 95 MB, scale 4 137 MB, scale 10 233 MB, scale 16 319 MB, scale 30 559 MB (16 MB per unit of
// scale over an 80 MB base: two days' compact models, the cohorts' future activity and a
// window of rendered batches); garbage adds about 1.2 KB per malformed or redelivered message,
// which a day holds in memory until it is sent (--garbage 3 at scale 4: 1.22 GB). The
// constants below round those up, for days larger than day 0 and for a run without the limit.
// At high scales they hold with room (issue 29 N16, Go 1.26, two shared cores): days 0–2 at
// scale 100 peaked at 1.64 GB (the estimate: 2.1 GB), days 0–1 at scale 300 at 3.67 GB (6.1
// GB); day 0's model alone, before its first message, took 0.44 s and 152 MB at scale 10,
// 3.8 s and 852 MB at 100, 19 s and 2.36 GB at 300, 53 s and 7.4 GB at 1000 (20.1 GB
// estimated for a run holding two days). What a hostile run at scale 1000 met was that time,
// spent in silence (the cohorts of 91 prehistory days, then every visitor): the model now
// tells its progress (WithModelProgress).
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

// MaxWorkers bounds the render workers of [PlayOptions.Workers] (and of everything that plays
// days): each worker is a goroutine with two batches of window, so --workers 1000000000 asked
// for a channel of two billion slots and as many goroutines (23 GB, then "out of memory").
// More workers than cores gain nothing; 1024 covers the largest machines.
const MaxWorkers = 1024

// CheckWorkers reports whether n render workers can be asked for: 0 (GOMAXPROCS, at most
// MaxWorkers) to MaxWorkers. The refusal is a *field.Error named workers.
func CheckWorkers(n int) error {
	if n < 0 || n > MaxWorkers {
		return &field.Error{Field: "workers", Value: strconv.Itoa(n), Err: fmt.Errorf("want 0 (all cores) to %d", MaxWorkers)}
	}
	return nil
}

// Memory of what [MemoryNeeded] leaves out, measured like it: a rendered batch is BatchEvents
// events of about 1135 bytes (day 0 writes 59 118 551 bytes for 52 100 events) and their
// offsets; a catalog row keeps 230–256 bytes in the world once loaded (BenchmarkCatalogRows:
// the product, its page's URL and title columns), and its file, parsed by encoding/csv, about
// twice its size in passing.
const (
	memoryPerBatch       = BatchEvents * 1200
	measuredWindow       = 4 // batches in flight of the measurements: two workers
	memoryPerProduct     = 320
	memoryPerCatalogByte = 3
	measuredProducts     = 180 // the embedded catalog's, which the measurements held
)

// Footprint is what a run's memory depends on: [MemoryNeeded]'s scale and garbage, and the
// render workers and catalog it leaves out. Workers 0 counts the window of the measurements
// (two workers); Products and CatalogBytes 0 count nothing beyond the embedded catalog, whose
// 180 rows the measurements held.
type Footprint struct {
	Scale        float64
	Garbage      Garbage
	Workers      int // render workers; each holds up to two batches of a day in flight
	Products     int // catalog rows
	CatalogBytes int // size of the catalog file, read and parsed before the world is built
}

// window is the memory of the batches in flight beyond those MemoryNeeded's measurements
// held: two per worker, at most a day's worth (the window does not outrun the day being
// generated).
func (f Footprint) window() float64 {
	dayBatches := math.Ceil(max(f.Scale, 0) * eventsPerScale / BatchEvents)
	batches := min(2*float64(max(f.Workers, 0)), dayBatches)
	return max(0, batches-measuredWindow) * memoryPerBatch
}

// Need estimates the peak memory of the run, in bytes: [MemoryNeeded], the render window of
// f.Workers and the catalog (its rows and, while it is parsed, its file). Like MemoryNeeded it
// is an upper estimate from measurements.
func (f Footprint) Need() int64 {
	b := float64(MemoryNeeded(f.Scale, f.Garbage)) + f.window() + f.rows() + float64(f.CatalogBytes)*memoryPerCatalogByte
	if b >= maxMemoryEstimate || math.IsNaN(b) {
		return maxMemoryEstimate
	}
	return int64(b)
}

// SoftLimit is [SoftMemoryLimit] for the run, plus what its window and catalog rows keep
// live: without them, a million-row catalog sat above a limit of 100 MiB and the collector ran
// without pause.
func (f Footprint) SoftLimit() int64 {
	return SoftMemoryLimit(f.Scale, f.Garbage) + int64(f.window()) + int64(f.rows())
}

// rows is the memory of the catalog's rows beyond the embedded catalog's.
func (f Footprint) rows() float64 {
	return float64(max(0, f.Products-measuredProducts)) * memoryPerProduct
}
