package measure

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/measure/follow"
	"github.com/clickgen/clickgen/generator/measure/latency"
	"github.com/clickgen/clickgen/generator/measure/report"
	"github.com/clickgen/clickgen/generator/measure/storefollow"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// Options configure a [Run]. The zero value measures a run with no report intervals of their
// own and no target rate but a rate shape's.
type Options struct {
	// RecordEvery, when positive and not LineEvery, makes a rate-paced run record the
	// report's intervals every RecordEvery on a goroutine of the Run's own ([ReportEvery]
	// chooses it); otherwise the report's intervals are those of [Run.Interval], one per
	// progress line (every LineEvery).
	RecordEvery, LineEvery time.Duration
	// MaxRate is the ceiling a rate-paced run had on top of its shape, which its report names
	// (0: none).
	MaxRate pace.Rate
	// Target, if set, is read at the end of a run that is not rate-paced: the rate the run
	// aimed at, for the report (live: a model day's events over the day's real duration). A
	// rate-paced run's target is its shape's.
	Target func() float64
	// Follow, if set, is the follower of consumer groups the run is measured with: every
	// interval carries its groups' figures ([Run.FollowIntervals]) and, at the end, the Run
	// waits for the groups to take what the run sent and adds what it measured ([Run.Follow]).
	// The caller starts the follower and feeds it the run's acknowledgements.
	Follow *follow.Follower
	// Thresholds are judged at the end on the final figures ([Run.Judge]).
	Thresholds Thresholds
}

// ReportEvery is the period of a rate-paced run's report intervals for a run planned to last
// duration (0: not known) whose progress lines come every lineEvery: a sixtieth of the
// duration in whole seconds, between 1 s and 5 s, never longer than lineEvery; lineEvery
// when the duration is not known. A 15-second run gets 15 intervals, a 2-minute one 60.
func ReportEvery(duration, lineEvery time.Duration) time.Duration {
	if duration <= 0 {
		return lineEvery
	}
	d := min(max((duration/60).Truncate(time.Second), time.Second), 5*time.Second)
	return min(d, lineEvery)
}

// Figures are a run's final figures: what the console's last lines print and what an
// observer judges the run by at its end (thresholds: [Thresholds.Judge]). The counts are the
// sink's after the final flush, of the whole run. With a warm-up (play.Plan.Warmup) the
// rates, the latency and the freshness are of what came after it, and Warmup holds the
// warm-up's own figures: its messages are measured apart, not thrown away.
type Figures struct {
	Sent, Acked, Failed int64
	Unaccounted         int64 // sent − acked − failed: neither acknowledged nor failed
	Bytes               int64 // value bytes acknowledged
	// Elapsed is the run's time: from its start (a rate-paced run: from its first message's
	// intended time) to its end, the final flush included.
	Elapsed time.Duration
	// RateElapsed is the time the rates are over: Elapsed, or with a warm-up the time from
	// its end to the run's end (0 when the run ended within it).
	RateElapsed time.Duration
	// Sending and FinalFlush split a rate-paced run's Elapsed: from its first message's
	// intended time until it stopped sending (what a duration bounds), and the flush of what
	// was in flight then. Both are 0 for other runs, and for one that did not end cleanly.
	Sending, FinalFlush time.Duration
	// AchievedPerS is the acknowledged messages (after the warm-up) per second of
	// RateElapsed, MBPerS their value megabytes (10^6).
	AchievedPerS, MBPerS float64
	// TargetPerS is the rate asked for over the same time: a rate shape's mean over the time
	// it was asked to pace (after the warm-up), Options.Target's, or 0 for an unpaced run.
	TargetPerS float64
	// Latency is the produce latency, from each message's intended send time (unpaced: the
	// time it was handed to the sink) to its acknowledgement, of the messages sent after the
	// warm-up (all of them without one).
	Latency Percentiles
	// Interrupted says the run was cancelled (a signal).
	Interrupted bool
	// Freshness is, per followed consumer group, the pipeline latency of what it took (after
	// the warm-up); set once following has ended ([Run.Follow]), so an observer after the
	// follower's reads it.
	Freshness map[string]Percentiles
	// Histograms are the distributions Latency and Freshness are of, for a threshold's
	// percentile that Percentiles does not hold (p75, p99.99).
	Histograms Histograms
	// Warmup is what was measured apart in the run's warm-up; nil without one.
	Warmup *Warmup
	// Store is what following a table measured ([Run.Store]); nil when none was followed.
	Store *StoreFigures
}

