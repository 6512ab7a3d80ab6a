package play

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/clickgen/clickgen/generator/sink"
)

// Session plays into one sink and ends the run the way the command line does. It is a
// [Printer] (progress and per-unit lines on w), it flushes with its own timeout, and
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
	// run's [StressReport]).
	Extend func(sink.Report) any
	// Settle, if set, is called once everything queued was flushed, before the summary: a
	// stress run measures its end there, so its line and the topic summary agree.
	Settle func()

	w io.Writer
}

// NewSession starts a session on snk printing on w, whose units are flushed within
// flushTimeout; total, lineEvery and line are the [Printer]'s (NewPrinter).
func NewSession(w io.Writer, snk sink.Sink, flushTimeout time.Duration, total int, lineEvery time.Duration, line func() string) *Session {
	return &Session{Printer: NewPrinter(w, snk, total, lineEvery, line), Sink: snk, FlushTimeout: flushTimeout, Start: time.Now(), w: w}
}

// Play runs plan into the session's sink with the session's flush timeout; the session and
// obs (nil ones are skipped) hear what happens.
func (s *Session) Play(ctx context.Context, plan Plan, obs ...Observer) (Result, error) {
	plan.FlushTimeout = s.FlushTimeout
	return Run(ctx, plan, s.Sink, Observers(append([]Observer{s}, obs...)...))
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
			runErr = errors.Join(runErr, ferr)
		}
	}
	s.Stop()
	if s.Settle != nil {
		s.Settle()
	}
	stats := s.Sink.Stats()
	elapsed := time.Since(s.Start)
	fmt.Fprint(s.w, Summary(stats, elapsed))
	if reportPath != "" {
		rep := NewReport(stats, elapsed, s.Target, interrupted)
		var doc any = RunReport{Report: rep, Units: s.Units()}
		if s.Extend != nil {
			doc = s.Extend(rep)
			if sr, ok := doc.(StressReport); ok {
				sr.Units = s.Units() // the extension does not know the units the printer kept
				doc = sr
			}
		}
		if err := WriteReport(reportPath, doc); err != nil {
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
