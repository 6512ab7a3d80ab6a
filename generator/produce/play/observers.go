package play

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/clickgen/clickgen/generator/produce/sink"
)

// Observer hears a run from its start to its end: every listener of a run (the console,
// measurements and the report, metrics, freshness, thresholds) is one, and a run tells them
// all the same events through [Observers]. An observer implements the two events every
// listener needs, and of the others only the hooks it wants ([HookUnitStarted],
// [HookUnitDone], [HookExtraSent], [HookStopped], [HookWaiting], [HookAcked],
// [HookKafka], [HookReport]), as franz-go's plugins implement only the kgo hooks they want:
// nothing embeds a base type, and an event nobody hooks costs nothing. The events of the run
// itself are called on the goroutine that called [Run], between messages, so they must
// return quickly (a slow observer slows the run).
//
// The end of a run has two phases ([Finish]), so that the order of a list never matters:
// first every observer's RunEnded, all at once, where each does its own end work and adds
// what it measured to the run's end ([End.Add]); then, once all of them returned, each
// [HookReport]'s RunReported, which reads what was added ([Get]) and publishes it (a
// summary, a report file). No observer reads another: what one needs of another is a result
// added to the end, read in RunReported, or, by an observer whose own end needs it (the
// measurement judging a followed table's figures), awaited in RunEnded ([Await]).
type Observer interface {
	// RunStarted is called once, before the first message: the plan and where to read the
	// sink's counters.
	RunStarted(s Start)
	// RunEnded is called by [Finish] for every observer of the run at once, each on a
	// goroutine of its own, once the run is over and its sink flushed, before the sink is
	// closed. An observer does its own end work here (stops its progress lines, waits for a
	// group to drain) and adds its results to e ([End.Add]); it reads another's only by
	// awaiting it ([Await]).
	// ctx is the run's, so a wait ends when it does (the first signal). An error fails the
	// run: it is joined to the run's error, in the list's order.
	RunEnded(ctx context.Context, e *End) error
}

// HookUnitStarted is an [Observer] that hears each unit start, before its first message.
type HookUnitStarted interface{ UnitStarted(u Unit) }

// HookUnitDone is an [Observer] that hears each unit done, after its last message (and its
// flush, if any).
type HookUnitDone interface{ UnitDone(r UnitResult) }

// HookExtraSent is an [Observer] that hears each malformed message and re-send, right after
// the sink took it: its topic and garbage class (world.Garbage*), "" for a re-send of a clean
// message.
type HookExtraSent interface{ ExtraSent(topic, class string) }

// HookStopped is an [Observer] that hears a stop condition end the run before its last unit
// (once).
type HookStopped interface {
	Stopped(reason StopReason, res Result)
}

// HookWaiting is an [Observer] that hears each wait of the run's end that may last more
// than a moment, before it begins: what it waits for and the longest it may take. [Finish]
// announces its flush, and an observer its own waits through [End.Wait]; the console says
// them.
type HookWaiting interface {
	Waiting(what string, max time.Duration)
}

// HookAcked is an [Observer] that hears every acknowledged message (a follower of consumer
// groups does). The acknowledgements come from the sink, not from Run: the Kafka sink calls
// the function [SinkOpts] gives it ([sink.OnAck]) on its acknowledgement goroutine, serially,
// and Acked must return at once. A list without one gives the sink no function: it costs
// nothing per message.
type HookAcked interface{ Acked(a sink.Ack) }

// HookKafka is an [Observer] that hooks the Kafka client of the run's sink (franz-go's
// kprom registers its metrics so): [SinkOpts] gives the hooks to the sink that is opened for
// the run ([sink.Hooks]). KafkaHooks is called once, before the sink is opened.
type HookKafka interface{ KafkaHooks() kgo.Hook }

