// Package console is how a run speaks on stderr while it plays: the [Printer], an observer of
// the run (play.Observer) that prints progress and per-unit lines, the waits of the run's end
// and the end-of-run [Summary], the followed groups' lines and the thresholds' verdicts. The
// engine (generator/produce/play) prints nothing, and the figures are generator/measure's
// (the measure.Outcome a measure.Run adds to the run's end): the console only words them. A
// value it mentions is named by the caller's names (field.Names: a command says its flags).
package console

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/measure/report"
	"github.com/clickgen/clickgen/generator/measure/storefollow"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// Printer is the [play.Observer] that prints a run as the command line does, in English, on w
// (stderr): a progress line (a bar rewritten in place on a terminal, a log line every
// [ProgressEvery] otherwise; a rate-paced run's interval line every Options.LineEvery), a line
// per unit done, the reason a run stopped, each wait of the run's end (what, and how long at
// most) and, once the run has ended, the summary: a rate-paced run's total line, then the
// topics', the followed groups' lines and the thresholds' verdicts, from the measure.Outcome
// the run's measurement added to its end. Its methods are safe for concurrent use.
type Printer struct {
	// OnUnit, if set, hears each unit as it starts.
	OnUnit func(play.Unit)

	w     io.Writer
	opt   Options
	tty   bool
	stats func() sink.Stats
	start time.Time
	done  chan struct{} // nil until the progress starts
	wg    sync.WaitGroup
	mu    sync.Mutex
	who   string // "segment I/N: " in a segmented run: every line says whose it is
	label string
	line  func() string // if set, replaces the default line and is printed as a log line
	// lastAcked and lastAt are the previous line's figures: the line shows the current
	// rate, so a stalled broker shows 0 msg/s instead of a slowly falling average.
	lastAcked int64
	lastAt    time.Time
}

// Options configure a [Printer].
type Options struct {
	// Total is the number of messages expected (0 when unknown), for the bar.
	Total int
	// LineEvery is how often a rate-paced run prints its interval line, Interval's.
	LineEvery time.Duration
	Interval  func() (iv report.Interval, acked int64)
	// LimitName names how a message limit was set ("--limit 25"), for the line that says the
	// run stopped there; "" says "the messages limit".
	LimitName string
	// Names names the values the lines mention ({ConnectTimeout} in a wait; field.Names);
	// nil leaves the library's words.
	Names field.Names
}

// ProgressEvery is how often a Printer not on a terminal prints a progress line.
const ProgressEvery = 10 * time.Second

// MinProgressEvery is the shortest period of progress lines a command accepts (--interval,
// live's --progress-every): --interval 1ns printed 135 655 lines in 2 s.
const MinProgressEvery = 100 * time.Millisecond

// isTerminal says whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// NewPrinter returns a printer on w with opt. The progress starts with the run.
func NewPrinter(w io.Writer, opt Options) *Printer {
	return &Printer{w: w, opt: opt, tty: isTerminal(w), start: time.Now()}
}

// RunStarted starts the progress: from the sink's counters, or for a rate-paced run the
// measurement's interval lines.
func (p *Printer) RunStarted(s play.Start) {
	p.mu.Lock()
	p.stats, p.start = s.Stats, s.At
	if seg := s.Plan.Range.Segment; !seg.Whole() {
		// The N processes of one run write interleaved logs: each line names its segment.
		p.who = "segment " + seg.String() + ": "
	}
	every := ProgressEvery
	switch {
	case s.Plan.Pacing.ByCount && p.opt.Interval != nil:
		p.line, every = func() string { return stressLine(p.opt.Interval()) }, p.opt.LineEvery
	case p.tty:
		every = 200 * time.Millisecond
	}
	p.done = make(chan struct{})
	done := p.done
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				p.print()
			}
		}
	}()
}

// SetLabel sets what is being played ("day 3:").
func (p *Printer) SetLabel(s string) {
	p.mu.Lock()
	p.label = s
	p.mu.Unlock()
}

// Logf prints a line between progress updates, prefixed "clickgen: ".
func (p *Printer) Logf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
	fmt.Fprintf(p.w, "clickgen: %s%s\n", p.who, fmt.Sprintf(format, args...))
}

