package play

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clickgen/clickgen/generator/produce/sink"
)

// Observer hears a run from its start to its end: every listener of a run (the console,
// measurements and the report, metrics, freshness, thresholds) is one, and a run tells
// them all the same events through [Observers]. The events of the run itself are called on the
// goroutine that called [Run], between messages, so they must return quickly (a slow observer
// slows the run); RunEnded is where an observer does its own end work, and may take its time.
// Embed [Base] to hear only some events.
type Observer interface {
	// RunStarted is called once, before the first message: the plan and where to read the
	// sink's counters.
	RunStarted(s Start)
	// UnitStarted is called before the first message of a unit.
	UnitStarted(u Unit)
	// UnitDone is called after the last message of a unit (and its flush, if any).
	UnitDone(r UnitResult)
	// ExtraSent is called for each malformed message and re-send, right after the sink took
	// it: its topic and garbage class (world.Garbage*), "" for a re-send of a clean message.
	ExtraSent(topic, class string)
	// Stopped is called once when a stop condition ended the run before its last unit.
	Stopped(reason StopReason, res Result)
	// Waiting is called before a wait of the run's end that may last more than a moment:
	// what it waits for and the longest it may take. [Finish] announces its flush, and an
	// observer its own waits through [End.Wait]; the console says them.
	Waiting(what string, max time.Duration)
	// RunEnded is called by [Finish], for each observer in order, once the run is over and
	// its sink flushed, before the sink is closed. An observer does its own end work here
	// (prints its summary, waits for a group to drain, writes a file) and adds what it knows
	// to what the observers after it read; ctx is the run's, so a wait ends when it does (the
	// first signal). An error fails the run: it is joined to the run's error.
	RunEnded(ctx context.Context, e *End) error
}

// Acker is an [Observer] that also hears every acknowledged message (a follower of consumer
// groups does). The acknowledgements come from the sink, not from Run: the Kafka sink calls
// [List.Acks]'s function ([sink.OnAck]) on its acknowledgement goroutine, serially, and it
// must return at once. An observer that is not an Acker costs nothing per message.
type Acker interface {
	Observer
	Acked(a sink.Ack)
}

// Start is what an [Observer] hears when a run starts.
type Start struct {
	// Plan is the plan being played ([Inject]: an empty one but for its flush timeout).
	Plan Plan
	// At is when the run started.
	At time.Time
	// Stats reads the sink's counters; it is safe to call from any goroutine, until the run
	// has ended.
	Stats func() sink.Stats
}

// End is what the observers of a run hear at its end ([Observer.RunEnded]).
type End struct {
	// Result is what Run returned.
	Result Result
	// Err is Run's error: nil when the run played its units or was stopped by a condition.
	Err error
	// Interrupted says the run was cancelled (Err is its context's error).
	Interrupted bool
	// Stats are the sink's counters after the final flush, before the sink is closed.
	Stats sink.Stats
	// wait tells every observer of the run of a wait (Observer.Waiting).
	wait func(what string, max time.Duration)
}

// Wait tells every observer of the run that one of them is about to wait for what, at most
// max (the console says so on stderr). Call it before a wait that may last more than a second.
func (e *End) Wait(what string, max time.Duration) {
	if e.wait != nil {
		e.wait(what, max)
	}
}

// Base is an [Observer] that hears nothing: embed it in an observer that wants only some
// events.
type Base struct{}

// RunStarted does nothing.
func (Base) RunStarted(Start) {}

// UnitStarted does nothing.
func (Base) UnitStarted(Unit) {}

// UnitDone does nothing.
func (Base) UnitDone(UnitResult) {}

// ExtraSent does nothing.
func (Base) ExtraSent(string, string) {}

// Stopped does nothing.
func (Base) Stopped(StopReason, Result) {}

// Waiting does nothing.
func (Base) Waiting(string, time.Duration) {}

// RunEnded does nothing and fails nothing.
func (Base) RunEnded(context.Context, *End) error { return nil }

// List is the observers of one run as one [Observer]: each event goes to each of them in
// order, and RunEnded's errors are joined. Build it with [Observers].
type List struct {
	obs    []Observer
	ackers []Acker
}

// Observers returns the list of obs (nil ones are skipped; a List among them is flattened),
// in the order they hear each event and, at the end, do their end work.
func Observers(obs ...Observer) *List {
	l := &List{}
	for _, o := range obs {
		switch o := o.(type) {
		case nil:
		case *List:
			if o != nil {
				l.obs = append(l.obs, o.obs...)
				l.ackers = append(l.ackers, o.ackers...)
			}
		default:
			l.obs = append(l.obs, o)
			if a, ok := o.(Acker); ok {
				l.ackers = append(l.ackers, a)
			}
		}
	}
	return l
}

