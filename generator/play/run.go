package play

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/clickgen/clickgen/generator/pace"
	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
)

// errStop ends the send loop when a stop condition is met: a clean end, not a failure.
var errStop = errors.New("stop condition reached")

// IncompleteError is a delivery failure of one unit: the unit was not delivered whole.
type IncompleteError struct {
	Unit Unit
	Err  error // a *sink.DeliveryError, possibly wrapped
}

func (e *IncompleteError) Error() string { return e.Unit.Name() + " is incomplete: " + e.Err.Error() }

func (e *IncompleteError) Unwrap() error { return e.Err }

// incomplete names u in a delivery failure; other errors (a cancelled context) pass as
// they are.
func incomplete(u Unit, err error) error {
	var de *sink.DeliveryError
	if errors.As(err, &de) {
		return &IncompleteError{Unit: u, Err: err}
	}
	return err
}

// Run plays plan into snk, reporting to obs (nil: nobody listens), and returns what it did.
// It returns the first error of the sink, a delivery failure as an [*IncompleteError]
// naming the unit, or ctx's error when ctx is done; in every case the Result says how far
// the run got. Run neither closes nor finally flushes the sink after an error: the caller
// decides (flush what was queued, report, close).
func Run(ctx context.Context, plan Plan, snk sink.Sink, obs Observer) (Result, error) {
	res := Result{FirstDay: plan.From, LastDay: plan.From - 1}
	if err := plan.Validate(); err != nil {
		return res, fmt.Errorf("play: %w", err)
	}
	if obs == nil {
		obs = nopObserver{}
	}
	if plan.FlushTimeout == 0 {
		plan.FlushTimeout = DefaultFlushTimeout
	}
	r := &runner{plan: plan, snk: snk, obs: obs, res: &res}
	r.extras, _ = obs.(ExtraObserver)
	if plan.Stop.Duration > 0 && !plan.Pacing.ByCount {
		// A rate shape is cut off exactly by pace.Until; other runs stop at a deadline.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, plan.Stop.Duration, errStop)
		defer cancel()
	}
	var book *world.OrderBook
	if plan.Orders != "" {
		book = world.NewOrderBook(plan.World)
	}
	var err error
	if plan.Hits != "" {
		err = r.hits(ctx, book)
	}
	if err == nil && plan.Orders != "" && res.Stopped == "" {
		err = r.snapshots(ctx, book)
	}
	if err != nil && ctx.Err() != nil && errors.Is(context.Cause(ctx), errStop) && !errors.Is(err, context.Canceled) {
		// The deadline of Stop.Duration, not an interruption.
		err = r.stop(StopDuration)
	}
	if err == nil && res.Stopped == "" {
		res.Stopped = StopDays
	}
	return res, err
}

// runner is the state of one Run.
type runner struct {
	plan Plan
	snk  sink.Sink
	obs  Observer
	res  *Result
	// extras hears each malformed message and re-send, when obs is an ExtraObserver.
	extras ExtraObserver
}

// extraSent tells the observer, if it listens, that extra e went to topic.
func (r *runner) extraSent(topic string, e *world.Extra) {
	if r.extras != nil {
		r.extras.ExtraSent(topic, e.Class)
	}
}

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
	if err := r.flush(); err != nil {
		return incomplete(Unit{Day: r.res.LastDay}, err)
	}
	r.obs.Stopped(reason, *r.res)
	return nil
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