func (p *Printer) print() {
	if p.line != nil {
		p.Logf("%s", p.line())
		return
	}
	s := p.stats()
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
		if p.opt.Total > 0 {
			const width = 24
			filled := min(width, int(int64(width)*acked/int64(p.opt.Total)))
			bar = "[" + strings.Repeat("#", filled) + strings.Repeat(".", width-filled) + "] "
		}
		fmt.Fprintf(p.w, "\r\033[K%s%s%s", p.who, bar, line)
		return
	}
	fmt.Fprintf(p.w, "clickgen: %sprogress: %s\n", p.who, line)
}

// stop ends the progress line, if it started. Logf may still be called after it.
func (p *Printer) stop() {
	p.mu.Lock()
	done := p.done
	p.done = nil
	p.mu.Unlock()
	if done == nil {
		return
	}
	close(done)
	p.wg.Wait()
	if p.tty {
		p.mu.Lock()
		fmt.Fprint(p.w, "\r\033[K")
		p.mu.Unlock()
	}
}

// Waiting says what the run's end waits for and how long it may take, before it begins;
// the values what names are named by Options.Names.
func (p *Printer) Waiting(what string, max time.Duration) {
	p.Logf("%s", WaitLine(field.New(what).Say(p.opt.Names), max))
}

// WaitLine is how the console announces a wait: what it waits for, and the longest it may
// take ("…, at most 2m0s"), after "clickgen: ".
func WaitLine(what string, max time.Duration) string { return fmt.Sprintf("%s, at most %v", what, max) }

// RunEnded ends the progress: nothing more is printed until the run is reported.
func (p *Printer) RunEnded(context.Context, *play.End) error {
	p.stop()
	return nil
}

// RunReported prints the summary: a rate-paced run's total line (and its warm-up's), then
// each topic's counts, the latency (and the warm-up's) and the total time, from the
// measurement's figures (measure.Outcome); then each followed group's lines, the followed
// table's (storefollow.Result) and each threshold's verdict.
func (p *Printer) RunReported(_ context.Context, e *play.End) error {
	out, ok := play.Get[measure.Outcome](e)
	f := out.Figures
	if !ok { // without a measurement
		f = measure.Figures{Latency: measure.PercentilesOf(e.Stats.Latency), Elapsed: e.At.Sub(p.start)}
	}
	if out.RateRun {
		if f.Warmup != nil {
			p.Logf("%s", stressWarmup(*f.Warmup))
		}
		p.Logf("%s", stressTotal(f))
	}
	sum := Summary(e.Stats, f)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.who != "" {
		sum = strings.ReplaceAll(sum, "\nclickgen: ", "\nclickgen: "+p.who)
		sum = strings.Replace(sum, "clickgen: ", "clickgen: "+p.who, 1)
	}
	fmt.Fprint(p.w, sum)
	if r := out.Follow; r != nil {
		for _, g := range r.Groups {
			followLines(p.w, *r, g)
		}
	}
	if r, ok := play.Get[storefollow.Result](e); ok {
		storeLines(p.w, r, p.opt.Names)
	}
	for _, v := range out.Verdicts {
		fmt.Fprintf(p.w, "clickgen: threshold %s\n", v)
	}
	return nil
}

// UnitStarted labels the progress line with the unit being played.
func (p *Printer) UnitStarted(u play.Unit) {
	label := fmt.Sprintf("day %d:", u.Day)
	if u.Kind == play.SnapshotUnit {
		label = "snapshot of " + label
	}
	p.SetLabel(label)
	if p.OnUnit != nil {
		p.OnUnit(u)
	}
}

