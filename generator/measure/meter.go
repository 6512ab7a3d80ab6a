package measure

import (
	"time"

	"github.com/clickgen/clickgen/generator/measure/follow"
	"github.com/clickgen/clickgen/generator/measure/latency"
	"github.com/clickgen/clickgen/generator/measure/report"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// A stress run is a plan paced by a rate shape (Pacing.ByCount): the hits of model days back
// to back, every message (malformed and redelivered ones too) released when the shape says,
// its latency measured from that intended time. Its meter gives the figures of each interval
// (which the command prints as a line in the style of Kafka's producer performance tool, and
// the report keeps) from the sink's counters and histogram and the pacer's snapshot.

// meter is a rate-paced run's intervals; the Run's mu guards it.
type meter struct {
	line      cursor // where the previous progress line ended
	rec       cursor // where the previous recorded interval ended, when recording
	recording bool   // the report's intervals come from record, not from the lines
	follow    func() map[string]follow.State
	intervals []report.Interval
}

// cursor is where an interval began: the figures at the end of the previous one.
type cursor struct {
	at      time.Time
	elapsed time.Duration // the runner's elapsed time
	tot     totals
	lat     latency.Histogram
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

// start begins the first intervals at now.
func (mt *meter) start(now time.Time) {
	mt.line.at, mt.rec.at = now, now
	if mt.follow != nil {
		mt.line.follow, mt.rec.follow = mt.follow(), mt.follow()
	}
}

// FollowIntervals makes every interval of a rate-paced run carry the followed groups'
// figures, from states (the follower's [follow.Follower.States]). Call it before the run
// starts.
func (m *Run) FollowIntervals(states func() map[string]follow.State) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.meter.follow = states
}

// window measures the interval from c to now and moves c to now; it returns the interval
// and the totals now. Call with mu held.
func (m *Run) window(c *cursor) (report.Interval, totals) {
	mt := &m.meter
	now := time.Now()
	st := m.stats()
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
	win := PercentilesOf(st.Latency.Since(c.lat))
	iv := report.Interval{
		AtS:          snap.Elapsed.Seconds(),
		Records:      cur.acked - c.tot.acked,
		TargetPerS:   pace.AllowedRate(m.shape, c.elapsed, snap.Elapsed),
		AvgLatencyMS: Millis(win.Mean),
		MaxLatencyMS: Millis(win.Max),
		P50MS:        Millis(win.P50),
		P95MS:        Millis(win.P95),
		P99MS:        Millis(win.P99),
		Errors:       cur.failed - c.tot.failed,
		LagMS:        Millis(snap.Lag),
	}
	if secs > 0 {
		iv.PerS = float64(iv.Records) / secs
		iv.MBPerS = float64(cur.bytes-c.tot.bytes) / 1e6 / secs
	}
	var fs map[string]follow.State
	if mt.follow != nil {
		fs = mt.follow()
		iv.Follow = make(map[string]report.FollowInterval, len(fs))
		for g, s := range fs {
			w := PercentilesOf(s.Latency.Since(c.follow[g].Latency))
			iv.Follow[g] = report.FollowInterval{Taken: int64(w.Count), P50MS: Millis(w.P50), P99MS: Millis(w.P99), MaxMS: Millis(w.Max), Lag: s.Untaken}
		}
	}
	*c = cursor{at: now, elapsed: snap.Elapsed, tot: cur, lat: st.Latency, follow: fs}
	return iv, cur
}

// Interval measures a rate-paced run's interval since its previous call, for a progress line,
// and returns the records acknowledged so far too. Unless the run records its report's
// intervals on their own period (Options.RecordEvery), the interval goes into the report, up
// to the run's end. Call it only between the run's start and its end.
func (m *Run) Interval() (iv report.Interval, acked int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	iv, cur := m.window(&m.meter.line)
	if !m.meter.recording && !m.ended {
		m.meter.intervals = append(m.meter.intervals, iv)
	}
	return iv, cur.acked
}

// record adds the interval since its previous call to the report. Before pacing has begun it
// records nothing (the setup is no interval).
func (m *Run) record() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ended || m.runner != nil && m.runner.Snapshot().Elapsed == 0 {
		return
	}
	iv, _ := m.window(&m.meter.rec)
	m.meter.intervals = append(m.meter.intervals, iv)
}

// recordEvery records the report's intervals every d until the run ends. Call with mu held.
func (m *Run) recordEvery(d time.Duration) {
	done := make(chan struct{})
	m.recDone = done
	m.recWG.Add(1)
	go func() {
		defer m.recWG.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				m.record()
			}
		}
	}()
}

// stopRecording ends the recording goroutine, if any.
func (m *Run) stopRecording() {
	m.mu.Lock()
	done := m.recDone
	m.recDone = nil
	m.mu.Unlock()
	if done != nil {
		close(done)
		m.recWG.Wait()
	}
}
