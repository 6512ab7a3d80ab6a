package main

import (
	"context"

	"github.com/clickgen/clickgen/generator/session"
)

const snapshotHelp = `Send the shop backend's daily order snapshots into topic orders: for each run day X in
D … D+N−1, the snapshot of day X−1 (run day 0 sends nothing), as the stand's nightly export
does. A snapshot holds every order born in the last 7 days that has arrived, in its state at
counter midnight, one JSON message per order keyed by order_id, in ascending order_id. Each
model day a snapshot needs is generated once per call. The producer is flushed after every
snapshot.`

func runSnapshot(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if err := b.parse(args, sio.out, false); err != nil {
		return err
	}
	c, err := b.standConfig(sio)
	if err != nil {
		return err
	}
	return session.Play(ctx, c)
}
