package play

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"

	"github.com/clickgen/clickgen/generator/follow"
	"github.com/clickgen/clickgen/generator/metrics"
	"github.com/clickgen/clickgen/generator/pace"
	"github.com/clickgen/clickgen/generator/report"
	"github.com/clickgen/clickgen/generator/sink"
)

// A stress run is a plan paced by a rate shape (Pacing.ByCount): the hits of model days back
// to back, every message (malformed and redelivered ones too) released when the shape says,
// its latency measured from that intended time. A Meter measures it: the figures of each
// interval (which the command prints as a line in the style of Kafka's producer performance
// tool), the final percentiles, and the extended JSON report. It prints nothing.

// Meter turns sink snapshots into intervals, for progress lines and the report. Interval is
// called from the progress goroutine and Record from the session's recording one (when the
// report's interval differs from the line's); mu guards their state. Finish and Report are
// called after the run.
type Meter struct {
	snk    sink.Sink
	shape  pace.Pacer // the shape as asked for, without the duration cut-off
	runner *pace.Runner

	mu        sync.Mutex
	line      cursor // where the previous progress line ended
	rec       cursor // where the previous recorded interval ended, when recording
	recording bool   // the report's intervals come from Record, not from Interval
	follow    func() map[string]follow.State
	intervals []report.Interval
}

// cursor is where an interval began: the figures at the end of the previous one.
type cursor struct {
	at      time.Time
	elapsed time.Duration // runner's elapsed time
	tot     totals
	lat     metrics.Histogram
	follow  map[string]follow.State
}

// totals sums the counters of every topic.
type totals struct{ sent, acked, failed, bytes int64 }

func totalsOf(s sink.Stats) totals {
	var t totals
	for _, ts := range s.Topics {
		t.sent, t.acked, t.failed, t.bytes = t.sent+ts.Sent, t.acked+ts.Acked, t.failed+ts.Failed, t.bytes+ts.Bytes
	}
	return t
}

// NewMeter measures a run into snk paced by runner after shape (the shape as asked for,
// before any duration cut-off).
func NewMeter(snk sink.Sink, shape pace.Pacer, runner *pace.Runner) *Meter {
	now := time.Now()
	return &Meter{snk: snk, shape: shape, runner: runner, line: cursor{at: now}, rec: cursor{at: now}}
}

// Follow makes every interval carry the followed groups' figures, from states (the
// follower's [follow.Follower.States]).
func (m *Meter) Follow(states func() map[string]follow.State) {
	m.mu.Lock()
	m.follow = states
	m.line.follow, m.rec.follow = states(), states()
	m.mu.Unlock()
}

// window measures the interval from c to now and moves c to now; it returns the interval
// and the totals now. Call with mu held.
func (m *Meter) window(c *cursor) (report.Interval, totals) {
	now := time.Now()
	st := m.snk.Stats()
	cur := totalsOf(st)
	var snap pace.Snapshot
	if m.runner != nil {
		snap = m.runner.Snapshot()
	}
	// Seconds of pacing in the interval (the first one starts with the first release, not
	// with the setup before it).
	secs := (snap.Elapsed - c.elapsed).Seconds()
	if m.runner == nil {
		secs = now.Sub(c.at).Seconds()
	}
	win := st.Latency.Since(c.lat)
	mean, maxLat := win.Mean(), win.Max()
	iv := report.Interval{
		AtS:          snap.Elapsed.Seconds(),
		Records:      cur.acked - c.tot.acked,
		TargetPerS:   pace.AllowedRate(m.shape, c.elapsed, snap.Elapsed),
		AvgLatencyMS: msOf(mean),
		MaxLatencyMS: msOf(maxLat),
		P50MS:        msOf(win.Quantile(0.5)),
		P95MS:        msOf(win.Quantile(0.95)),
		P99MS:        msOf(win.Quantile(0.99)),
		Errors:       cur.failed - c.tot.failed,
		LagMS:        msOf(snap.Lag),
	}
	if secs > 0 {
		iv.PerS = float64(iv.Records) / secs
		iv.MBPerS = float64(cur.bytes-c.tot.bytes) / 1e6 / secs
	}
	var fs map[string]follow.State
	if m.follow != nil {
		fs = m.follow()
		iv.Follow = make(map[string]report.FollowInterval, len(fs))
		for g, s := range fs {
			w := s.Latency.Since(c.follow[g].Latency)
			iv.Follow[g] = report.FollowInterval{Taken: int64(w.Count()), P50MS: msOf(w.Quantile(0.5)), P99MS: msOf(w.Quantile(0.99)),
				MaxMS: msOf(w.Max()), Lag: s.Untaken}
		}
	}
	*c = cursor{at: now, elapsed: snap.Elapsed, tot: cur, lat: st.Latency, follow: fs}
	return iv, cur
}

