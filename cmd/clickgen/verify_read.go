package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/verify/topics"
)

// verify reads topics: its errors speak of reading them from Kafka, never of a sink, and an
// interruption says how far the reading got (issue 31).

// verifyConnectError words a failed connection check of verify (not its interruption, which
// interruptedVerb words): what could not be read, and the flag that bounds the wait.
func verifyConnectError(v *verifyRun, err error) error {
	var ce *sink.ConnectError
	if hint := kafkaCauseHint(err); hint != "" {
		return fmt.Errorf("verify: cannot read topics %s and %s: %w (%s)", v.HitsTopic, v.OrdersTopic, err, hint)
	}
	if errors.As(err, &ce) && !ce.Interrupted {
		return fmt.Errorf("verify: cannot read topics %s and %s: %w (--connect-timeout)", v.HitsTopic, v.OrdersTopic, err)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("verify: cannot read topics %s and %s: %w", v.HitsTopic, v.OrdersTopic, sinkError(err))
}

// verifyReadInterrupted words verify's reading of the topics interrupted by a signal: which
// topic it was reading and how far, or that it had not begun; other errors are returned as
// they are.
func verifyReadInterrupted(v *verifyRun, err error) error {
	var re *topics.ReadError
	if errors.As(err, &re) {
		return interrupted("verify", err, " while reading topic %s: %d of %d expected messages read; nothing was judged", re.Topic, re.Read, re.Want)
	}
	return interrupted("verify", err, " while computing what run %s sends, before reading topics %s and %s", v.r.Name(), v.HitsTopic, v.OrdersTopic)
}
