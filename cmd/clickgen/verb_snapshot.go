package main

import (
	"context"

	"github.com/clickgen/clickgen/profiles"
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
	prof, segment, err := pf.parse(profiles.Snapshot(), args, sio.out, nil)
	if err != nil {
		return err
	}
	plan, err := pf.plan(ctx, prof, segment, profiles.PlanOptions{})
	if err != nil {
		return err
	}
	s, err := pf.start(ctx, sio, "orders", listenOpts{})
	if err != nil {
		return err
	}
	res, err := s.play(ctx, plan)
	return s.finish(ctx, res, err)
}
