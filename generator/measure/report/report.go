// Package report is the JSON run report's schema: what a --report file holds.
//
// Every report has the keys of [Report] (topics, rate, latency_ms, interrupted and, when
// consumer groups were followed, follow; with a warm-up, warmup; with thresholds,
// thresholds). A run that is not rate-paced writes a [Run]: those keys and the units it sent. A rate-paced (stress) run writes a [Stress]: its latency_ms
// extended with the mean and p99.9, the whole latency distribution, the pacing and its
// intervals, and the units.
//
// The types are plain values with their JSON tags: generator/measure fills them, the one place
// a run's raw measurements (the sink's counters, the engine's units, the follower's groups)
// become a report, and readers (generator/measure/plot) decode them, so writer and reader share one
// definition of each key. The field order is the
// key order of the file, and a key added here must be appended where older readers ignore it
// (unknown keys are ignored by a decoder), so older and newer reports both read. This package
// imports nothing of clickgen's: the packages that fill it point down to it. A report file
// also carries the keys every command's report has (ok, error, written_at, command,
// settings: generator/fileio's ReportMeta), after these.
package report

// Report is the part every report has: the sink's counters by topic, the pacing outcome,
// the produce latency and whether the run was interrupted (generator/measure assembles it).
type Report struct {
	// Topics holds each topic's counters, by topic name.
	Topics map[string]Topic `json:"topics"`
	// Rate is the pacing outcome.
	Rate Rate `json:"rate"`
	// LatencyMS holds produce latency percentiles in milliseconds.
	LatencyMS Latency `json:"latency_ms"`
	// Interrupted says the run was stopped (Ctrl-C, deadline) before it
	// finished.
	Interrupted bool `json:"interrupted"`
	// Follow holds, by group, what following consumer groups measured (generator/measure/follow);
	// absent when no group was followed.
	Follow map[string]FollowGroup `json:"follow,omitempty"`
	// Warmup is what was measured apart in the run's warm-up (--warmup): rate, latency_ms
	// and follow's latencies are of what came after it. Absent without a warm-up.
	Warmup *Warmup `json:"warmup,omitempty"`
	// Thresholds are the run's verdicts (--threshold), in the order given (a freshness
	// threshold once per followed group); absent without thresholds.
	Thresholds []Threshold `json:"thresholds,omitempty"`
	// Store is freshness until queryable (--follow-clickhouse); absent when no table was
	// followed.
	Store *Store `json:"store,omitempty"`
}

// Warmup is a report's warmup section: the messages sent in the run's first duration_s (by
// their intended send time; an unpaced run's by the time they were handed to the producer),
// measured apart.
type Warmup struct {
	DurationS float64 `json:"duration_s"` // the warm-up asked for
	ElapsedS  float64 `json:"elapsed_s"`  // how long it lasted: duration_s, less when the run ended within it
	Acked     int64   `json:"acked"`      // acknowledged, of the warm-up's messages
	Failed    int64   `json:"failed"`     // not delivered, of the warm-up's messages
	Bytes     int64   `json:"bytes"`      // value bytes acknowledged, of the warm-up's messages
	// LatencyMS is their produce latency, as the report's latency_ms.
	LatencyMS Latency `json:"latency_ms"`
	// AfterAcked counts the acknowledged messages sent after the warm-up, which the report's
	// latency_ms and rate are of (acked + after_acked = the topics' acked); AfterS is the
	// time the rate is over.
	AfterAcked int64   `json:"after_acked"`
	AfterS     float64 `json:"after_s"`
	// Follow holds, by followed group, the warm-up's messages the group took and their
	// pipeline latency.
	Follow map[string]WarmupFollow `json:"follow,omitempty"`
}

// WarmupFollow is one followed group's part of the warmup section.
type WarmupFollow struct {
	Taken     int64       `json:"taken"`
	LatencyMS Percentiles `json:"latency_ms"`
}

// Threshold is one verdict of a threshold (--threshold) on the run: the expression, the
// group it judged (a freshness threshold; absent otherwise), the figure read and its value
// in unit ("ms" for a latency, "ratio" for rate, "messages" for failed; null when there was
// nothing to measure, then missing says why), the limit in the same unit, and whether it
// held. A threshold that is not held is crossed.
type Threshold struct {
	Expr    string   `json:"expr"`
	Group   string   `json:"group,omitempty"`
	Figure  string   `json:"figure"`
	Value   *float64 `json:"value"`
	Unit    string   `json:"unit"`
	Limit   float64  `json:"limit"`
	Held    bool     `json:"held"`
	Missing string   `json:"missing,omitempty"`
}

