// Package measure is where a run's raw measurements become figures and its report: the one
// percentile type ([Percentiles], from a metrics.Histogram), the one millisecond conversion
// ([Millis]) and the only code that assembles a report (generator/measure/report's schema). The sink
// hands it its counters and latency histogram (sink.Stats), the engine its units and result
// (play.UnitResult, play.Result, play.Plan's pacing), the follower what it measured
// (follow.State during the run, follow.Result at the end); none of them builds a report.
//
// A [Run] measures one run. It is a play.Observer, so a run is measured by attaching it:
// during the run it keeps the report's line of every unit and, for a rate-paced (stress) run,
// the intervals ([Run.Interval] for the console's lines, recorded on a period of its own for
// the report); at the end ([Run.RunEnded]) it fixes the run's [Figures] as of the run's end,
// waits for the followed consumer groups (Options.Follow), judges the thresholds
// (Options.Thresholds) and adds all of it to the run's end as one [Outcome], computed once,
// which the observers that report the run read (play.Get: the console's summary, the report
// file); [Run.Report] is the report document a report file holds.
//
// A run with a warm-up (play.Plan.Warmup) is measured in two parts, split message by message
// by the sink (sink.Stats.Warmup, AfterWarmup): the figures, the report's latency and rate
// and the thresholds are of what came after the warm-up, and [Figures.Warmup] (the report's
// warmup section) holds the warm-up's. Thresholds ([ParseThreshold], [Thresholds]) are judged
// on the final figures by [Run.Judge], which keeps the verdicts for the report's thresholds
// section; a run that crossed one ends with a [CrossedError].
package measure
