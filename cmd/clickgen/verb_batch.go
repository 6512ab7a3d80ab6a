package main

import (
	"context"
	"strconv"

	"github.com/clickgen/clickgen/profiles"
)

func runBatch(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags("batch", "batch --day D [--days N] [--limit N] [--seed S] (--file PATH | --brokers HOSTS --topic T) [flags]",
		`Play model days D … D+N−1 into topic hits back to back, without pauses: one JSON message per
event, keyed by the decimal ClientID, in (UTCEventTime, WatchID) order. The producer is
flushed at the end of every day; any delivery failure ends the run with exit code 1 and names
the incomplete day. The bytes are a pure function of (seed, scale, catalog, day): the same
call writes the same bytes, and 'clickgen inventory' with the same flags says what they are.`)
	pf := addPlayFlags(fs, "number of days to play", true)
	limit := fs.Int("limit", 0, "stop after this many messages in the whole run (events, and garbage if any); 0 means no limit (env GENERATOR_LIMIT)")
	workers := fs.Int("workers", 0, "days are generated on this many cores; 0 means all")
	pf.sink.verdict = addVerdictFlags(fs)
	pf.names = map[string]string{"stop.messages": "--limit"}
	var messages int64
	prof, segment, err := pf.parse(profiles.Batch(), args, sio.out, func(env envLookup, o *profiles.Overrides) error {
		if err := setFromEnv(fs, env, "limit", "GENERATOR_LIMIT"); err != nil {
			return err
		}
		if err := checkWorkers("batch", *workers); err != nil {
			return err
		}
		pf.world.workers = renderWorkers(*workers, false)
		messages = int64(*limit)
		o.Messages = &messages
		return nil
	})
	if err != nil {
		return err
	}
	plan, err := pf.plan(ctx, prof, segment, profiles.PlanOptions{Workers: renderWorkers(*workers, pf.sink.Kafka())})
	if err != nil {
		return err
	}
	s, err := pf.start(ctx, sio, "hits", listenOpts{plan: plan})
	if err != nil {
		return err
	}
	s.console.LimitFlag = "--limit " + strconv.Itoa(*limit)
	res, err := s.play(ctx, plan)
	return s.finish(ctx, res, err)
}