// Topic is one topic's line of a [Report]; the fields mean what sink.TopicStats's do.
// Partitions are keyed by partition number (JSON object keys are strings: {"0": 123}).
type Topic struct {
	Sent   int64 `json:"sent"`   // accepted by Send
	Acked  int64 `json:"acked"`  // acknowledged
	Failed int64 `json:"failed"` // never to be delivered
	// Unaccounted is Sent - Acked - Failed when the report was made:
	// messages handed to the brokers of which nothing is known. They may
	// or may not be in the topic; a complete run has none.
	Unaccounted int64           `json:"unaccounted"`
	Bytes       int64           `json:"bytes"`                 // value bytes acknowledged
	Partitions  map[int32]int64 `json:"partitions"`            // acknowledged per partition
	FailedTags  []uint32        `json:"failed_tags,omitempty"` // distinct tags of failed messages
}

// Rate is the pacing outcome.
type Rate struct {
	TargetPerS   float64 `json:"target_per_s"`   // messages/s asked for; 0 for an unpaced run
	AchievedPerS float64 `json:"achieved_per_s"` // messages acknowledged per second of the run
}

// Latency holds produce latency percentiles in milliseconds (with
// microsecond resolution), measured from each message's Due to its
// acknowledgement. Max is exact; percentiles are within 1/64 of the true
// value.
type Latency struct {
	P50 float64 `json:"p50"` // median
	P95 float64 `json:"p95"` // 95th percentile
	P99 float64 `json:"p99"` // 99th percentile
	Max float64 `json:"max"` // exact maximum
}

// Run is the report document of a run that is not rate-paced: the common keys ([Report],
// unchanged) and what was sent of each unit, so a reader (clickgen plot) can set the
// messages per day and per class beside the inventory's expectation.
type Run struct {
	Report
	Units []Unit `json:"units"`
}

// Unit is what was sent of one unit (a model day's hits or a snapshot), in the order the
// units were done. A unit cut short by a stop condition is not listed.
type Unit struct {
	Kind  string `json:"kind"` // "hits" or "snapshot"
	Day   int    `json:"day"`  // the model day (for a snapshot: the day it is the snapshot of)
	Date  string `json:"date"`
	Clean int    `json:"clean"` // clean messages: events or order rows
	// Garbage counts the malformed messages by class; never null.
	Garbage     map[string]int `json:"garbage"`
	Redelivered int            `json:"redelivered"` // byte-identical re-sends
	Sent        int64          `json:"sent"`        // messages handed to the sink
	Flushed     bool           `json:"flushed"`     // acknowledged whole before the next unit
}

// Stress is the report document of a stress (rate-paced) run: the common keys, its latency
// section extended with the mean and p99.9, and the run's pacing.
type Stress struct {
	Report
	// LatencyMS replaces the embedded report's latency_ms.
	LatencyMS StressLatency `json:"latency_ms"`
	// LatencyDistributionMS is the produce latency as [percentile, ms] pairs at
	// measure.DistributionPercentiles, for plotting the whole distribution; absent when
	// nothing was acknowledged. Beside latency_ms, whose values readers take as numbers.
	LatencyDistributionMS [][2]float64 `json:"latency_distribution_ms,omitempty"`
	Stress                StressInfo   `json:"stress"`
	// Units is what was sent of each model day, as in [Run].
	Units []Unit `json:"units"`
}

// StressLatency is a stress report's latency_ms: the produce latency's mean, percentiles
// and maximum in milliseconds, as [Latency] measures them.
type StressLatency struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99_9"`
	Max  float64 `json:"max"`
}

// StressInfo is a stress report's stress section: how the run was paced, what ended it and
// its interval lines.
type StressInfo struct {
	Shape       string     `json:"shape"`                    // the rate shape, canonical spelling
	MaxRatePerS float64    `json:"max_rate_per_s,omitempty"` // the ceiling, if any
	PacedS      float64    `json:"paced_s"`                  // from the first release to the end of the run, flush included
	SendingS    float64    `json:"sending_s"`                // from the first release to the end of the sending, what --duration bounds; 0 if not clean
	FinalFlushS float64    `json:"final_flush_s"`            // the flush of what was in flight then (paced_s is about the sum)
	Released    uint64     `json:"released"`                 // messages the pacer released
	MaxLagMS    float64    `json:"max_lag_ms"`               // the latest any message was released
	FirstDay    int        `json:"first_day"`                // the model days played
	LastDay     int        `json:"last_day"`
	Stopped     string     `json:"stopped"` // what ended the run: duration, messages, schedule, days, interrupted or failed
	Intervals   []Interval `json:"intervals"`
}

