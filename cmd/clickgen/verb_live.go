package main

import (
	"context"
	"fmt"
	"time"

	"github.com/clickgen/clickgen/generator/session"
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
	c, err := b.standConfig(sio)
	if err != nil {
		return err
	}
	c.Interval = b.v.interval
	return session.Play(ctx, c)
}

// checkEvery refuses a progress period below session.MinInterval, naming flag (run's
// --interval, live's --progress-every): the one wording of the floor.
func checkEvery(flag string, d time.Duration) error {
	if d < session.MinInterval {
		return fmt.Errorf("%s %v: want at least %v", flag, d, session.MinInterval)
	}
	return nil
}
