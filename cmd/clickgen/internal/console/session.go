package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/reportfile"
	"github.com/clickgen/clickgen/generator/follow"
	"github.com/clickgen/clickgen/generator/pace"
	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/report"
	"github.com/clickgen/clickgen/generator/sink"
)

// Finisher is what a [Session] tells at the end of a run (a follower of consumer groups):
// Finish may wait, prints on w, and returns its part of the report (report.Report.Follow).
type Finisher interface {
	Finish(w io.Writer, interrupted bool) (map[string]report.FollowGroup, error)
}

// Session plays into one sink and ends the run the way the command line does. Its run is
// heard by a [Printer] (progress and per-unit lines on w) and by a [play.Collector] (the
// report's per-unit lines), two observers side by side; it flushes with its own timeout, and
// [Session.Finish] keeps the shutdown order: flush what is queued, stop the progress, print
// the summary, write the report, close the sink.
type Session struct {
	*Printer
	// Sink is what the session plays into; Finish closes it.
	Sink sink.Sink
	// FlushTimeout bounds every flush: each unit's, and the last one after a failure or an
	// interrupt.
	FlushTimeout time.Duration
	// Start is when the run began, for the summary and the report; a rate-paced run moves it
	// to when pacing began.
	Start time.Time
	// Target is the target rate for the report, 0 for unpaced runs.
	Target float64
	// Extend, if set, turns the report into the document the report file holds (a stress
	// run's [report.Stress]).
	Extend func(report.Report) any
	// Settle, if set, is called once everything queued was flushed, before the summary: a
	// stress run measures its end there, so its line and the topic summary agree.
	Settle func()

	// Follow, if set, is told the run has ended once the summary is printed: it prints its
	// own lines on the session's writer, and what it returns is the report's "follow", its
	// error the run's (generator/follow).
	Follow Finisher

	w       io.Writer
	units   play.Collector // the report's line of every unit done
	meter   *play.Meter    // a rate-paced run's (NewRateSession), nil otherwise
	recDone chan struct{}  // closed to stop RecordEvery's goroutine
	recWG   sync.WaitGroup // RecordEvery's goroutine
	maxRate pace.Rate      // the rate-paced run's ceiling, for its final line
}

// MinProgressEvery is the shortest period of progress lines a command accepts (--interval,
// live's --progress-every): --interval 1ns printed 135 655 lines in 2 s.
const MinProgressEvery = 100 * time.Millisecond

// NewSession starts a session on snk printing on w, whose units are flushed within
// flushTimeout; total, lineEvery and line are the [Printer]'s (NewPrinter).
func NewSession(w io.Writer, snk sink.Sink, flushTimeout time.Duration, total int, lineEvery time.Duration, line func() string) *Session {
	return &Session{Printer: NewPrinter(w, snk, total, lineEvery, line), Sink: snk, FlushTimeout: flushTimeout, Start: time.Now(), w: w}
}

// NewRateSession starts a session for a rate-paced plan (Pacing.ByCount) on snk, printing
// on w, with a [play.Meter] of the plan's shape and runner: the meter's line is the progress every
// lineEvery, and once the run has been flushed (Settle) its final line is printed, the achieved
// rate is measured from when pacing began and the report becomes the meter's [report.Stress].
// maxRate is the run's ceiling on top of the shape, which the report names (0: none).
func NewRateSession(w io.Writer, snk sink.Sink, flushTimeout time.Duration, plan play.Plan, lineEvery time.Duration, maxRate pace.Rate) *Session {
	// Built before the progress goroutine starts, which reads it.
	m := play.NewMeter(snk, plan.Pacing.Shape, plan.Pacing.Runner)
	s := NewSession(w, snk, flushTimeout, 0, lineEvery, func() string { return stressLine(m.Interval()) })
	s.meter, s.maxRate = m, maxRate
	return s
}

// RecordEvery makes a rate-paced session record the report's intervals every d instead of at
// each progress line (whose period stays as it was): a short run gets finer intervals than
// its console lines ([ReportEvery]). It does nothing on other sessions or when d is the
// line's period. Call it before Play.
func (s *Session) RecordEvery(d, lineEvery time.Duration) {
	if s.meter == nil || d <= 0 || d == lineEvery || s.recDone != nil {
		return
	}
	s.meter.Record() // from now on the line's intervals are not the report's
	s.recDone = make(chan struct{})
	s.recWG.Add(1)
	go func() {
		defer s.recWG.Done()
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-s.recDone:
				return
			case <-t.C:
				s.meter.Record()
			}
		}
	}()
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

