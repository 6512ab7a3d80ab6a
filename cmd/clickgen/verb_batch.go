package main

import (
	"context"
	"strconv"

	"github.com/clickgen/clickgen/profiles"
)

const batchHelp = `Play model days D … D+N−1 into topic hits back to back, without pauses: one JSON message per
event, keyed by the decimal ClientID, in (UTCEventTime, WatchID) order. The producer is
flushed at the end of every day; any delivery failure ends the run with exit code 1 and names
the incomplete day. The bytes are a pure function of (seed, scale, catalog, day): the same
call writes the same bytes, and 'clickgen inventory' with the same flags says what they are.`

func runBatch(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if err := b.parse(args, sio.out, false); err != nil {
		return err
	}
	prof, segment, err := b.standProfile()
	if err != nil {
		return err
	}
	kafka := b.v.sink.Kafka()
	plan, err := b.plan(ctx, prof, segment, renderWorkers(b.v.workers, false), profiles.PlanOptions{Workers: renderWorkers(b.v.workers, kafka)})
	if err != nil {
		return err
	}
	s, err := b.start(ctx, sio, "hits", listenOpts{plan: plan})
	if err != nil {
		return err
	}
	s.console.LimitFlag = "--limit " + strconv.FormatInt(b.v.messages, 10)
	res, err := s.play(ctx, plan)
	return s.finish(ctx, res, err)
}
