package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/clickgen/clickgen/generator/metrics"
	"github.com/clickgen/clickgen/generator/pace"
	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
)

// errStop ends the send loop when a stop condition is met: a clean end, not a failure.
var errStop = errors.New("stop condition reached")

// hitsRun says how the hits of a range of model days are sent: batch, live and run all play
// them through it.
type hitsRun struct {
	topic     string
	from, n   int // run days [from, from+n); n == 0 plays on until a stop condition
	limit     int64
	limitFlag string // how the user set limit, for the message that says the run stopped there
	workers   int
	garbage   world.Garbage
	// runner paces the messages (nil: as fast as the sink takes them). Events wait for their
	// due time; extras wait their turn too when byCount (a rate shape counts every message),
	// otherwise they ride with the event before them (model-time replay).
	runner  *pace.Runner
	byCount bool
	// flushDays flushes after every day (the stand's rule); a rate-paced stress run flushes at
	// the end only, so the pace never stalls at day boundaries.
	flushDays bool
	// book, if set, receives every generated day, so snapshots need not generate it again.
	book *world.OrderBook
	// onDay, if set, is called on the sending goroutine before a day's first message.
	onDay func(*world.Day)
}

// hitsOutcome is what the send loop did.
type hitsOutcome struct {
	stopped   string // "duration" or "messages" when a stop condition cut the run short
	sent      int64  // hit messages sent (events, garbage and redeliveries)
	firstDay  int
	lastDay   int       // the last model day with a message sent; firstDay−1 if none
	pacedFrom time.Time // intended time of the first paced message
}

