package main

import (
	"context"
	"time"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/console"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/profiles"
)

const liveHelp = `Play one model day into topic hits paced by model time: an event whose model time is t after
the day's first event is sent t/speed real seconds after the start (speed 60: a model day in
about 24 minutes, ~35 events/s on average, ~100 at peaks). Pacing is open-loop: a sender
that falls behind sends at once and reports the lag instead of slowing down. A progress line
about every 60 s says how far the day has played. The bytes are those of 'batch' for the
same day; only the timing differs.`

func runLive(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if err := b.parse(args, sio.out, false); err != nil {
		return err
	}
	if err := checkEvery("--progress-every", b.v.interval); err != nil {
		return b.usage(err)
	}
	prof, segment, err := b.standProfile()
	if err != nil {
		return err
	}
	var p *console.Printer // set before the run starts, which is when progress is reported
	var total int
	plan, err := b.plan(ctx, prof, segment, 0, profiles.PlanOptions{Workers: renderWorkers(0, b.v.sink.Kafka()), ReplayEvery: b.v.interval,
		ReplayProgress: func(s pace.Snapshot) {
			m := s.Model
			p.Logf("played %d of %d, model time %02d:%02d, lag %.1fs (max %.1fs)",
				s.Sent, total, int(m.Hours()), int(m.Minutes())%60, s.Lag.Seconds(), s.MaxLag.Seconds())
		}})
	if err != nil {
		return err
	}
	// The target: the day's events over the real time the day takes at this speed.
	target := func() float64 {
		return float64(total) / (float64(24*time.Hour) / prof.Pacing.Speed / float64(time.Second))
	}
	s, err := b.start(ctx, sio, "hits", listenOpts{target: target, plan: plan})
	if err != nil {
		return err
	}
	p = s.console
	p.OnUnit = func(u play.Unit) { total = u.Clean }
	res, err := s.play(ctx, plan)
	return s.finish(ctx, res, err)
}