// HookReport is an [Observer] that publishes the run's end once every observer's RunEnded
// has returned: it reads what they added ([Get]) and prints or writes it. RunReported is
// called for each of them in the list's order, on [Finish]'s goroutine; an error fails the
// run as RunEnded's does.
type HookReport interface {
	RunReported(ctx context.Context, e *End) error
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

// End is what the observers of a run hear at its end ([Observer.RunEnded],
// [HookReport.RunReported]).
type End struct {
	// Result is what Run returned.
	Result Result
	// Err is Run's error: nil when the run played its units or was stopped by a condition.
	Err error
	// Interrupted says the run was cancelled (Err is its context's error).
	Interrupted bool
	// Stats are the sink's counters after the final flush, before the sink is closed.
	Stats sink.Stats
	// At is when the run ended: after the final flush, before any observer's end work. A
	// measurement ends here, whatever the other observers wait for.
	At time.Time
	// wait tells every observer of the run of a wait (HookWaiting).
	wait func(what string, max time.Duration)

	mu        sync.Mutex
	added     map[reflect.Type]any
	reporting bool       // RunEnded is over: the results are read, no more added
	changed   *sync.Cond // on mu: a result was added, a RunEnded returned or began to await
	running   int        // the RunEnded under way
	awaiting  int        // of them, those in Await
}

// Wait tells every observer of the run that one of them is about to wait for what, at most
// max (the console says so on stderr). Call it before a wait that may last more than a second.
// what is a sentence that may name values as field.New's do ({Timeout|the timeout}), for the
// observer that says it to name them its way; field.Escape makes text literal.
func (e *End) Wait(what string, max time.Duration) {
	if e.wait != nil {
		e.wait(what, max)
	}
}

// Add adds v, what an observer measured, to the run's end, for the [HookReport]s to read
// with [Get] by its type: one result of each type (a later one of the same type replaces
// it). Call it from RunEnded; it panics afterwards, when the results are being read.
func (e *End) Add(v any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.reporting {
		panic("play: End.Add after RunEnded: results are added in RunEnded, read in RunReported")
	}
	if e.added == nil {
		e.added = map[reflect.Type]any{}
	}
	e.added[reflect.TypeOf(v)] = v
	e.broadcast()
}

// broadcast wakes the observers in [Await]. Call with mu held.
func (e *End) broadcast() {
	if e.changed != nil {
		e.changed.Broadcast()
	}
}

// Await returns, in an observer's RunEnded, the result of type T another observer adds to
// e in its own RunEnded ([End.Add]), once it is added, and whether there is one: it returns
// false once no RunEnded that could still add it is under way (every other one returned or
// awaits too), so an observer that needs another's result does not depend on the list's
// order, nor on the other being in the list. A result it adds itself must come after. Outside
// [Finish] (no RunEnded under way) it returns what was added so far.
func Await[T any](e *End) (T, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.awaiting++
	e.broadcast()
	defer func() { e.awaiting-- }()
	for {
		if v, ok := e.added[reflect.TypeFor[T]()]; ok {
			return v.(T), true
		}
		if e.changed == nil || e.running <= e.awaiting {
			var zero T
			return zero, false
		}
		e.changed.Wait()
	}
}

// Get returns the result of type T added to e ([End.Add]) and whether there is one. It
// finds nothing while the observers' RunEnded run: a result is read once every observer has
// added its own, in [HookReport.RunReported], so no observer depends on another's order.
func Get[T any](e *End) (T, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	v, ok := e.added[reflect.TypeFor[T]()]
	if !e.reporting || !ok {
		var zero T
		return zero, false
	}
	return v.(T), true
}

// List is the observers of one run as one [Observer] with every hook: each event goes to
// the observers that hook it, in order; RunEnded runs both phases of the end. Build it with
// [Observers].
type List struct {
	obs []Observer
}

// Observers returns the list of obs (nil ones are skipped; a List among them is flattened).
// The list's order is the order in which they hear each event of the run and report; it
// changes nothing else.
func Observers(obs ...Observer) *List {
	l := &List{}
	for _, o := range obs {
		switch o := o.(type) {
		case nil:
		case *List:
			if o != nil {
				l.obs = append(l.obs, o.obs...)
			}
		default:
			l.obs = append(l.obs, o)
		}
	}
	return l
}

// each calls f for every observer of l that implements hook H.
func each[H any](l *List, f func(H)) {
	for _, o := range l.obs {
		if h, ok := o.(H); ok {
			f(h)
		}
	}
}

// Acks is the function that tells the list's [HookAcked]s each acknowledged message; nil when
// none of them listens, so a run without one pays nothing per message.
func (l *List) Acks() func(sink.Ack) {
	var ackers []HookAcked
	each(l, func(h HookAcked) { ackers = append(ackers, h) })
	switch len(ackers) {
	case 0:
		return nil
	case 1:
		return ackers[0].Acked
	}
	return func(a sink.Ack) {
		for _, o := range ackers {
			o.Acked(a)
		}
	}
}

// SinkOpts are what the observers obs need of the sink the run is played into: the hooks of
// its Kafka client ([HookKafka]) and the function that tells each acknowledgement to those that
// listen ([HookAcked]); nothing when none of them does. The caller that opens the sink for
// the run gives them to it: an observer never attaches itself to the sink.
func SinkOpts(obs Observer) []sink.Opt {
	l := Observers(obs)
	var opts []sink.Opt
	each(l, func(h HookKafka) {
		if k := h.KafkaHooks(); k != nil {
			opts = append(opts, sink.Hooks(k))
		}
	})
	if acks := l.Acks(); acks != nil {
		opts = append(opts, sink.OnAck(acks))
	}
	return opts
}

// RunStarted tells each observer the run started.
func (l *List) RunStarted(s Start) {
	for _, o := range l.obs {
		o.RunStarted(s)
	}
}

// UnitStarted tells each observer that hooks it that a unit started.
func (l *List) UnitStarted(u Unit) { each(l, func(h HookUnitStarted) { h.UnitStarted(u) }) }

// UnitDone tells each observer that hooks it that a unit is done.
func (l *List) UnitDone(r UnitResult) { each(l, func(h HookUnitDone) { h.UnitDone(r) }) }

// ExtraSent tells each observer that hooks it of an extra sent.
func (l *List) ExtraSent(topic, class string) {
	each(l, func(h HookExtraSent) { h.ExtraSent(topic, class) })
}

// Stopped tells each observer that hooks it that a stop condition ended the run.
func (l *List) Stopped(reason StopReason, res Result) {
	each(l, func(h HookStopped) { h.Stopped(reason, res) })
}

// Waiting tells each observer that hooks it of a wait of the run's end.
func (l *List) Waiting(what string, max time.Duration) {
	each(l, func(h HookWaiting) { h.Waiting(what, max) })
}

// RunEnded ends the run for every observer: each one's RunEnded at once, on goroutines of
// their own, then, once all returned, each [HookReport]'s RunReported in order; e.Wait
// reaches every observer of the list. The errors are joined in the list's order, RunEnded's
// before RunReported's.
func (l *List) RunEnded(ctx context.Context, e *End) error {
	if e.wait == nil {
		e.wait = l.Waiting
	}
	ended := make([]error, len(l.obs))
	e.mu.Lock()
	e.changed, e.running = sync.NewCond(&e.mu), len(l.obs)
	e.mu.Unlock()
	var wg sync.WaitGroup
	for i, o := range l.obs {
		wg.Go(func() {
			defer func() {
				e.mu.Lock()
				e.running--
				e.broadcast()
				e.mu.Unlock()
			}()
			ended[i] = o.RunEnded(ctx, e)
		})
	}
	wg.Wait()
	e.mu.Lock()
	e.reporting = true
	e.mu.Unlock()
	var reported []error
	each(l, func(h HookReport) { reported = append(reported, h.RunReported(ctx, e)) })
	return errors.Join(append(ended, reported...)...)
}

// Finish ends a run that [Run] (or [Inject]) played into snk with observer obs and that
// returned res and err, in the order of a run's shutdown: pacing has stopped (Run returned);
// unless the run ended cleanly (or a wait of the sink already timed out) what it queued is
// flushed with a fresh flushTimeout, not ctx, so an interrupted run still delivers it (obs
// is told of the wait first); then the observers end the run (every RunEnded at once, then
// each RunReported: the measurement and a drain wait, then the summary and the report file),
// given ctx (the run's: a signal ends their waits); then the sink is closed. It returns err
// with what the flush, the observers and Close add.
func Finish(ctx context.Context, snk sink.Sink, obs Observer, flushTimeout time.Duration, res Result, err error) error {
	flushTimeout = cmp.Or(flushTimeout, DefaultFlushTimeout)
	l := Observers(obs)
	e := &End{Result: res, Err: err, Interrupted: errors.Is(err, context.Canceled), wait: l.Waiting}
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
	e.Stats, e.At = snk.Stats(), time.Now()
	err = errors.Join(err, l.RunEnded(ctx, e))
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
