package main

import (
	"context"
	"strconv"

	"github.com/clickgen/clickgen/generator/session"
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
	c, err := b.standConfig(sio)
	if err != nil {
		return err
	}
	c.LimitName = "--limit " + strconv.FormatInt(b.v.messages, 10)
	return session.Play(ctx, c)
}
