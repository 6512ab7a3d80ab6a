package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/clickgen/clickgen/generator"
	"github.com/clickgen/clickgen/generator/sink"
)

// errLimit stops a run that reached --limit.
var errLimit = errors.New("limit reached")

func runBatch(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags("batch", "batch --day D [--days N] [--limit N] [--seed S] (--file PATH | --brokers HOSTS --topic T) [flags]",
		`Play model days D … D+N−1 into topic hits back to back, without pauses: one JSON message per
event, keyed by the decimal ClientID, in (UTCEventTime, WatchID) order. The producer is
flushed at the end of every day; any delivery failure ends the run with exit code 1 and names
the incomplete day. The bytes are a pure function of (seed, scale, catalog, day): the same
call writes the same bytes, and 'clickgen inventory' with the same flags says what they are.`)
	pf := addPlayFlags(fs, "number of days to play", true)
	limit := fs.Int("limit", 0, "stop after this many events in the whole run; 0 means no limit (env GENERATOR_LIMIT)")
	workers := fs.Int("workers", 0, "days are generated on this many cores; 0 means all")
	w, g, err := pf.parse(args, sio.out, func() error {
		if err := envFallback(fs, "limit", "GENERATOR_LIMIT"); err != nil {
			return err
		}
		if *limit < 0 {
			return usagef("batch", "--limit %d: want 0 (no limit) or more", *limit)
		}
		return nil
	})
	if err != nil {
		return err
	}
	p, topic, err := pf.start(ctx, sio, "hits")
	if err != nil {
		return err
	}
	err = playHits(ctx, p, w, topic, pf.days.day, pf.days.days, *limit, *workers, g)
	return p.finish(err, pf.sink.report)
}

// extraQueue interleaves a day's (or snapshot's) extras with its clean messages.
type extraQueue struct {
	extras []generator.Extra
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

// playHits sends the events of days [from, from+n) to topic, with the garbage and redeliveries
// of g interleaved, flushing after each day.
func playHits(ctx context.Context, p *player, w *generator.World, topic string, from, n, limit, workers int, g generator.Garbage) error {
	sent := 0
	var dayStart time.Time
	var dayBytes int64
	var q extraQueue
	var held []*generator.Batch // the day's batches, whose bytes the sink holds until the flush
	err := w.Play(ctx, from, n, generator.PlayOptions{Workers: workers}, func(b *generator.Batch) error {
		day := b.Day
		d := day.N
		held = append(held, b)
		if b.From == 0 {
			dayStart, dayBytes = time.Now(), 0
			p.prog.setLabel(fmt.Sprintf("day %d (%d of %d):", d, d-from+1, n))
			q = extraQueue{extras: day.HitExtras(g)}
		}
		for i := range b.Msgs {
			if limit > 0 && sent >= limit {
				return errLimit
			}
			if err := q.sendUpTo(ctx, p, topic, b.From+i, time.Time{}, uint32(d)); err != nil {
				return dayFailed(dayName(d), err)
			}
			v := b.Value(i)
			if err := p.snk.Send(ctx, sink.Message{Topic: topic, Key: b.Key(i), Value: v, Tag: uint32(d)}); err != nil {
				return dayFailed(dayName(d), err)
			}
			dayBytes += int64(len(v))
			sent++
		}
		if b.Last {
			if err := q.sendUpTo(ctx, p, topic, day.Len(), time.Time{}, uint32(d)); err != nil {
				return dayFailed(dayName(d), err)
			}
			produced := time.Since(dayStart)
			t := time.Now()
			if err := p.flush(); err != nil {
				return dayFailed(dayName(d), err)
			}
			for _, h := range held {
				h.Release() // acknowledged: the memory can render the next day
			}
			held = held[:0]
			extra := ""
			if len(q.extras) > 0 {
				extra = fmt.Sprintf(" + %d malformed or redelivered", len(q.extras))
			}
			p.prog.logf("%s: %d events%s, %.1f MB; generated and sent in %v, flushed in %v",
				dayName(d), day.Len(), extra, float64(dayBytes)/1e6, produced.Round(time.Millisecond), time.Since(t).Round(time.Millisecond))
		}
		return nil
	})
	if errors.Is(err, errLimit) {
		if err := p.flush(); err != nil {
			return dayFailed("the last day", err)
		}
		p.prog.logf("stopped at --limit %d events", limit)
		return nil
	}
	return err
}

func dayName(d int) string {
	return "day " + strconv.Itoa(d) + " (" + generator.DayDate(d).String() + ")"
}
