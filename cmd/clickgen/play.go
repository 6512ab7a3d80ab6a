package main

import (
	"context"
	"time"

	"github.com/clickgen/clickgen/generator/metrics/prom"
	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/sink"
)

// newPlayer starts a session playing into snk, printing on stderr (play.Session).
func newPlayer(sio *stdio, snk sink.Sink, flushTimeout time.Duration, total int) *play.Session {
	return play.NewSession(sio.err, snk, flushTimeout, total, 0, nil)
}

// playOn runs plan in session p, the metrics server (if any) hearing what happens too.
func playOn(ctx context.Context, p *play.Session, plan play.Plan) (play.Result, error) {
	return p.Play(ctx, plan, prom.Of(p.Sink).Observer(plan))
}
