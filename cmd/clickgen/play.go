package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clickgen/clickgen/generator/metrics/prom"
	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/sink"
)

// player plays into one sink and keeps the run's bookkeeping: it is the engine's Observer
// (the printer's progress and per-unit lines on stderr), flushes with its own timeout, and
// ends the run with the summary and the report.
type player struct {
	*play.Printer
	sio          *stdio
	snk          sink.Sink
	flushTimeout time.Duration
	start        time.Time
	target       float64 // target rate for the report, 0 for unpaced runs
	// extend, if set, turns the report into the document --report writes (stress adds to it).
	extend func(sink.Report) any
	// settle, if set, is called once everything queued was flushed, before the summary: a
	// stress run measures its end there, so its line and the topic summary agree.
	settle func()
}

func newPlayer(sio *stdio, snk sink.Sink, flushTimeout time.Duration, total int) *player {
	return newPlayerLines(sio, snk, flushTimeout, total, 0, nil)
}

// newPlayerLines is newPlayer whose progress is line(), printed as a log line every `every`
// instead of the default progress (stress prints one line per interval).
func newPlayerLines(sio *stdio, snk sink.Sink, flushTimeout time.Duration, total int, every time.Duration, line func() string) *player {
	return &player{Printer: play.NewPrinter(sio.err, snk, total, every, line), sio: sio, snk: snk, flushTimeout: flushTimeout, start: time.Now()}
}

// play runs plan into the player's sink, the player (and the metrics server, if any) hearing
// what happens.
func (p *player) play(ctx context.Context, plan play.Plan) (play.Result, error) {
	plan.FlushTimeout = p.flushTimeout
	return play.Run(ctx, plan, p.snk, play.Observers(p, prom.Of(p.snk).Observer(plan)))
}

// flush waits for every message sent so far, with its own timeout: an interrupted run still
// gets the chance to deliver what it queued.
func (p *player) flush() error {
	ctx, cancel := context.WithTimeout(context.Background(), p.flushTimeout)
	defer cancel()
	return p.snk.Flush(ctx)
}

// finish ends the run: on interrupt or failure it flushes what is queued, then prints the
// summary, writes the report and closes the sink. It returns runErr, explained.
func (p *player) finish(runErr error, reportPath string) error {
	interrupted := errors.Is(runErr, context.Canceled)
	if runErr != nil && !errors.Is(runErr, sink.ErrIncomplete) { // a timed-out wait is not repeated
		if ferr := p.flush(); ferr != nil && !interrupted {
			runErr = errors.Join(runErr, ferr)
		}
	}
	p.Stop()
	if p.settle != nil {
		p.settle()
	}
	stats := p.snk.Stats()
	elapsed := time.Since(p.start)
	fmt.Fprint(p.sio.err, play.Summary(stats, elapsed))
	if reportPath != "" {
		rep := play.NewReport(stats, elapsed, p.target, interrupted)
		var doc any = play.RunReport{Report: rep, Units: p.Units()}
		if p.extend != nil {
			doc = p.extend(rep)
			if s, ok := doc.(play.StressReport); ok {
				s.Units = p.Units() // the extension does not know the units the printer kept
				doc = s
			}
		}
		if err := writeJSON(reportPath, doc); err != nil {
			runErr = errors.Join(runErr, fmt.Errorf("--report: %w", err))
		}
	}
	if err := p.snk.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if interrupted {
		return fmt.Errorf("interrupted: the summary above says exactly what was acknowledged: %w", runErr)
	}
	return runErr
}

func writeJSON(path string, v any) error { return play.WriteReport(path, v) }
