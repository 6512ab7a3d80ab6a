package main

import (
	"context"
	"fmt"
	"time"

	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
)

func runSnapshot(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags("snapshot", "snapshot --day D [--days N] [--seed S] (--file PATH | --brokers HOSTS --topic orders) [flags]",
		`Send the shop backend's daily order snapshots into topic orders: for each run day X in
D … D+N−1, the snapshot of day X−1 (run day 0 sends nothing), as the stand's nightly export
does. A snapshot holds every order born in the last 7 days that has arrived, in its state at
counter midnight, one JSON message per order keyed by order_id, in ascending order_id. Each
model day a snapshot needs is generated once per call. The producer is flushed after every
snapshot.`)
	pf := addPlayFlags(fs, "number of run days", true)
	w, g, err := pf.parse(args, sio.out, nil)
	if err != nil {
		return err
	}
	p, topic, err := pf.start(ctx, sio, "orders")
	if err != nil {
		return err
	}
	err = playSnapshots(ctx, p, w, world.NewOrderBook(w), topic, pf.days.day, pf.days.days, g)
	return p.finish(err, pf.sink.report)
}

// playSnapshots sends the snapshots that run days [from, from+n) send, with the garbage and
// redeliveries of g interleaved, flushing after each.
func playSnapshots(ctx context.Context, p *player, w *world.World, book *world.OrderBook, topic string, from, n int, g world.Garbage) error {
	for _, d := range world.SnapshotDays(from, n) {
		if err := ctx.Err(); err != nil {
			return err
		}
		start := time.Now()
		p.prog.setLabel(fmt.Sprintf("snapshot of day %d:", d))
		rows, keys, err := book.SnapshotRows(d)
		if err != nil {
			return err
		}
		q := extraQueue{extras: w.OrderExtras(d, rows, keys, g)}
		built := time.Since(start)
		what := "snapshot of " + dayName(d)
		for i := range rows {
			if err := q.sendUpTo(ctx, p, topic, i, time.Time{}, uint32(d)); err != nil {
				return dayFailed(what, err)
			}
			if err := p.snk.Send(ctx, sink.Message{Topic: topic, Key: keys[i], Value: rows[i], Tag: uint32(d)}); err != nil {
				return dayFailed(what, err)
			}
		}
		if err := q.sendUpTo(ctx, p, topic, len(rows), time.Time{}, uint32(d)); err != nil {
			return dayFailed(what, err)
		}
		t := time.Now()
		if err := p.flush(); err != nil {
			return dayFailed(what, err)
		}
		book.Forget(d - 5) // later snapshots need births from d−5 on
		p.prog.logf("%s: %d rows (+%d malformed or redelivered); built in %v, flushed in %v", what, len(rows), len(q.extras),
			built.Round(time.Millisecond), time.Since(t).Round(time.Millisecond))
	}
	return nil
}
