package play

// A run's report file (generator/report) is collected from the run itself, not from what a
// console printed: a [Collector] hears each unit done, and [NewReport] reads the sink's
// counters at the end. A program that wants the report and no console attaches only these.

import (
	"maps"
	"sync"
	"time"

	"github.com/clickgen/clickgen/generator/report"
	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
)

// Collector is an [Observer] that keeps the report's line of every unit done (report.Unit:
// its clean messages, its garbage by class, its re-sends, what was sent and whether it was
// flushed), in order. Its methods are safe for concurrent use; the zero value is ready.
type Collector struct {
	mu    sync.Mutex
	units []report.Unit
}

// UnitStarted does nothing: a unit enters the report when it is done.
func (c *Collector) UnitStarted(Unit) {}

// UnitDone keeps the unit's report line.
func (c *Collector) UnitDone(r UnitResult) {
	c.mu.Lock()
	c.units = append(c.units, NewUnitReport(r))
	c.mu.Unlock()
}

// Stopped does nothing: the report says how the run ended from the sink and the result.
func (c *Collector) Stopped(StopReason, Result) {}

// Units is the report line of every unit done so far, in order; never nil (the report's
// "units" is an empty list, not null).
func (c *Collector) Units() []report.Unit {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]report.Unit{}, c.units...)
}

// NewUnitReport is the report file's line of r (report.Unit).
func NewUnitReport(r UnitResult) report.Unit {
	kind := "hits"
	if r.Kind == SnapshotUnit {
		kind = "snapshot"
	}
	g := maps.Clone(r.Garbage)
	if g == nil {
		g = map[string]int{}
	}
	return report.Unit{Kind: kind, Day: r.Day, Date: world.DayDate(r.Day).String(), Clean: r.Clean, Garbage: g,
		Redelivered: r.Redelivered(), Sent: r.Sent, Flushed: r.Flushed}
}

// NewReport is the report of a run whose sink ended with stats after elapsed: the sink's
// counters, the target rate (0 for an unpaced run), the achieved rate (acknowledged messages
// over elapsed) and whether the run was interrupted.
func NewReport(stats sink.Stats, elapsed time.Duration, target float64, interrupted bool) report.Report {
	r := sink.NewReport(stats)
	r.Interrupted = interrupted
	r.Rate.TargetPerS = target
	var acked int64
	for _, t := range stats.Topics {
		acked += t.Acked
	}
	if s := elapsed.Seconds(); s > 0 {
		r.Rate.AchievedPerS = float64(acked) / s
	}
	return r
}
