package main

import (
	"context"
	"os"
	"time"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/console"
	"github.com/clickgen/clickgen/generator/pace"
	"github.com/clickgen/clickgen/generator/play"
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
	var schedule pace.Schedule
	var opts []pace.Opt
	plan, err := pf.parse(args, sio.out, func() error {
		if err := setFromEnv(fs, os.LookupEnv, "speed", "GENERATOR_SPEED"); err != nil {
			return usage("live", err)
		}
		var err error
		if schedule, err = pace.Replay(*speed); err != nil {
			return usagef("live", "--speed: %v", err)
		}
		if *every < console.MinProgressEvery {
			return usagef("live", "--progress-every %v: want at least %v", *every, console.MinProgressEvery)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if maxRate != 0 {
		// The ceiling is the whole run's: a segment takes its share.
		opts = append(opts, pace.WithMaxRate(maxRate/pace.Rate(max(1, plan.Segment.N))))
	}
	p, topic, err := pf.start(ctx, sio, "hits")
	if err != nil {
		return err
	}
	var total int
	var runner *pace.Runner
	opts = append(opts, pace.WithProgress(*every, func(s pace.Snapshot) {
		m := s.Model
		p.Logf("played %d of %d, model time %02d:%02d, lag %.1fs (max %.1fs)",
			s.Sent, total, int(m.Hours()), int(m.Minutes())%60, s.Lag.Seconds(), s.MaxLag.Seconds())
	}))
	if runner, err = pace.NewRunner(schedule, opts...); err != nil {
		return p.Finish(usagef("live", "%v", err), pf.sink.report)
	}
	p.OnUnit = func(u play.Unit) { total = u.Clean }
	plan.Hits, plan.Pacing.Runner, plan.Workers = topic, runner, renderWorkers(0, pf.sink.Kafka())
	_, err = playOn(ctx, p, plan)
	p.Target = float64(total) / (float64(24*time.Hour) / *speed / float64(time.Second))
	return p.Finish(err, pf.sink.report)
}