// Histograms are the distributions a run's latency figures are of.
type Histograms struct {
	Latency   latency.Histogram
	Freshness map[string]latency.Histogram
}

// Warmup is what a run measured apart in its warm-up (play.Plan.Warmup): the messages it sent
// in it, by their intended send time (by hand-over, unpaced).
type Warmup struct {
	// Duration is the warm-up asked for; Elapsed how much of the run it lasted: Duration, or
	// less when the run ended within it.
	Duration, Elapsed time.Duration
	// Acked, Failed and Bytes count the warm-up's messages over all topics, as the figures
	// count the run's; the run's acknowledged messages are Acked plus those its latency is of.
	Acked, Failed, Bytes int64
	// Latency is their produce latency; Freshness, per followed group, the pipeline latency
	// of those the group took.
	Latency   Percentiles
	Freshness map[string]Percentiles
}

// Run measures one run: it is its play.Observer, and the one place the run's raw
// measurements become figures and its report. Its methods are safe for concurrent use.
type Run struct {
	opt Options

	mu    sync.Mutex
	start time.Time
	stats func() sink.Stats
	units []report.Unit
	// A rate-paced run's meter: nil shape otherwise.
	shape  pace.Pacer // the shape as asked for, without the duration cut-off
	runner *pace.Runner
	stop   play.Stop
	meter  meter
	warmup time.Duration // the plan's warm-up
	// At the end.
	ended   bool
	fig     Figures // without the followed groups', which follow and fresh hold
	final   sink.Stats
	info    report.StressInfo
	follow  map[string]report.FollowGroup
	fresh   map[string][2]latency.Histogram // per group: after the warm-up, in it
	judged  []Verdict
	recDone chan struct{}  // closed to stop the recording goroutine
	recWG   sync.WaitGroup // the recording goroutine

	// What following a table measured ([Run.Store]).
	store        *StoreFigures
	storeSection *report.Store
}

// New returns a Run measuring with opt.
func New(opt Options) *Run {
	m := &Run{opt: opt}
	if f := opt.Follow; f != nil {
		m.meter.follow = f.States
	}
	return m
}

// RunStarted starts measuring: the sink's counters are read from s.Stats, and a plan paced by
// a rate shape is metered (its intervals, recorded on their own period with RecordEvery).
func (m *Run) RunStarted(s play.Start) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.start, m.stats, m.warmup = s.At, s.Stats, s.Plan.Warmup
	if p := s.Plan.Pacing; p.ByCount {
		m.shape, m.runner, m.stop = p.Shape, p.Runner, s.Plan.Stop
		m.meter.start(s.At)
		if d := m.opt.RecordEvery; d > 0 && d != m.opt.LineEvery {
			m.meter.recording = true
			m.recordEvery(d)
		}
	}
}

// UnitDone keeps the unit's line of the report.
func (m *Run) UnitDone(r play.UnitResult) {
	m.mu.Lock()
	m.units = append(m.units, unitLine(r))
	m.mu.Unlock()
}

// RunEnded ends the measurement: the run's figures from the sink's final counters, the
// result and the pacing, as of the run's end (e.At); then, with Options.Follow, the wait for
// the groups to take everything (announced through e, a signal ending it) and what they
// measured; then what following a table measured, once its follower added it
// (storefollow.Result, awaited: play.Await); then the thresholds, judged. It adds what it measured to e as an [Outcome] for
// the observers that report it. It fails the run when a group did not drain, and, when the
// run otherwise completed, with a *[CrossedError] when a threshold was crossed.
func (m *Run) RunEnded(ctx context.Context, e *play.End) error {
	m.end(e)
	var errs []error
	var followed *follow.Result
	if f := m.opt.Follow; f != nil {
		res := f.Finish(ctx, e.Interrupted, func(behind []string, max time.Duration) {
			// A sentence: the observer that says it names the follow timeout its way.
			e.Wait("waiting for consumer group(s) "+field.Escape(strings.Join(behind, ", "))+" to take everything the run sent ({Timeout|the follow timeout})", max)
		})
		m.Follow(res)
		followed = &res
		errs = append(errs, followError(res, e))
	}
	// A followed table's follower (storefollow's observer) adds what it measured at the end
	// of its own wait: awaited, whatever the order of the observers.
	if res, ok := play.Await[storefollow.Result](e); ok {
		m.Store(res)
	}
	var verdicts []Verdict
	if l := m.opt.Thresholds; len(l) > 0 {
		verdicts = m.Judge(l)
		if crossed := Crossed(verdicts); len(crossed) > 0 && e.Err == nil {
			errs = append(errs, &CrossedError{Verdicts: crossed})
		}
	}
	e.Add(Outcome{Figures: m.Figures(), RateRun: m.RateRun(), Follow: followed, Verdicts: verdicts, Report: m.Report()})
	return errors.Join(errs...)
}

