package storefollow

import (
	"context"
	"fmt"
	"time"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// Observer is the follower as an observer of the run it follows (play.Observer): it hears
// every acknowledgement (play.HookAcked: some are sampled) and, at the run's end, waits for
// the sampled keys still unseen and adds its [Result] to the end (play.End.Add), where the
// measurement reads it (the report's store section, the store thresholds) and the console
// prints it. It reads no other observer.
func (f *Follower) Observer() play.Observer { return observer{f} }

type observer struct{ f *Follower }

func (o observer) RunStarted(play.Start) {}

// Acked hands the follower an acknowledgement, on the sink's acknowledgement goroutine.
func (o observer) Acked(a sink.Ack) {
	o.f.Acked(Ack{Topic: a.Topic, Due: a.Due, Intended: a.Intended, Warmup: a.Warmup, Value: a.Value})
}

// RunEnded waits for the sampled keys ([Follower.Finish]; the wait announced through e, a
// signal ending it) and adds the [Result] to e. Unseen keys do not fail the run: a threshold
// judges them. A wait a signal ended while the run itself was whole is an interrupted run.
func (o observer) RunEnded(ctx context.Context, e *play.End) error {
	res := o.f.Finish(ctx, e.Interrupted, func(unseen int, max time.Duration) {
		e.Wait(fmt.Sprintf("waiting for %d sampled message(s) to be readable from %s ({Timeout|the follow timeout})", unseen, field.Escape(o.f.Table().Name)), max)
	})
	e.Add(res)
	if res.Interrupted && !e.Interrupted {
		return fmt.Errorf("follow: the wait for the sampled messages to be readable from %s was interrupted after %.2fs: %w", res.Table, res.Waited.Seconds(), context.Canceled)
	}
	return nil
}
