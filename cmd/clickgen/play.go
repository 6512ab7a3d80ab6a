package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/clickgen/clickgen/generator/sink"
)

// player sends messages to one sink and keeps the run's bookkeeping: progress on stderr,
// flushes with their own timeout, the final summary and report.
type player struct {
	sio          *stdio
	snk          sink.Sink
	flushTimeout time.Duration
	start        time.Time
	target       float64 // target rate for the report, 0 for unpaced runs
	prog         *progress
	// extend, if set, turns the report into the document --report writes (stress adds to it).
	extend func(sink.Report) any
}

func newPlayer(sio *stdio, snk sink.Sink, flushTimeout time.Duration, total int) *player {
	return newPlayerLines(sio, snk, flushTimeout, total, 0, nil)
}

// newPlayerLines is newPlayer whose progress is line(), printed as a log line every `every`
// instead of the default progress (stress prints one line per interval).
func newPlayerLines(sio *stdio, snk sink.Sink, flushTimeout time.Duration, total int, every time.Duration, line func() string) *player {
	p := &player{sio: sio, snk: snk, flushTimeout: flushTimeout, start: time.Now()}
	p.prog = startProgressLines(sio.err, snk, total, every, line)
	return p
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
	p.prog.stop()
	stats := p.snk.Stats()
	elapsed := time.Since(p.start)
	fmt.Fprint(p.sio.err, summary(stats, elapsed))
	if reportPath != "" {
		r := sink.NewReport(stats)
		r.Interrupted = interrupted
		r.Rate.TargetPerS = p.target
		var acked int64
		for _, t := range stats.Topics {
			acked += t.Acked
		}
		if s := elapsed.Seconds(); s > 0 {
			r.Rate.AchievedPerS = float64(acked) / s
		}
		var doc any = r
		if p.extend != nil {
			doc = p.extend(r)
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

// dayFailed explains a delivery failure of the day being played.
func dayFailed(what string, err error) error {
	var de *sink.DeliveryError
	if errors.As(err, &de) || errors.Is(err, sink.ErrIncomplete) {
		return fmt.Errorf("%s is incomplete: %w", what, err)
	}
	return err
}

func summary(s sink.Stats, elapsed time.Duration) string {
	var b strings.Builder
	for _, name := range sortedKeys(s.Topics) {
		t := s.Topics[name]
		fmt.Fprintf(&b, "clickgen: %s: %d sent, %d acked, %d failed, %.1f MB", name, t.Sent, t.Acked, t.Failed, float64(t.Bytes)/1e6)
		if u := t.Sent - t.Acked - t.Failed; u != 0 {
			fmt.Fprintf(&b, ", %d unaccounted (neither acked nor failed: they may or may not be in the topic)", u)
		}
		if len(t.Partitions) > 0 {
			fmt.Fprintf(&b, ", partitions")
			for _, p := range sortedKeys(t.Partitions) {
				fmt.Fprintf(&b, " %d:%d", p, t.Partitions[p])
			}
		}
		if secs := elapsed.Seconds(); secs > 0 {
			fmt.Fprintf(&b, "; %.0f msg/s", float64(t.Acked)/secs)
		}
		b.WriteByte('\n')
	}
	if s.Latency.Count() > 0 {
		fmt.Fprintf(&b, "clickgen: latency p50 %v p95 %v p99 %v max %v (from intended send time to ack)\n",
			round(s.Latency.Quantile(0.5)), round(s.Latency.Quantile(0.95)), round(s.Latency.Quantile(0.99)), round(s.Latency.Max()))
	}
	if len(s.Topics) == 0 {
		b.WriteString("clickgen: nothing was sent\n")
	}
	fmt.Fprintf(&b, "clickgen: total time %v\n", elapsed.Round(time.Millisecond))
	return b.String()
}

func round(d time.Duration) time.Duration {
	switch {
	case d > time.Second:
		return d.Round(time.Millisecond)
	case d > time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(path, append(b, '\n'))
}

// progress prints what the sink has done on stderr: a line rewritten in place on a terminal,
// a line every progressEvery otherwise.
type progress struct {
	w     io.Writer
	snk   sink.Sink
	tty   bool
	total int // messages expected, 0 when unknown
	start time.Time
	done  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	label string
	line  func() string // if set, replaces the default line and is printed as a log line
	// lastAcked and lastAt are the previous line's figures: the line shows the current
	// rate, so a stalled broker shows 0 msg/s instead of a slowly falling average.
	lastAcked int64
	lastAt    time.Time
}

const progressEvery = 10 * time.Second

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func startProgress(w io.Writer, snk sink.Sink, total int) *progress {
	return startProgressLines(w, snk, total, 0, nil)
}

// startProgressLines is startProgress printing line() as a log line every lineEvery instead,
// when line is set.
func startProgressLines(w io.Writer, snk sink.Sink, total int, lineEvery time.Duration, line func() string) *progress {
	p := &progress{w: w, snk: snk, tty: isTerminal(w), total: total, start: time.Now(), done: make(chan struct{}), line: line}
	every := progressEvery
	if line != nil {
		every = lineEvery
	} else if p.tty {
		every = 200 * time.Millisecond
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-t.C:
				p.print()
			}
		}
	}()
	return p
}

// setLabel sets what is being played ("day 3 of 8").
func (p *progress) setLabel(s string) {
	p.mu.Lock()
	p.label = s
	p.mu.Unlock()
}

// logf prints a line between progress updates.
func (p *progress) logf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "clickgen: "+format+"\n", args...)
}

func (p *progress) print() {
	if p.line != nil {
		p.logf("%s", p.line())
		return
	}
	s := p.snk.Stats()
	var sent, acked, failed, bytes int64
	for _, t := range s.Topics {
		sent, acked, failed, bytes = sent+t.Sent, acked+t.Acked, failed+t.Failed, bytes+t.Bytes
	}
	secs := time.Since(p.start).Seconds()
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.lastAt.IsZero() {
		p.lastAt = p.start
	}
	rate := float64(acked-p.lastAcked) / now.Sub(p.lastAt).Seconds()
	p.lastAcked, p.lastAt = acked, now
	line := fmt.Sprintf("%s %d sent, %d acked, %d failed, %.0f msg/s now, %.1f MB/s overall", p.label, sent, acked, failed, rate, float64(bytes)/1e6/secs)
	if p.tty {
		bar := ""
		if p.total > 0 {
			const width = 24
			filled := min(width, int(int64(width)*acked/int64(p.total)))
			bar = "[" + strings.Repeat("#", filled) + strings.Repeat(".", width-filled) + "] "
		}
		fmt.Fprintf(p.w, "\r\033[K%s%s", bar, line)
		return
	}
	fmt.Fprintf(p.w, "clickgen: progress: %s\n", line)
}

func (p *progress) stop() {
	close(p.done)
	p.wg.Wait()
	if p.tty {
		p.mu.Lock()
		fmt.Fprint(p.w, "\r\033[K")
		p.mu.Unlock()
	}
}