// followError is the failure of a run whose groups did not take everything (res), or whose
// wait for them a signal ended although the run itself was whole; nil otherwise.
func followError(res follow.Result, e *play.End) error {
	var nd *follow.NotDrainedError
	switch err := res.Err(); {
	case errors.As(err, &nd):
		return field.Sentence("follow: %s did not take everything the run sent within {Timeout|the follow timeout} %v", strings.Join(nd.Groups, ", "), nd.Timeout)
	case err != nil:
		return err
	case res.Interrupted && !e.Interrupted:
		// The run was whole; a signal ended the wait for the groups: an interrupted run.
		return fmt.Errorf("follow: the wait for the groups to take everything was interrupted after %.2fs: %w", res.Waited.Seconds(), context.Canceled)
	}
	return nil
}

// Outcome is what a [Run] measured, as it adds it to the run's end (play.End.Add) for the
// observers that report the run (play.Get[measure.Outcome]): the final figures, the groups
// followed, the verdicts and the report document. It is computed once, by the Run.
type Outcome struct {
	// Figures are the run's final figures, the followed groups' freshness included.
	Figures Figures
	// RateRun says the run was paced by a rate shape ([Run.RateRun]).
	RateRun bool
	// Follow is what following the consumer groups measured; nil without following.
	Follow *follow.Result
	// Verdicts are the thresholds judged, in their order; nil without thresholds.
	Verdicts []Verdict
	// Report is the report document ([Run.Report]).
	Report any
}

// end fixes the run's figures as of its end.
func (m *Run) end(e *play.End) {
	m.stopRecording()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ended = true
	m.final = e.Stats
	start := m.start
	if m.shape != nil && !e.Result.PacedFrom.IsZero() {
		start = e.Result.PacedFrom // a rate is achieved over the paced time, not the setup
	}
	end := e.At
	if end.IsZero() {
		end = time.Now()
	}
	elapsed := end.Sub(start)
	var w *Warmup
	rateFrom := start // where the rates' time begins: the warm-up's end, with one
	if m.warmup > 0 {
		w, rateFrom = warmupOf(e.Stats, m.warmup, e.Result.WarmupUntil, end)
	}
	var target float64
	if m.shape != nil {
		target = m.endStress(e, elapsed, rateFrom.Sub(start))
	} else if m.opt.Target != nil {
		target = m.opt.Target()
	}
	fresh := m.fig.Freshness // following may have ended first
	m.fig = figuresOf(e.Stats, elapsed, max(end.Sub(rateFrom), 0), target, e.Interrupted, w)
	m.fig.Freshness = fresh
	if m.shape != nil && !e.Result.SendingEnded.IsZero() {
		m.fig.Sending, m.fig.FinalFlush = e.Result.SendingEnded.Sub(start), e.Result.FinalFlush
		m.info.SendingS, m.info.FinalFlushS = m.fig.Sending.Seconds(), m.fig.FinalFlush.Seconds()
	}
}

// warmupOf is the warm-up of a run that asked for d, ended at end, and whose sink ended with
// s: its figures, and where the time after it begins. A warm-up that never began (nothing was
// sent) lasted nothing; one the run ended within leaves no time after it.
func warmupOf(s sink.Stats, d time.Duration, until, end time.Time) (*Warmup, time.Time) {
	w := &Warmup{Duration: d, Acked: s.Warmup.Acked, Failed: s.Warmup.Failed, Bytes: s.Warmup.Bytes, Latency: PercentilesOf(s.Warmup.Latency)}
	if until.IsZero() {
		return w, end
	}
	w.Elapsed = d - max(until.Sub(end), 0)
	return w, until
}

