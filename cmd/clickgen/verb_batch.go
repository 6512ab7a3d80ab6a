package main

import (
	"context"
	"os"
	"strconv"
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
	plan, err := pf.parse(args, sio.out, func() error {
		if err := setFromEnv(fs, os.LookupEnv, "limit", "GENERATOR_LIMIT"); err != nil {
			return usage("batch", err)
		}
		if err := checkWorkers("batch", *workers); err != nil {
			return err
		}
		pf.world.workers = renderWorkers(*workers, false)
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
	p.LimitFlag = "--limit " + strconv.Itoa(*limit)
	plan.Hits, plan.Stop.Messages, plan.Workers = topic, int64(*limit), renderWorkers(*workers, pf.sink.Kafka())
	_, err = playOn(ctx, p, plan)
	return p.Finish(err, pf.sink.report)
}
