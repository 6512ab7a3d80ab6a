package play

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// errStop ends the send loop when a stop condition is met: a clean end, not a failure.
var errStop = errors.New("stop condition reached")

// IncompleteError is a delivery failure of one unit: the unit was not delivered whole.
type IncompleteError struct {
	Unit Unit
	Err  error // a *sink.DeliveryError or a sink.ErrIncomplete wait that timed out
}

func (e *IncompleteError) Error() string { return e.Unit.Name() + " is incomplete: " + e.Err.Error() }

func (e *IncompleteError) Unwrap() error { return e.Err }

// incomplete names u in a delivery failure; other errors (a cancelled context) pass as
// they are.
func incomplete(u Unit, err error) error {
	var de *sink.DeliveryError
	if errors.As(err, &de) || errors.Is(err, sink.ErrIncomplete) {
		return &IncompleteError{Unit: u, Err: err}
	}
	return err
}

// Run plays plan into snk, telling obs (nil: nobody listens) what it does from
// [Observer.RunStarted] on, and returns what it did. It returns the first error of the sink,
// a delivery failure as an [*IncompleteError] naming the unit, or ctx's error when ctx is
// done; in every case the Result says how far the run got. Run neither closes nor finally
// flushes the sink after an error, nor tells the observers the run's end: [Finish] does
// (flush what was queued, the observers' end work, close), or the caller its own way.
func Run(ctx context.Context, plan Plan, snk sink.Sink, obs Observer) (Result, error) {
	res := Result{FirstDay: plan.From, LastDay: plan.From - 1}
	if err := plan.Validate(); err != nil {
		return res, fmt.Errorf("play: %w", err)
	}
	if plan.FlushTimeout == 0 {
		plan.FlushTimeout = DefaultFlushTimeout
	}
	r := &runner{plan: plan, snk: snk, obs: Observers(obs), res: &res}
	r.obs.RunStarted(Start{Plan: plan, At: time.Now(), Stats: snk.Stats})
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	r.cancel = cancel
	defer r.stopTimer()
	if plan.Stop.Duration > 0 && !plan.Pacing.ByCount {
		// A rate shape is cut off by pace.Until (and a timer from its first message, see
		// send); other runs stop at a deadline from now.
		r.timer = time.AfterFunc(plan.Stop.Duration, r.durationEnded)
	}
	err := r.units(runCtx)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(runCtx), errStop) {
		// The wall-clock end of Stop.Duration, not an interruption.
		err = r.stop(StopDuration)
	}
	if err == nil && res.Stopped == "" {
		res.Stopped = StopDays
	}
	return res, err
}

// runner is the state of one Run.
type runner struct {
	plan   Plan
	snk    sink.Sink
	obs    *List
	res    *Result
	origin int64                   // UTC second of the first run day's start: model time 0
	due    time.Time               // intended time of the latest paced message
	ended  StopReason              // the stop condition that refused the next message
	cancel context.CancelCauseFunc // ends the run with errStop when Stop.Duration runs out
	timer  *time.Timer             // fires cancel at the end of Stop.Duration
	warm   warmup                  // the warm-up, with Plan.Warmup
	// sendEnd is, for a run paced by count with Stop.Duration, the latest time the sink may
	// take a message: Duration and its grace after the first message was due.
	sendEnd time.Time
	end     ending
}

// warmup is a run's warm-up ([Plan.Warmup]) once it has begun: until is its end; over is set
// once a message without an intended time found the clock at or past until, after which the
// clock is not read again for the warm-up. (A timer set over at until: it fired only when the
// scheduler ran it, and an unpaced run had handed over its first batch, ~1 000 messages, to a
// warm-up of 1ns by then.)
type warmup struct {
	until time.Time
	over  atomic.Bool
}