// endStress fixes a rate-paced run's stress section and returns its target rate: the shape's
// mean over the time it was asked to pace, from the time from on (the warm-up's end, after
// the start of pacing). Call with mu held.
func (m *Run) endStress(e *play.End, elapsed, from time.Duration) float64 {
	var snap pace.Snapshot
	if m.runner != nil {
		snap = m.runner.Snapshot()
	}
	span := elapsed
	switch e.Result.Stopped {
	case play.StopDuration:
		span = m.stop.Duration
	case play.StopMessages:
		if d, ok := m.shape.Due(uint64(e.Result.Sent)); ok && d > 0 {
			span = d
		}
	}
	stopped := string(e.Result.Stopped)
	switch {
	case errors.Is(e.Err, context.Canceled):
		stopped = "interrupted"
	case e.Err != nil:
		stopped = "failed"
	}
	m.info = report.StressInfo{Shape: pace.ShapeName(m.shape), MaxRatePerS: float64(m.opt.MaxRate), PacedS: elapsed.Seconds(),
		Released: snap.Sent, MaxLagMS: Millis(snap.MaxLag), FirstDay: e.Result.FirstDay, LastDay: e.Result.LastDay, Stopped: stopped}
	return pace.AllowedRate(m.shape, from, span)
}

// figuresOf is the figures of a run whose sink ended with s after elapsed, its rates over
// rateElapsed, with its warm-up w (nil: none).
func figuresOf(s sink.Stats, elapsed, rateElapsed time.Duration, target float64, interrupted bool, w *Warmup) Figures {
	lat := s.Measured()
	f := Figures{Elapsed: elapsed, RateElapsed: rateElapsed, TargetPerS: target, Latency: PercentilesOf(lat),
		Histograms: Histograms{Latency: lat}, Interrupted: interrupted, Warmup: w}
	for _, t := range s.Topics {
		f.Sent, f.Acked, f.Failed, f.Bytes = f.Sent+t.Sent, f.Acked+t.Acked, f.Failed+t.Failed, f.Bytes+t.Bytes
	}
	f.Unaccounted = f.Sent - f.Acked - f.Failed
	acked, bytes := f.Acked, f.Bytes
	if w != nil {
		acked, bytes = acked-w.Acked, bytes-w.Bytes
	}
	if secs := rateElapsed.Seconds(); secs > 0 {
		f.AchievedPerS, f.MBPerS = float64(acked)/secs, float64(bytes)/1e6/secs
	}
	return f
}

// Figures are the run's final figures, with the freshness of the groups followed so far;
// zero before [Run.RunEnded].
func (m *Run) Figures() Figures {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.figures()
}

// figures are the run's figures with the followed groups'. Call with mu held.
func (m *Run) figures() Figures {
	f := m.fig
	f.Store = m.store
	if m.fresh == nil {
		return f
	}
	f.Freshness = make(map[string]Percentiles, len(m.fresh))
	f.Histograms.Freshness = make(map[string]latency.Histogram, len(m.fresh))
	var warm map[string]Percentiles
	if f.Warmup != nil {
		w := *f.Warmup
		w.Freshness = make(map[string]Percentiles, len(m.fresh))
		f.Warmup, warm = &w, w.Freshness
	}
	for g, h := range m.fresh {
		f.Freshness[g], f.Histograms.Freshness[g] = PercentilesOf(h[0]), h[0]
		if warm != nil {
			warm[g] = PercentilesOf(h[1])
		}
	}
	return f
}

// Judge judges the thresholds l on the run's final figures ([Thresholds.Judge]) and keeps the
// verdicts for the report's thresholds section; call it after [Run.RunEnded] and the
// follower's [Run.Follow], if any. It returns the verdicts, in l's order.
func (m *Run) Judge(l Thresholds) []Verdict {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.judged = l.Judge(m.figures())
	return slices.Clone(m.judged)
}

// RateRun says whether the run is paced by a rate shape: it has a stress report and lines.
func (m *Run) RateRun() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.shape != nil
}

// Follow adds what following consumer groups measured (follow.Follower.Finish) to the run:
// the report's follow section, and each group's freshness among the figures (after the
// warm-up, and the warm-up's apart).
func (m *Run) Follow(r follow.Result) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.follow = make(map[string]report.FollowGroup, len(r.Groups))
	m.fresh = make(map[string][2]latency.Histogram, len(r.Groups))
	for _, g := range r.Groups {
		m.follow[g.Name] = followGroup(g, r.MeasuredFrom)
		m.fresh[g.Name] = [2]latency.Histogram{g.Latency, g.Warmup}
	}
}