// FollowIntervals makes a rate-paced session's intervals carry the followed groups' latency and lag,
// from states (follow.Follower.States); nothing on other sessions.
func (s *Session) FollowIntervals(states func() map[string]follow.State) {
	if s.meter != nil && states != nil {
		s.meter.Follow(states)
	}
}

// Play runs plan into the session's sink with the session's flush timeout; the printer, the
// report's collector and obs (nil ones are skipped) hear what happens.
func (s *Session) Play(ctx context.Context, plan play.Plan, obs ...play.Observer) (play.Result, error) {
	plan.FlushTimeout = s.FlushTimeout
	res, err := play.Run(ctx, plan, s.Sink, play.Observers(append([]play.Observer{s.Printer, &s.units}, obs...)...))
	if s.meter != nil {
		s.Settle = func() { s.settleRate(plan.Stop, res, err) }
	}
	return res, err
}

// settleRate prints a rate-paced run's final line and prepares its report.
func (s *Session) settleRate(stop play.Stop, res play.Result, runErr error) {
	fin, info := s.meter.Finish(res, runErr, s.Start, stop, s.maxRate)
	s.Target = fin.TargetPerS
	if !res.PacedFrom.IsZero() {
		s.Start = res.PacedFrom // the achieved rate is over the paced time, not the setup
	}
	s.Logf("%s", stressTotal(fin))
	s.Extend = func(r report.Report) any { return s.meter.Report(r, info) }
}

// flush waits for every message sent so far, with its own timeout: an interrupted run still
// gets the chance to deliver what it queued.
func (s *Session) flush() error {
	ctx, cancel := context.WithTimeout(context.Background(), s.FlushTimeout)
	defer cancel()
	return s.Sink.Flush(ctx)
}

// Finish ends the run: on interrupt or failure it flushes what is queued, then prints the
// summary, writes the report to reportPath (if set) and closes the sink. It returns runErr,
// explained: an interrupted run says the summary is exact, and a report or close failure is
// added.
func (s *Session) Finish(runErr error, reportPath string) error {
	interrupted := errors.Is(runErr, context.Canceled)
	if runErr != nil && !errors.Is(runErr, sink.ErrIncomplete) { // a timed-out wait is not repeated
		if ferr := s.flush(); ferr != nil && !interrupted {
			var ie *play.IncompleteError
			var first, later *sink.DeliveryError
			if errors.As(runErr, &ie) && errors.As(ie.Err, &first) && errors.As(ferr, &later) {
				// The flush's count includes the failures the unit's error counted and those
				// that came after: one error with the summary's count, not two lines that
				// disagree (1008 and 10001 not delivered).
				ie.Err = later
			} else {
				runErr = errors.Join(runErr, ferr)
			}
		}
	}
	s.Stop()
	if s.recDone != nil {
		close(s.recDone)
		s.recWG.Wait()
		s.recDone = nil
	}
	if s.Settle != nil {
		s.Settle()
	}
	stats := s.Sink.Stats()
	elapsed := time.Since(s.Start)
	fmt.Fprint(s.w, Summary(stats, elapsed))
	var follow map[string]report.FollowGroup
	if s.Follow != nil {
		var ferr error
		follow, ferr = s.Follow.Finish(s.w, interrupted)
		runErr = errors.Join(runErr, ferr)
	}
	if reportPath != "" {
		rep := play.NewReport(stats, elapsed, s.Target, interrupted)
		rep.Follow = follow
		var doc any = report.Run{Report: rep, Units: s.units.Units()}
		if s.Extend != nil {
			doc = s.Extend(rep)
			if sr, ok := doc.(report.Stress); ok {
				sr.Units = s.units.Units() // the extension does not know the units the collector kept
				doc = sr
			}
		}
		if err := reportfile.Write(reportPath, doc); err != nil {
			runErr = errors.Join(runErr, fmt.Errorf("--report: %w", err))
		}
	}
	if err := s.Sink.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if interrupted {
		return fmt.Errorf("interrupted: the summary above says exactly what was acknowledged: %w", runErr)
	}
	return runErr
}