// inWarmup says whether the message to be sent next belongs to the warm-up: due is its
// intended send time, zero for a message that has none. The warm-up begins with the first
// message that has an intended time in a paced run (everything before belongs to it), with
// the first message of an unpaced run; a message without an intended time belongs to it when
// it is handed over before its end, by the clock, read for each such message until the end.
func (r *runner) inWarmup(due time.Time) bool {
	d := r.plan.Warmup
	if d <= 0 {
		return false
	}
	w := &r.warm
	if w.until.IsZero() {
		if due.IsZero() && r.plan.Pacing.Runner != nil {
			return true // before the pacing began: the run's setup is its warm-up's
		}
		if due.IsZero() {
			due = time.Now()
		}
		w.until = due.Add(d)
		r.res.WarmupUntil = w.until
		return true // the first message begins the warm-up (d > 0)
	}
	if !due.IsZero() {
		return due.Before(w.until)
	}
	if w.over.Load() {
		return false
	}
	if time.Now().Before(w.until) {
		return true
	}
	w.over.Store(true)
	return false
}

// durationGrace is how long past Stop.Duration a rate-paced run may go while it releases
// messages that were due before the end but left late (the sink could not keep up): 1 % of
// the duration, at least 50 ms and at most a second. The duration is a wall-clock promise.
func durationGrace(d time.Duration) time.Duration {
	return min(max(d/100, 50*time.Millisecond), time.Second)
}

// stopTimer stops the duration's timer, if any.
func (r *runner) stopTimer() {
	if r.timer != nil {
		r.timer.Stop()
	}
}

// extraSent tells the observer that extra e went to topic.
func (r *runner) extraSent(topic string, e *world.Extra) { r.obs.ExtraSent(topic, e.Class) }

// flush waits for every message sent so far with the plan's flush timeout, not ctx: an
// interrupted run still gets the chance to deliver what it queued.
func (r *runner) flush() error {
	ctx, cancel := context.WithTimeout(context.Background(), r.plan.FlushTimeout)
	defer cancel()
	return r.snk.Flush(ctx)
}

// stop ends the run cleanly for reason: what was sent is flushed and the observer told.
func (r *runner) stop(reason StopReason) error {
	r.res.Stopped = reason
	if err := r.finalFlush(); err != nil {
		return incomplete(Unit{Day: r.res.LastDay}, err)
	}
	r.obs.Stopped(reason, *r.res)
	return nil
}

// finalFlush is the flush that ends the run (begun when the sending ended, or now), timed
// from the end of the sending: Result.SendingEnded, Result.FinalFlush.
//
// A flush that lasts a second is told to the observer (slow brokers, much in flight): what
// it waits for, and how long at most.
func (r *runner) finalFlush() error {
	r.end.begin(r.flush) // unless the sending ended already, and its flush begun
	notice := time.NewTimer(time.Second)
	defer notice.Stop()
	var err error
	select {
	case err = <-r.end.done:
	case <-notice.C:
		if n := inFlight(r.snk.Stats()); n > 0 && r.obs != nil {
			r.obs.Waiting(fmt.Sprintf("flushing the %d message(s) in flight", n), r.plan.FlushTimeout-time.Since(r.end.at).Round(time.Second))
		}
		err = <-r.end.done
	}
	r.res.SendingEnded, r.res.FinalFlush = r.end.at, time.Since(r.end.at)
	return err
}

// scheduleEnd tells why the rate schedule ended after released messages.
func (r *runner) scheduleEnd(released uint64) StopReason {
	if sh := r.plan.Pacing.Shape; sh != nil {
		if _, ok := sh.Due(released); !ok {
			return StopSchedule
		}
	}
	return StopDuration
}