// Interval measures the interval since its previous call, for a progress line; unless the
// meter is recording on its own period (Record), the interval goes into the report too. It
// returns the records acknowledged so far, too.
func (m *Meter) Interval() (iv report.Interval, acked int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	iv, cur := m.window(&m.line)
	if !m.recording {
		m.intervals = append(m.intervals, iv)
	}
	return iv, cur.acked
}

// Record adds the interval since its previous call to the report; once it has been called,
// Interval no longer does. Before pacing has begun it records nothing (the setup is no interval).
func (m *Meter) Record() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recording = true
	if m.runner != nil && m.runner.Snapshot().Elapsed == 0 {
		return
	}
	iv, _ := m.window(&m.rec)
	m.intervals = append(m.intervals, iv)
}

// Final is the whole run's figures: the topics' counts, the rate of the acknowledged records
// over elapsed (the paced time plus the final flush) and the latency percentiles.
type Final struct {
	Sent, Acked, Failed int64
	PerS, MBPerS        float64 // acknowledged records and their bytes per second of elapsed
	MeanMS, MaxMS       float64
	P50MS, P95MS, P99MS float64
	P999MS, ElapsedS    float64
	TargetPerS          float64 // the shape's mean over the time it was asked to pace
	Unaccounted         int64   // sent − acked − failed
}

// final measures the whole run over elapsed.
func (m *Meter) final(elapsed time.Duration, target float64) Final {
	st := m.snk.Stats()
	t := totalsOf(st)
	h := st.Latency
	secs := elapsed.Seconds()
	return Final{Sent: t.sent, Acked: t.acked, Failed: t.failed, Unaccounted: t.sent - t.acked - t.failed,
		PerS: float64(t.acked) / secs, MBPerS: float64(t.bytes) / 1e6 / secs,
		MeanMS: msOf(h.Mean()), MaxMS: msOf(h.Max()), P50MS: msOf(h.Quantile(0.5)), P95MS: msOf(h.Quantile(0.95)),
		P99MS: msOf(h.Quantile(0.99)), P999MS: msOf(h.Quantile(0.999)), ElapsedS: secs, TargetPerS: target}
}

func msOf(d time.Duration) float64 { return math.Round(float64(d)/float64(time.Microsecond)) / 1000 }

// Report builds the stress report from the sink's.
func (m *Meter) Report(r report.Report, info report.StressInfo) report.Stress {
	h := m.snk.Stats().Latency
	m.mu.Lock()
	info.Intervals = m.intervals
	m.mu.Unlock()
	if info.Intervals == nil {
		info.Intervals = []report.Interval{}
	}
	return report.Stress{
		Report: r,
		LatencyMS: report.StressLatency{
			Mean: msOf(h.Mean()), P50: msOf(h.Quantile(0.5)), P95: msOf(h.Quantile(0.95)), P99: msOf(h.Quantile(0.99)),
			P999: msOf(h.Quantile(0.999)), Max: msOf(h.Max()),
		},
		LatencyDistributionMS: h.Distribution(),
		Stress:                info,
	}
}

// Finish measures the end of a rate-paced run that started pacing at start (res.PacedFrom
// when it paced anything) and ended with res and runErr: the whole run's figures (with the
// target rate over the time the shape was asked to pace) and the report's stress section.
func (m *Meter) Finish(res Result, runErr error, start time.Time, stop Stop, maxRate pace.Rate) (fin Final, info report.StressInfo) {
	var snap pace.Snapshot
	if m.runner != nil {
		snap = m.runner.Snapshot()
	}
	if !res.PacedFrom.IsZero() {
		start = res.PacedFrom // achieved rate over the paced time, not the setup
	}
	elapsed := time.Since(start)
	// The target is the shape's mean over the time it was asked to pace.
	span := elapsed
	switch res.Stopped {
	case StopDuration:
		span = stop.Duration
	case StopMessages:
		if d, ok := m.shape.Due(uint64(res.Sent)); ok && d > 0 {
			span = d
		}
	}
	target := pace.AllowedRate(m.shape, 0, span)
	stopped := string(res.Stopped)
	switch {
	case errors.Is(runErr, context.Canceled):
		stopped = "interrupted"
	case runErr != nil:
		stopped = "failed"
	}
	info = report.StressInfo{
		Shape: pace.ShapeName(m.shape), MaxRatePerS: float64(maxRate), PacedS: elapsed.Seconds(), Released: snap.Sent,
		MaxLagMS: msOf(snap.MaxLag), FirstDay: res.FirstDay, LastDay: res.LastDay, Stopped: stopped,
	}
	return m.final(elapsed, target), info
}