// play sends the hits with the garbage and redeliveries of h.garbage interleaved and reports
// per day on stderr. A stop condition (limit, or a paced schedule that ends) is a clean end.
func (h *hitsRun) play(ctx context.Context, p *player, w *world.World) (hitsOutcome, error) {
	out := hitsOutcome{firstDay: h.from, lastDay: h.from - 1}
	n := h.n
	if n == 0 {
		n = math.MaxInt32 - h.from
	}
	origin := world.DayStartUTC(h.from)
	var due time.Time
	var lateness metrics.Histogram // how late each paced message left against its intended time
	send := func(key, value []byte, model time.Duration, wait bool, tag uint32) error {
		if h.limit > 0 && out.sent >= h.limit {
			return errStop
		}
		if h.runner != nil && wait {
			var err error
			if due, err = h.runner.Wait(ctx, model); err != nil {
				if errors.Is(err, pace.ErrEnd) {
					return errStop
				}
				return err
			}
			lateness.Record(time.Since(due))
			if out.pacedFrom.IsZero() {
				out.pacedFrom = due
			}
		}
		if err := p.snk.Send(ctx, sink.Message{Topic: h.topic, Key: key, Value: value, Due: due, Tag: tag}); err != nil {
			return err
		}
		out.sent++
		out.lastDay = int(tag)
		return nil
	}
	var q extraQueue
	var dayStart time.Time
	var daySent int64
	var dayBytes int64
	var held []*world.Batch // the day's batches, whose bytes the sink holds until the flush
	workers := h.workers
	if _, kafka := p.snk.(*sink.Kafka); workers == 0 && kafka {
		// The Kafka client (compression, record encoding) needs a core of its own: rendering on
		// every core made the whole path ~10 % slower than rendering on all but one.
		workers = max(1, runtime.GOMAXPROCS(0)-1)
	}
	opt := world.PlayOptions{Workers: workers}
	if h.book != nil {
		opt.OnDay = h.book.Add
	}
	err := w.Play(ctx, h.from, n, opt, func(b *world.Batch) error {
		day := b.Day
		d, tag := day.N, uint32(day.N)
		if b.From == 0 {
			dayStart, daySent, dayBytes = time.Now(), out.sent, 0
			p.prog.setLabel(fmt.Sprintf("day %d:", d))
			extras, err := day.HitExtrasContext(ctx, h.garbage)
			if err != nil {
				return err
			}
			q = extraQueue{extras: extras}
			if h.onDay != nil {
				h.onDay(day)
			}
		}
		if h.flushDays {
			held = append(held, b)
		}
		sendExtras := func(upTo int, model time.Duration) error {
			for ; q.next < len(q.extras) && q.extras[q.next].After <= upTo; q.next++ {
				e := &q.extras[q.next]
				if err := send(e.Key, e.Value, model, h.byCount, tag); err != nil {
					return err
				}
			}
			return nil
		}
		var model time.Duration
		for i := range b.Msgs {
			model = time.Duration(b.Msgs[i].UTC-origin) * time.Second
			if err := sendExtras(b.From+i, model); err != nil {
				return dayFailed(dayName(d), err)
			}
			v := b.Value(i)
			if err := send(b.Key(i), v, model, true, tag); err != nil {
				return dayFailed(dayName(d), err)
			}
			dayBytes += int64(len(v))
		}
		if !b.Last {
			return nil
		}
		if err := sendExtras(day.Len(), model); err != nil {
			return dayFailed(dayName(d), err)
		}
		played := time.Since(dayStart)
		if !h.flushDays {
			p.prog.logf("%s: %d messages released in %v", dayName(d), out.sent-daySent, played.Round(time.Millisecond))
			return nil
		}
		t := time.Now()
		if err := p.flush(); err != nil {
			return dayFailed(dayName(d), err)
		}
		for _, b := range held {
			b.Release() // acknowledged: the memory can render the next day
		}
		held = held[:0]
		line := fmt.Sprintf("%s: %d events", dayName(d), day.Len())
		if len(q.extras) > 0 {
			line += fmt.Sprintf(" + %d malformed or redelivered", len(q.extras))
		}
		line += fmt.Sprintf(", %.1f MB; generated and sent in %v, flushed in %v", float64(dayBytes)/1e6,
			played.Round(time.Millisecond), time.Since(t).Round(time.Millisecond))
		if h.runner != nil && lateness.Count() > 0 {
			line += fmt.Sprintf("; send-time error p50 %v p99 %v max %v",
				round(lateness.Quantile(0.5)), round(lateness.Quantile(0.99)), round(lateness.Max()))
			lateness = metrics.Histogram{}
		}
		p.prog.logf("%s", line)
		return nil
	})
	if errors.Is(err, errStop) {
		if h.limit > 0 && out.sent >= h.limit {
			out.stopped = "messages"
		} else {
			out.stopped = "duration"
		}
		if err := p.flush(); err != nil {
			return out, dayFailed("the last day", err)
		}
		if out.stopped == "messages" && h.limitFlag != "" {
			p.prog.logf("stopped at %s %d after %d hit messages", h.limitFlag, h.limit, out.sent)
		} else {
			p.prog.logf("stopped at the %s limit after %d hit messages", out.stopped, out.sent)
		}
		return out, nil
	}
	if err == nil && !h.flushDays {
		// A rate-paced run does not flush per day; its last day must still be delivered.
		if err := p.flush(); err != nil {
			return out, dayFailed("the last day", err)
		}
	}
	return out, err
}

// extraQueue interleaves a day's (or snapshot's) extras with its clean messages.
type extraQueue struct {
	extras []world.Extra
	next   int
}

// sendUpTo sends the extras placed before clean message number clean.
func (q *extraQueue) sendUpTo(ctx context.Context, p *player, topic string, clean int, due time.Time, tag uint32) error {
	for ; q.next < len(q.extras) && q.extras[q.next].After <= clean; q.next++ {
		e := &q.extras[q.next]
		if err := p.snk.Send(ctx, sink.Message{Topic: topic, Key: e.Key, Value: e.Value, Due: due, Tag: tag}); err != nil {
			return err
		}
	}
	return nil
}