// units sends the planned units of the run (world.Units: the same sequence the inventory
// counts and verify expects) one after the other.
func (r *runner) units(ctx context.Context) error {
	plan := &r.plan
	// Unless paced by count, a day is flushed before its memory is released (see hits): its
	// extras are then made in memory used again from day to day.
	opt := world.UnitOptions{Workers: plan.Workers, ReuseExtras: !plan.Pacing.ByCount}
	if plan.Hits != "" {
		opt.Parts |= world.Hits
	}
	if plan.Orders != "" {
		opt.Parts |= world.Snapshots
	}
	r.origin = world.DayStartUTC(plan.From)
	// An endless plan plays until a stop condition (hits only, see Validate), or the last
	// model day.
	for u, err := range plan.World.Units(ctx, plan.played(), opt) {
		if err == nil {
			if u.Kind == world.HitsUnit {
				err = r.hits(ctx, u)
			} else {
				err = r.snapshot(ctx, u)
			}
		}
		if errors.Is(err, errStop) {
			return r.stop(r.ended)
		}
		if err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err // the units stopped early
	}
	if plan.Days == 0 {
		return r.stop(StopLastDay) // an endless run played the last model day
	}
	if plan.Pacing.ByCount && r.res.Sent > 0 {
		// A rate-paced run does not flush per day; its last day must still be delivered.
		if err := r.finalFlush(); err != nil {
			return incomplete(Unit{Day: r.res.LastDay}, err)
		}
	}
	return nil
}

// ending is the end of a run's sending, once a stop condition is met: when it was, and the
// final flush begun then, so that what is in flight is delivered while the generation winds
// down. The end of Stop.Duration begins it from its timer, which no send may wait past.
type ending struct {
	once sync.Once
	at   time.Time
	done chan error // the flush's result
}

// begin ends the sending now, unless it ended already, and begins flush.
func (e *ending) begin(flush func() error) {
	e.once.Do(func() {
		e.at, e.done = time.Now(), make(chan error, 1)
		go func() { e.done <- flush() }()
	})
}

// durationEnded ends a run's sending at the end of Stop.Duration: ctx's sends and waits end
// with errStop, and the final flush begins.
func (r *runner) durationEnded() {
	r.cancel(errStop)
	r.end.begin(r.flush)
}

// send hands one hit message to the sink: it first checks the message limit, then, when
// wait, waits for the message's due time (model is its model time since the run's first
// day). A stop condition is errStop, with r.ended saying which; the sending ends there.
func (r *runner) send(ctx context.Context, cur *UnitResult, key, value []byte, model time.Duration, wait bool, hold *sink.Hold) error {
	err := r.sendOne(ctx, cur, key, value, model, wait, hold)
	if errors.Is(err, errStop) {
		r.end.begin(r.flush)
	}
	return err
}

func (r *runner) sendOne(ctx context.Context, cur *UnitResult, key, value []byte, model time.Duration, wait bool, hold *sink.Hold) error {
	plan, res := &r.plan, r.res
	if plan.Stop.Messages > 0 && res.Sent >= plan.Stop.Messages {
		r.ended = StopMessages
		return errStop
	}
	if pacer := plan.Pacing.Runner; pacer != nil && wait {
		var err error
		if r.due, err = pacer.Wait(ctx, model); err != nil {
			if errors.Is(err, pace.ErrEnd) && !plan.Pacing.ByCount {
				// A model-time schedule ends only where its due time no longer fits a
				// time.Duration: the run cannot go on, and it did not end by a condition.
				return fmt.Errorf("the replay schedule ends at model time %v: its due time no longer fits a time.Duration (pace.CheckReplay)", model)
			}
			if errors.Is(err, pace.ErrEnd) {
				r.ended = r.scheduleEnd(pacer.Snapshot().Sent)
				return errStop
			}
			return err
		}
		now := time.Now()
		if res.PacedFrom.IsZero() {
			res.PacedFrom = r.due
			if d := plan.Stop.Duration; d > 0 && plan.Pacing.ByCount {
				// The shape is cut at d; this ends a run that cannot keep up at d too: no
				// message is released after sendEnd, and one waiting for room in the sink
				// then is not sent (the timer ends its wait).
				r.sendEnd = r.due.Add(d + durationGrace(d))
				r.timer = time.AfterFunc(r.sendEnd.Sub(now), r.durationEnded)
			}
		}
		if !r.sendEnd.IsZero() && now.After(r.sendEnd) {
			r.ended = StopDuration // due before the end, but too late to be sent
			return errStop
		}
		cur.Lateness.Record(now.Sub(r.due))
	}
	m := sink.Message{Topic: plan.Hits, Key: key, Value: value, Due: r.due, Tag: uint32(cur.Day), Warmup: r.inWarmup(r.due), Hold: hold}
	if err := r.snk.Send(ctx, m); err != nil {
		return err
	}
	res.Sent++
	cur.Sent++
	res.LastDay = cur.Day
	return nil
}