// UnitDone logs a line per unit: what it held, how long it took, how late paced messages
// left. (The report's line of the unit is play.Collector's.)
func (p *Printer) UnitDone(r play.UnitResult) {
	var line string
	switch {
	case r.Kind == play.SnapshotUnit:
		line = fmt.Sprintf("%s: %d rows (+%d malformed or redelivered); sent in %v, flushed in %v", r.Name(), r.Clean, r.Extras,
			r.Played.Round(time.Millisecond), r.Flush.Round(time.Millisecond))
	case !r.Flushed:
		line = fmt.Sprintf("%s: %d messages released in %v", r.Name(), r.Sent, r.Played.Round(time.Millisecond))
	default:
		line = fmt.Sprintf("%s: %d events", r.Name(), r.Clean)
		if r.Extras > 0 {
			line += fmt.Sprintf(" + %d malformed or redelivered", r.Extras)
		}
		line += fmt.Sprintf(", %.1f MB; generated and sent in %v, flushed in %v", float64(r.Bytes)/1e6,
			r.Played.Round(time.Millisecond), r.Flush.Round(time.Millisecond))
		if l := measure.PercentilesOf(r.Lateness); l.Count > 0 {
			line += fmt.Sprintf("; send-time error p50 %v p99 %v max %v", round(l.P50), round(l.P99), round(l.Max))
		}
	}
	p.Logf("%s", line)
}

// Stopped says which stop condition ended the run.
func (p *Printer) Stopped(reason play.StopReason, res play.Result) {
	switch {
	case reason == play.StopMessages && p.opt.LimitName != "":
		p.Logf("stopped at %s after %d hit messages", p.opt.LimitName, res.Sent)
	case reason == play.StopSchedule:
		p.Logf("stopped: the rate schedule ended after %d hit messages", res.Sent)
	case reason == play.StopLastDay:
		p.Logf("stopped at the last model day %d (%s), where UTCEventTime ends, after %d hit messages", world.MaxDay, world.DayDate(world.MaxDay), res.Sent)
	default:
		p.Logf("stopped at the %s limit after %d hit messages", reason, res.Sent)
	}
}

// Summary is the end-of-run text: per topic what was sent, acknowledged and failed, the
// bytes and partitions, the acknowledged rate over the run's time, the latency percentiles
// (the measurement's figures f, of s's histogram; with a warm-up: the latency of what came
// after it, then the warm-up's on a line of its own) and the total time, which a rate-paced
// run splits into its sending (what --duration bounds) and the final flush of what was in
// flight.
func Summary(s sink.Stats, f measure.Figures) string {
	lat, elapsed := f.Latency, f.Elapsed
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(s.Topics)) {
		t := s.Topics[name]
		fmt.Fprintf(&b, "clickgen: %s: %d sent, %d acked, %d failed, %.1f MB", name, t.Sent, t.Acked, t.Failed, float64(t.Bytes)/1e6)
		if u := t.Sent - t.Acked - t.Failed; u != 0 {
			fmt.Fprintf(&b, ", %d unaccounted (neither acked nor failed: they may or may not be in the topic)", u)
		}
		if len(t.Partitions) > 0 {
			fmt.Fprintf(&b, ", partitions")
			for _, p := range slices.Sorted(maps.Keys(t.Partitions)) {
				fmt.Fprintf(&b, " %d:%d", p, t.Partitions[p])
			}
		}
		if secs := elapsed.Seconds(); secs > 0 {
			fmt.Fprintf(&b, "; %.0f msg/s", float64(t.Acked)/secs)
		}
		b.WriteByte('\n')
	}
	after := ""
	if w := f.Warmup; w != nil {
		after = fmt.Sprintf(", of the %d acknowledged after the %v warm-up", lat.Count, w.Duration)
	}
	if lat.Count > 0 {
		fmt.Fprintf(&b, "clickgen: latency p50 %v p95 %v p99 %v max %v (from intended send time to ack%s)\n",
			round(lat.P50), round(lat.P95), round(lat.P99), round(lat.Max), after)
	}
	if w := f.Warmup; w != nil {
		fmt.Fprintf(&b, "clickgen: %s\n", warmupLine(*w))
	}
	if len(s.Topics) == 0 {
		b.WriteString("clickgen: nothing was sent\n")
	}
	fmt.Fprintf(&b, "clickgen: total time %v", elapsed.Round(time.Millisecond))
	if f.Sending > 0 {
		fmt.Fprintf(&b, ": sending %v, then the final flush of what was in flight %v", f.Sending.Round(time.Millisecond), round(f.FinalFlush))
	}
	b.WriteByte('\n')
	return b.String()
}

// round rounds d for printing: milliseconds above a second, 10 µs above a millisecond.
func round(d time.Duration) time.Duration {
	switch {
	case d > time.Second:
		return d.Round(time.Millisecond)
	case d > time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
