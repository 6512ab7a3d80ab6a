package main

import (
	"context"
	"time"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/console"
	"github.com/clickgen/clickgen/generator/pace"
	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/profiles"
)

func runLive(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags("live", "live --day D [--speed X] [--seed S] (--file PATH | --brokers HOSTS --topic T) [flags]",
		`Play one model day into topic hits paced by model time: an event whose model time is t after
the day's first event is sent t/speed real seconds after the start (speed 60: a model day in
about 24 minutes, ~35 events/s on average, ~100 at peaks). Pacing is open-loop: a sender
that falls behind sends at once and reports the lag instead of slowing down. A progress line
about every 60 s says how far the day has played. The bytes are those of 'batch' for the
same day; only the timing differs.`)
	pf := addPlayFlags(fs, "", true)
	speed := fs.Float64("speed", pace.DefaultSpeed, "model seconds per real second (env GENERATOR_SPEED)")
	var maxRate pace.Rate
	addMaxRateFlag(fs, &maxRate, "a ceiling on top of the model-time schedule, e.g. 500/s")
	every := fs.Duration("progress-every", time.Minute, "how often to print a progress line (at least 100ms)")
	pf.sink.verdict = addVerdictFlags(fs)
	prof, segment, err := pf.parse(profiles.Live(), args, sio.out, func(env envLookup, o *profiles.Overrides) error {
		if err := setFromEnv(fs, env, "speed", "GENERATOR_SPEED"); err != nil {
			return err
		}
		o.Speed, o.MaxRate = speed, &maxRate
		return checkEvery("--progress-every", *every)
	})
	if err != nil {
		return err
	}
	var p *console.Printer // set before the run starts, which is when progress is reported
	var total int
	plan, err := pf.plan(ctx, prof, segment, profiles.PlanOptions{Workers: renderWorkers(0, pf.sink.Kafka()), ReplayEvery: *every,
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
	s, err := pf.start(ctx, sio, "hits", listenOpts{target: target, plan: plan})
	if err != nil {
		return err
	}
	p = s.console
	p.OnUnit = func(u play.Unit) { total = u.Clean }
	res, err := s.play(ctx, plan)
	return s.finish(ctx, res, err)
}