// hits sends one day's hits with its garbage and re-sends interleaved: an extra waits its
// turn when the plan is paced by count, otherwise it rides with the event before it. Unless
// paced by count, the day is flushed and only then are its batches released (the sink held
// their bytes until acknowledged).
func (r *runner) hits(ctx context.Context, u *world.Unit) error {
	plan := &r.plan
	cur := UnitResult{Unit: unitOf(u)}
	r.obs.UnitStarted(cur.Unit)
	start := time.Now()
	flushDay := !plan.Pacing.ByCount
	var held []*world.Batch
	var model time.Duration
	clean := 0
	sendExtras := func(at int) error {
		xs := u.ExtrasAt(at)
		for i := range xs {
			if err := r.send(ctx, &cur, xs[i].Key, xs[i].Value, model, plan.Pacing.ByCount, nil); err != nil {
				return err
			}
			r.extraSent(plan.Hits, &xs[i])
		}
		return nil
	}
	heldBytes := 0
	keeps := flushDay && sink.KeepsHolds(r.snk)
	var holds []*sink.Hold // with keeps: holds[i] counts what the sink holds of held[i]
	for b := range u.Batches() {
		var hold *sink.Hold
		if flushDay {
			if keeps {
				// Release, oldest first, the batches the sink no longer refers to: the
				// day's memory follows the acknowledgements, and the pipeline never stalls
				// for it (a flush empties it: with one broker that was 8 waits of 10–60 ms
				// in 8 days, which the sender of pre-built bytes does not make).
				n := 0
				for n < len(held) && holds[n].Done() {
					heldBytes -= len(held[n].Data) // before Release: a renderer may take it at once
					held[n].Release()
					n++
				}
				held, holds = slices.Delete(held, 0, n), slices.Delete(holds, 0, n)
			}
			if heldBytes >= FlushWindow {
				// Bound what the day holds: flush what was sent and release it. The day is
				// still complete only after its last flush, below.
				if err := r.flushPart(&cur); err != nil {
					return err
				}
				for _, h := range held {
					h.Release()
				}
				held, holds, heldBytes = held[:0], holds[:0], 0
			}
			held = append(held, b)
			heldBytes += len(b.Data)
			if keeps {
				hold = new(sink.Hold)
				holds = append(holds, hold)
			}
		}
		for i := range b.Msgs {
			model = time.Duration(b.Msgs[i].UTC-r.origin) * time.Second
			if err := sendExtras(b.From + i); err != nil {
				return incomplete(cur.Unit, err)
			}
			v := b.Value(i)
			if err := r.send(ctx, &cur, b.Key(i), v, model, true, hold); err != nil {
				return incomplete(cur.Unit, err)
			}
			cur.Bytes += int64(len(v))
		}
		clean += len(b.Msgs)
	}
	if clean < u.Len {
		return ctx.Err() // generation stopped; World.Units yields why next
	}
	if err := sendExtras(u.Len); err != nil {
		return incomplete(cur.Unit, err)
	}
	cur.Played = time.Since(start)
	if flushDay {
		if err := r.flushUnit(&cur); err != nil {
			return err
		}
		for _, b := range held {
			b.Release() // acknowledged: the memory can render the next day
		}
		u.ReleaseExtras() // acknowledged too: the memory can make the next day's
	}
	r.obs.UnitDone(cur)
	return nil
}