// followGroup is g's part of the report's follow section: what it took in all, and the
// pipeline latency of what it took after the warm-up.
func followGroup(g follow.Group, from string) report.FollowGroup {
	r := report.FollowGroup{LatencyMS: PercentilesOf(g.Latency).pipeline(), LatencyDistributionMS: Distribution(g.Latency),
		Taken: int64(g.Latency.Count() + g.Warmup.Count()), Untaken: g.Untaken, NotRead: g.NotRead, MeasuredFrom: from, Reordered: g.Reordered, Late: g.Late,
		PeakStateBytes: g.PeakStateBytes, Polls: g.Polls, PollErrors: g.PollErrors, LastPollError: g.LastPollError,
		Lag: make([]report.LagSample, len(g.Lag))}
	if g.Drained {
		s := g.DrainedAfter.Seconds()
		r.DrainedS = &s
	}
	for i, s := range g.Lag {
		r.Lag[i] = report.LagSample{T: s.At.Seconds(), Partitions: s.Partitions}
	}
	return r
}

// Report is the run's report document, as a report file holds it: a [report.Stress] for a
// rate-paced run, a [report.Run] otherwise. Call it after [Run.RunEnded] (and after the
// follower's [Run.Follow], if any): it reads the final counters.
func (m *Run) Report() any {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.figures()
	rep := report.Report{Topics: topicsOf(m.final), Rate: report.Rate{TargetPerS: f.TargetPerS, AchievedPerS: f.AchievedPerS},
		LatencyMS: f.Latency.latency(), Interrupted: f.Interrupted, Follow: m.follow, Warmup: f.warmupSection(), Store: m.storeSection}
	for _, v := range m.judged {
		rep.Thresholds = append(rep.Thresholds, v.row())
	}
	units := append([]report.Unit{}, m.units...) // never null: "units": []
	if m.shape == nil {
		return report.Run{Report: rep, Units: units}
	}
	info := m.info
	info.Intervals = append([]report.Interval{}, m.meter.intervals...)
	return report.Stress{Report: rep, LatencyMS: f.Latency.stress(), LatencyDistributionMS: Distribution(m.final.Measured()),
		Stress: info, Units: units}
}

// warmupSection is the report's warmup section of f; nil without a warm-up.
func (f Figures) warmupSection() *report.Warmup {
	w := f.Warmup
	if w == nil {
		return nil
	}
	r := &report.Warmup{DurationS: w.Duration.Seconds(), ElapsedS: w.Elapsed.Seconds(), Acked: w.Acked, Failed: w.Failed, Bytes: w.Bytes,
		LatencyMS: w.Latency.latency(), AfterAcked: f.Acked - w.Acked, AfterS: f.RateElapsed.Seconds()}
	if len(w.Freshness) > 0 {
		r.Follow = make(map[string]report.WarmupFollow, len(w.Freshness))
		for g, p := range w.Freshness {
			r.Follow[g] = report.WarmupFollow{Taken: int64(p.Count), LatencyMS: p.pipeline()}
		}
	}
	return r
}

// topicsOf is the report's topics: each topic's counters, partitions never null.
func topicsOf(s sink.Stats) map[string]report.Topic {
	out := make(map[string]report.Topic, len(s.Topics))
	for name, t := range s.Topics {
		parts := maps.Clone(t.Partitions)
		if parts == nil {
			parts = map[int32]int64{}
		}
		out[name] = report.Topic{Sent: t.Sent, Acked: t.Acked, Failed: t.Failed, Unaccounted: t.Sent - t.Acked - t.Failed,
			Bytes: t.Bytes, Partitions: parts, FailedTags: slices.Clone(t.FailedTags)}
	}
	return out
}

// unitLine is the report's line of unit r: its clean messages, its garbage by class (never
// null), its re-sends, what was sent and whether it was flushed.
func unitLine(r play.UnitResult) report.Unit {
	kind := "hits"
	if r.Kind == play.SnapshotUnit {
		kind = "snapshot"
	}
	g := maps.Clone(r.Garbage)
	if g == nil {
		g = map[string]int{}
	}
	return report.Unit{Kind: kind, Day: r.Day, Date: world.DayDate(r.Day).String(), Clean: r.Clean, Garbage: g,
		Redelivered: r.Redelivered(), Sent: r.Sent, Flushed: r.Flushed}
}
