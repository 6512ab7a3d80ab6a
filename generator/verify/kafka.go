package verify

import (
	"context"
	"errors"
	"fmt"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/topics"
)

// kafkaMemory caps the soft memory limit of verifying topics, as storeMemory does a store's.
// The world's limit is play's (1.7 GB at scale 100), which holds rendered batches in flight;
// verify holds the day's model while it plans, and the plan (about 64 bytes a message) while
// it reads, so under play's limit the collector let a ×100 day drift to the limit: 1.68 GB
// resident for a live heap that peaked at 806 MB (GODEBUG=gctrace=1, day 0 at scale 100,
// 5 180 936 messages: the model about 480 MB of it, the plan 330 MB). Smaller scales keep
// their own, lower limit.
const kafkaMemory = 1 << 30

// kafkaWindowMemory caps it when the range is checked in windows (topics.PlanWindows): what
// is live then is one window's plan (about 80 MB), one segment day's model and the reader's
// buffers, and the world's cohorts, which follow the scale, not the window: live at most
// 372 MB at scale 100 (cohorts 157 MB), 531 MB at scale 200. Under a limit below that, the
// collector ran without pause (34 650 collections, 450 s for a scale-200 day).
func kafkaWindowMemory(scale float64) int64 {
	return int64(250<<20 + scale*(7<<20)/4)
}

// runKafka reads the topics back and reconciles them with range r of world w: its errors
// speak of reading the topics from Kafka, never of a sink, and an interruption says how far
// the reading got (issue 31).
func (c *Config) runKafka(ctx context.Context, w *world.World, r world.Range) error {
	k := c.Kafka
	v := topics.Verify{HitsTopic: k.HitsTopic, OrdersTopic: k.OrdersTopic, Timeout: k.Timeout, Strict: k.Strict,
		Options: topics.Options{HitPartitions: k.HitPartitions, OrderPartitions: k.OrderPartitions, Workers: c.Workers}}
	if w := k.Sink.ClearTextWarning(c.Names); w != "" {
		c.logf("%s", w)
	}
	var ce *sink.ConfigError
	if err := k.Sink.CheckConnect(ctx, c.connectNotice()); errors.As(err, &ce) {
		return field.Refuse(ce.Err)
	} else if err != nil {
		return c.connectError(err)
	}
	v.Brokers, v.Conn = k.Sink.Brokers, k.Sink.ConnOpts()
	v.Logf = c.logf
	res, err := v.Run(ctx, w, r)
	err = c.readInterrupted(r, c.runError(err))
	if res == nil {
		return err
	}
	// The table's failure (stdout closed: verify | head -1) is the verification's, and the
	// report still says the result and it.
	return errors.Join(c.publish(res), err)
}

// connectNotice is the sink option that says, once brokers have kept the connection check
// waiting for a second, what it waits for and how long at most (issue 31).
func (c *Config) connectNotice() sink.Opt {
	return sink.OnConnectWait(func(w sink.ConnectWait) {
		c.logf("waiting for Kafka at %s to answer, at most %v (%s; Ctrl-C stops)", w.Brokers, w.Bound, c.name("ConnectTimeout", "the connect timeout"))
	})
}

// connectError words a failed connection check (not its interruption, which the caller
// words): what could not be read, and the setting that bounds the wait.
func (c *Config) connectError(err error) error {
	k := c.Kafka
	var ce *sink.ConnectError
	if hint := sink.CauseHint(err, c.Names); hint != "" {
		return fmt.Errorf("verify: cannot read topics %s and %s: %w (%s)", k.HitsTopic, k.OrdersTopic, err, hint)
	}
	if errors.As(err, &ce) && !ce.Interrupted {
		return fmt.Errorf("verify: cannot read topics %s and %s: %w (%s)", k.HitsTopic, k.OrdersTopic, err, c.name("ConnectTimeout", "the connect timeout"))
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("verify: cannot read topics %s and %s: %w", k.HitsTopic, k.OrdersTopic, sink.Explain(err, c.Names))
}

// runError words err, topics.Verify.Run's failure: a topic with another partition count says
// which setting to change, running out of time names the timeout. Other errors stay as
// they are.
func (c *Config) runError(err error) error {
	k := c.Kafka
	var pe *topics.PartitionsError
	var te *topics.TimeoutError
	switch {
	case errors.As(err, &pe):
		key := map[string]string{k.HitsTopic: "HitPartitions", k.OrdersTopic: "OrderPartitions"}[pe.Topic]
		return fmt.Errorf("verify: %w: if it was created so, say %s %d", pe, c.name(key, "its partition count"), pe.Has)
	case errors.As(err, &te):
		return fmt.Errorf("verify: %w (%s %v)", te.Err, c.name("Timeout", "the timeout"), te.Timeout)
	}
	return err
}

// readInterrupted words the reading of the topics of run r interrupted by a signal: which
// topic it was reading and how far, or that it had not begun; other errors are returned as
// they are.
func (c *Config) readInterrupted(r world.Range, err error) error {
	var re *topics.ReadError
	if errors.As(err, &re) {
		return c.interrupted(err, " while reading topic %s: %d of %d expected messages read; nothing was judged", re.Topic, re.Read, re.Want)
	}
	return c.interrupted(err, " while computing what run %s sends, before reading topics %s and %s", r.Name(), c.Kafka.HitsTopic, c.Kafka.OrdersTopic)
}