// Interval is one interval line of a stress run, as the report keeps it.
type Interval struct {
	AtS          float64 `json:"at_s"`           // end of the interval, seconds since pacing started
	Records      int64   `json:"records"`        // acknowledged in the interval
	PerS         float64 `json:"per_s"`          // acknowledged per second
	TargetPerS   float64 `json:"target_per_s"`   // what the shape asked for in the interval, per second
	MBPerS       float64 `json:"mb_per_s"`       // value megabytes (10^6) acknowledged per second
	AvgLatencyMS float64 `json:"avg_latency_ms"` // mean latency of the interval's acknowledgements
	MaxLatencyMS float64 `json:"max_latency_ms"` // their maximum
	// P50MS, P95MS and P99MS are the interval's latency percentiles (from each message's
	// intended send time to its acknowledgement), from the histogram's window since the
	// previous line: within 1/64 of the true value.
	P50MS  float64 `json:"p50_ms"`
	P95MS  float64 `json:"p95_ms"`
	P99MS  float64 `json:"p99_ms"`
	Errors int64   `json:"errors"` // messages failed in the interval
	LagMS  float64 `json:"lag_ms"` // how late the last released message was, at the interval's end
	// Follow is, per followed consumer group, the pipeline latency of the messages the group
	// took in the interval and its lag at the interval's end.
	Follow map[string]FollowInterval `json:"follow,omitempty"`
}

// FollowInterval is one followed group's part of an interval (generator/measure/follow): the
// percentiles of the pipeline latencies recorded in the interval (within 1/64; max at bucket
// resolution unless it is a new overall maximum) and the messages acknowledged but not yet
// taken at its end.
type FollowInterval struct {
	Taken int64   `json:"taken"`
	P50MS float64 `json:"p50_ms"`
	P99MS float64 `json:"p99_ms"`
	MaxMS float64 `json:"max_ms"`
	Lag   int64   `json:"lag_messages"`
}

// FollowGroup is one followed group's part of the report (follow.<group>), as
// generator/measure/follow measures it at the end of the run.
type FollowGroup struct {
	// LatencyMS are the pipeline latency percentiles of the messages taken, in milliseconds.
	LatencyMS Percentiles `json:"latency_ms"`
	// LatencyDistributionMS is the same as [percentile, ms] pairs at
	// measure.DistributionPercentiles, for plotting the whole distribution; absent when
	// nothing was taken.
	LatencyDistributionMS [][2]float64 `json:"latency_distribution_ms,omitempty"`
	// Taken counts the run's messages the group's commit passed.
	Taken int64 `json:"taken"`
	// DrainedS is how long after the run's last acknowledgement (the end of the flush) the
	// group had taken everything; null when it did not within the timeout.
	DrainedS *float64 `json:"drained_s"`
	// Untaken counts, per partition ("topic/partition"), the messages not taken at the end.
	Untaken map[string]int64 `json:"untaken,omitempty"`
	// NotRead lists the run's topics the group committed nothing on while it committed on
	// others: they do not count toward draining.
	NotRead []string `json:"not_read,omitempty"`
	// Lag samples the untaken messages per partition over the run.
	Lag []LagSample `json:"lag"`
	// MeasuredFrom says what latency is measured from: "intended send time" (paced runs) or
	// "handed to producer" (unpaced runs).
	MeasuredFrom string `json:"measured_from"`
	// Reordered counts acknowledgements that came below a later offset of their partition
	// (kept in offset order all the same); Late those the group had already committed past.
	Reordered int64 `json:"reordered_acks"`
	Late      int64 `json:"acked_after_taken"`
	// PeakStateBytes is the most memory the group's untaken messages took at a poll: 24 bytes
	// a run of consecutive offsets sent within follow.Resolution.
	PeakStateBytes int64  `json:"peak_state_bytes"`
	Polls          int    `json:"polls"`
	PollErrors     int    `json:"poll_errors"`
	LastPollError  string `json:"last_poll_error,omitempty"`
}

// Percentiles of pipeline latency in milliseconds (microsecond resolution, within 1/64 of the
// true value; max exact).
type Percentiles struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p99_9"`
	Max  float64 `json:"max"`
}

// LagSample is the untaken messages per partition ("topic/partition") at T seconds after
// the follower started.
type LagSample struct {
	T          float64          `json:"t_s"`
	Partitions map[string]int64 `json:"partitions"`
}