// hits sends the hits of the run days with their garbage and re-sends interleaved.
func (r *runner) hits(ctx context.Context, book *world.OrderBook) error {
	plan, res := &r.plan, r.res
	n := plan.Days
	if n == 0 {
		n = math.MaxInt32 - plan.From
	}
	pacer := plan.Pacing.Runner
	flushDays := !plan.Pacing.ByCount
	origin := world.DayStartUTC(plan.From)
	var due time.Time
	var cur UnitResult
	var ended StopReason // set when a stop condition refuses the next message
	send := func(key, value []byte, model time.Duration, wait bool, tag uint32) error {
		if plan.Stop.Messages > 0 && res.Sent >= plan.Stop.Messages {
			ended = StopMessages
			return errStop
		}
		if pacer != nil && wait {
			var err error
			if due, err = pacer.Wait(ctx, model); err != nil {
				if errors.Is(err, pace.ErrEnd) {
					ended = r.scheduleEnd(pacer.Snapshot().Sent)
					return errStop
				}
				return err
			}
			cur.Lateness.Record(time.Since(due))
			if res.PacedFrom.IsZero() {
				res.PacedFrom = due
			}
		}
		if err := r.snk.Send(ctx, sink.Message{Topic: plan.Hits, Key: key, Value: value, Due: due, Tag: tag}); err != nil {
			return err
		}
		res.Sent++
		cur.Sent++
		res.LastDay = int(tag)
		return nil
	}
	var extras []world.Extra
	var next int // the next extra to send
	var start time.Time
	var held []*world.Batch // the day's batches, whose bytes the sink holds until the flush
	opt := world.PlayOptions{Workers: plan.Workers}
	if book != nil {
		opt.OnDay = book.Add
	}
	err := plan.World.Play(ctx, plan.From, n, opt, func(b *world.Batch) error {
		day := b.Day
		tag := uint32(day.N)
		if b.From == 0 {
			extras, next, start = day.HitExtras(plan.Garbage), 0, time.Now()
			cur = UnitResult{Unit: Unit{Kind: HitsUnit, Day: day.N, Clean: day.Len(), Extras: len(extras)}}
			r.obs.UnitStarted(cur.Unit)
		}
		if flushDays {
			held = append(held, b)
		}
		sendExtras := func(upTo int, model time.Duration) error {
			for ; next < len(extras) && extras[next].After <= upTo; next++ {
				if err := send(extras[next].Key, extras[next].Value, model, plan.Pacing.ByCount, tag); err != nil {
					return err
				}
				r.extraSent(plan.Hits, &extras[next])
			}
			return nil
		}
		var model time.Duration
		for i := range b.Msgs {
			model = time.Duration(b.Msgs[i].UTC-origin) * time.Second
			if err := sendExtras(b.From+i, model); err != nil {
				return incomplete(cur.Unit, err)
			}
			v := b.Value(i)
			if err := send(b.Key(i), v, model, true, tag); err != nil {
				return incomplete(cur.Unit, err)
			}
			cur.Bytes += int64(len(v))
		}
		if !b.Last {
			return nil
		}
		if err := sendExtras(day.Len(), model); err != nil {
			return incomplete(cur.Unit, err)
		}
		cur.Played = time.Since(start)
		if flushDays {
			t := time.Now()
			if err := r.flush(); err != nil {
				return incomplete(cur.Unit, err)
			}
			cur.Flushed, cur.Flush = true, time.Since(t)
			for _, b := range held {
				b.Release() // acknowledged: the memory can render the next day
			}
			held = held[:0]
		}
		r.obs.UnitDone(cur)
		return nil
	})
	if errors.Is(err, errStop) {
		return r.stop(ended)
	}
	if err == nil && !flushDays {
		// A rate-paced run does not flush per day; its last day must still be delivered.
		if err := r.flush(); err != nil {
			return incomplete(Unit{Day: res.LastDay}, err)
		}
	}
	return err
}

// snapshots sends the snapshots the run days send, with their garbage and re-sends
// interleaved, flushing after each.
func (r *runner) snapshots(ctx context.Context, book *world.OrderBook) error {
	plan := &r.plan
	for _, d := range world.SnapshotDays(plan.From, plan.Days) {
		if err := ctx.Err(); err != nil {
			return err
		}
		start := time.Now()
		rows, keys, err := book.SnapshotRows(d)
		if err != nil {
			return err
		}
		extras := plan.World.OrderExtras(d, rows, keys, plan.Garbage)
		cur := UnitResult{Unit: Unit{Kind: SnapshotUnit, Day: d, Clean: len(rows), Extras: len(extras)}}
		r.obs.UnitStarted(cur.Unit)
		next := 0
		sendExtras := func(upTo int) error {
			for ; next < len(extras) && extras[next].After <= upTo; next++ {
				e := &extras[next]
				if err := r.snk.Send(ctx, sink.Message{Topic: plan.Orders, Key: e.Key, Value: e.Value, Tag: uint32(d)}); err != nil {
					return incomplete(cur.Unit, err)
				}
				cur.Sent++
				r.extraSent(plan.Orders, e)
			}
			return nil
		}
		for i := range rows {
			if err := sendExtras(i); err != nil {
				return err
			}
			if err := r.snk.Send(ctx, sink.Message{Topic: plan.Orders, Key: keys[i], Value: rows[i], Tag: uint32(d)}); err != nil {
				return incomplete(cur.Unit, err)
			}
			cur.Sent++
			cur.Bytes += int64(len(rows[i]))
		}
		if err := sendExtras(len(rows)); err != nil {
			return err
		}
		cur.Played = time.Since(start)
		t := time.Now()
		if err := r.flush(); err != nil {
			return incomplete(cur.Unit, err)
		}
		cur.Flushed, cur.Flush = true, time.Since(t)
		book.Forget(d - 5) // later snapshots need births from d−5 on
		r.res.Snaps++
		r.obs.UnitDone(cur)
	}
	return nil
}