// Acks is the function that tells the list's [Acker]s each acknowledged message, to give the
// sink as [sink.OnAck]; nil when none of them listens, so a run without one pays nothing per
// message.
func (l *List) Acks() func(sink.Ack) {
	switch len(l.ackers) {
	case 0:
		return nil
	case 1:
		return l.ackers[0].Acked
	}
	ackers := l.ackers
	return func(a sink.Ack) {
		for _, o := range ackers {
			o.Acked(a)
		}
	}
}

// RunStarted tells each observer the run started.
func (l *List) RunStarted(s Start) {
	for _, o := range l.obs {
		o.RunStarted(s)
	}
}

// UnitStarted tells each observer a unit started.
func (l *List) UnitStarted(u Unit) {
	for _, o := range l.obs {
		o.UnitStarted(u)
	}
}

// UnitDone tells each observer a unit is done.
func (l *List) UnitDone(r UnitResult) {
	for _, o := range l.obs {
		o.UnitDone(r)
	}
}

// ExtraSent tells each observer of an extra sent.
func (l *List) ExtraSent(topic, class string) {
	for _, o := range l.obs {
		o.ExtraSent(topic, class)
	}
}

// Stopped tells each observer a stop condition ended the run.
func (l *List) Stopped(reason StopReason, res Result) {
	for _, o := range l.obs {
		o.Stopped(reason, res)
	}
}

// Waiting tells each observer of a wait of the run's end.
func (l *List) Waiting(what string, max time.Duration) {
	for _, o := range l.obs {
		o.Waiting(what, max)
	}
}

// RunEnded tells each observer the end in order; e.Wait reaches every observer of the list.
// The errors are joined in the list's order.
func (l *List) RunEnded(ctx context.Context, e *End) error {
	if e.wait == nil {
		e.wait = l.Waiting
	}
	var errs []error
	for _, o := range l.obs {
		errs = append(errs, o.RunEnded(ctx, e))
	}
	return errors.Join(errs...)
}

// Finish ends a run that [Run] (or [Inject]) played into snk with observer obs and that
// returned res and err, in the order of a run's shutdown: pacing has stopped (Run returned);
// unless the run ended cleanly (or a wait of the sink already timed out) what it queued is
// flushed with a fresh flushTimeout, not ctx, so an interrupted run still delivers it (obs
// is told of the wait first); then each observer does its end work in order ([Observer.RunEnded]:
// the summary, a drain wait, a linger, the report file), given ctx (the run's: a signal ends
// their waits); then the sink is closed. It returns err with what the flush, the observers
// and Close add.
func Finish(ctx context.Context, snk sink.Sink, obs Observer, flushTimeout time.Duration, res Result, err error) error {
	flushTimeout = cmp.Or(flushTimeout, DefaultFlushTimeout)
	l := Observers(obs)
	e := End{Result: res, Err: err, Interrupted: errors.Is(err, context.Canceled), wait: l.Waiting}
	if err != nil && !errors.Is(err, sink.ErrIncomplete) { // a timed-out wait is not repeated
		if n := inFlight(snk.Stats()); n > 0 {
			e.Wait(fmt.Sprintf("flushing the %d message(s) in flight", n), flushTimeout)
		}
		r := &runner{plan: Plan{FlushTimeout: flushTimeout}, snk: snk}
		if ferr := r.flush(); ferr != nil && !e.Interrupted {
			var ie *IncompleteError
			var first, later *sink.DeliveryError
			if errors.As(err, &ie) && errors.As(ie.Err, &first) && errors.As(ferr, &later) {
				// The flush's count includes the failures the unit's error counted and those
				// that came after: one error with the summary's count, not two lines that
				// disagree (1008 and 10001 not delivered).
				ie.Err = later
			} else {
				err = errors.Join(err, ferr)
			}
		}
	}
	e.Stats = snk.Stats()
	err = errors.Join(err, l.RunEnded(ctx, &e))
	if cerr := snk.Close(); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

// inFlight counts the messages of s neither acknowledged nor failed.
func inFlight(s sink.Stats) int64 {
	var n int64
	for _, t := range s.Topics {
		n += t.Sent - t.Acked - t.Failed
	}
	return n
}