// snapshot sends one snapshot with its garbage and re-sends interleaved, then flushes it.
func (r *runner) snapshot(ctx context.Context, u *world.Unit) error {
	topic := r.plan.Orders
	cur := UnitResult{Unit: unitOf(u)}
	r.obs.UnitStarted(cur.Unit)
	start := time.Now()
	send := func(key, value []byte) error {
		m := sink.Message{Topic: topic, Key: key, Value: value, Tag: uint32(u.Day), Warmup: r.inWarmup(time.Time{})}
		if err := r.snk.Send(ctx, m); err != nil {
			return incomplete(cur.Unit, err)
		}
		cur.Sent++
		return nil
	}
	sendExtras := func(at int) error {
		xs := u.ExtrasAt(at)
		for i := range xs {
			if err := send(xs[i].Key, xs[i].Value); err != nil {
				return err
			}
			r.extraSent(topic, &xs[i])
		}
		return nil
	}
	for b := range u.Batches() {
		for i := range b.Msgs {
			if err := sendExtras(b.From + i); err != nil {
				return err
			}
			if err := send(b.Key(i), b.Value(i)); err != nil {
				return err
			}
			cur.Bytes += int64(len(b.Value(i)))
		}
	}
	if err := sendExtras(u.Len); err != nil {
		return err
	}
	cur.Played = time.Since(start)
	if err := r.flushUnit(&cur); err != nil {
		return err
	}
	r.res.Snaps++
	r.obs.UnitDone(cur)
	return nil
}

// FlushWindow is how many bytes of a day's rendered events a run not paced by count holds,
// into a sink that keeps no holds (sink.KeepsHolds: Kafka and files keep them), before it
// flushes the sink and releases them, within the day: without it a day's batches
// were held until the day's flush (600 MB at scale 10). A day is complete only after its
// last flush, as before.
const FlushWindow = 32 << 20

// flushPart flushes part of the unit being sent, adding the time to its flush time. A
// failure names the unit.
func (r *runner) flushPart(cur *UnitResult) error {
	t := time.Now()
	if err := r.flush(); err != nil {
		return incomplete(cur.Unit, err)
	}
	cur.Flush += time.Since(t)
	return nil
}

// flushUnit flushes the unit just sent, timing it.
func (r *runner) flushUnit(cur *UnitResult) error {
	t := time.Now()
	if err := r.flush(); err != nil {
		return incomplete(cur.Unit, err)
	}
	cur.Flushed = true
	cur.Flush += time.Since(t)
	return nil
}

// Inject sends extras to topic one at a time, each flushed (with the plan's flush timeout
// semantics: flushTimeout, not ctx) before the next, and tells sent where each landed
// (partition −1 when the sink does not say). tag is the model day the extras derive from.
// A delivery failure names the message that was not delivered. obs (nil: nobody) hears the
// run start, with an empty plan; [Finish] ends it as it ends a Run.
func Inject(ctx context.Context, snk sink.Sink, obs Observer, topic string, tag int, extras []world.Extra, flushTimeout time.Duration,
	sent func(i int, x *world.Extra, partition int32)) error {
	r := &runner{plan: Plan{FlushTimeout: cmp.Or(flushTimeout, DefaultFlushTimeout)}, snk: snk}
	if obs != nil {
		obs.RunStarted(Start{Plan: r.plan, At: time.Now(), Stats: snk.Stats})
	}
	for i := range extras {
		x := &extras[i]
		before := maps.Clone(snk.Stats().Topics[topic].Partitions)
		if err := snk.Send(ctx, sink.Message{Topic: topic, Key: x.Key, Value: x.Value, Tag: uint32(tag)}); err != nil {
			return err
		}
		if err := r.flush(); err != nil {
			return fmt.Errorf("message %d of %d (%s %s) not delivered: %w", i+1, len(extras), x.Class, x.Kind, err)
		}
		part := int32(-1)
		for p, n := range snk.Stats().Topics[topic].Partitions {
			if n > before[p] {
				part = p
			}
		}
		if sent != nil {
			sent(i, x, part)
		}
	}
	return nil
}
