package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
)

// Verify is what `clickgen verify` reads back and how: the two topics, the partition counts
// their keys were placed with, the expectation's workers and segment ([Options]), and how
// long reading may take. [Verify.AddFlags] makes them flags; [Verify.Run] does the work.
type Verify struct {
	HitsTopic, OrdersTopic string
	Timeout                time.Duration
	Options
}

// AddFlags registers verify's own flags on fs, with the stand's defaults: topics hits (2
// partitions) and orders (1), a 5 minute timeout, all cores. The segment is not a flag here.
func (v *Verify) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&v.HitsTopic, "hits-topic", TopicHits, "topic the hits were sent to")
	fs.StringVar(&v.OrdersTopic, "orders-topic", TopicOrders, "topic the order snapshots were sent to")
	fs.Int32Var(&v.HitPartitions, "hits-partitions", 2, "partition count the hits' keys were placed with (the stand's: 2)")
	fs.Int32Var(&v.OrderPartitions, "orders-partitions", 1, "partition count the orders' keys were placed with (the stand's: 1)")
	fs.DurationVar(&v.Timeout, "timeout", 5*time.Minute, "give up reading the topics after this long")
	fs.IntVar(&v.Workers, "workers", 0, "the expectation is computed on this many cores; 0 means all")
}

// Validate checks the settings: two different, named topics, partition counts of at least
// 1 and a positive timeout. Errors name the flags.
func (v *Verify) Validate() error {
	switch {
	case v.HitsTopic == "" || v.OrdersTopic == "":
		return errors.New("--hits-topic and --orders-topic must not be empty")
	case v.HitsTopic == v.OrdersTopic:
		return fmt.Errorf("--hits-topic and --orders-topic are both %q", v.HitsTopic)
	case v.HitPartitions < 1 || v.OrderPartitions < 1:
		return errors.New("--hits-partitions and --orders-partitions must be at least 1")
	case v.Timeout <= 0:
		return errors.New("--timeout must be positive")
	}
	return nil
}

// Run builds the expectation of run days [from, from+n) of w with garbage g, reads both
// topics back from brokers (connection options opts) into it within the timeout, and returns
// the result. logf, if set, hears a line when the expectation is built and when each topic
// was read. When the result does not reconcile, Run returns it with an error that names the
// run and summarises the differences; a topic with another partition count, or a timeout,
// is an error that says which flag to change.
func (v *Verify) Run(ctx context.Context, w *world.World, from, n int, g world.Garbage, brokers []string, opts []sink.Opt,
	logf func(format string, args ...any)) (*Result, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	start := time.Now()
	e, err := Expect(ctx, w, from, n, g, v.Options)
	if err != nil {
		return nil, err
	}
	nh, no := e.Messages()
	logf("verify: run %s sends %d hits and %d orders (expectation built in %v)", RunDaysName(from, n), nh, no, time.Since(start).Round(time.Millisecond))
	rctx, cancel := context.WithTimeout(ctx, v.Timeout)
	defer cancel()
	c := e.NewChecker()
	err = c.ReadTopics(rctx, brokers, v.HitsTopic, v.OrdersTopic, opts, func(t string, got int64, took time.Duration) {
		if got < 0 {
			logf("verify: %s does not exist, and run %s sends nothing to it", t, RunDaysName(from, n))
			return
		}
		logf("verify: read %d messages of %s in %v", got, t, took.Round(time.Millisecond))
	})
	var pe *PartitionsError
	switch {
	case errors.As(err, &pe):
		flag := map[string]string{v.HitsTopic: "--hits-partitions", v.OrdersTopic: "--orders-partitions"}[pe.Topic]
		return nil, fmt.Errorf("verify: %w: if it was created so, say %s %d", err, flag, pe.Has)
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		return nil, fmt.Errorf("verify: %w (--timeout %v)", err, v.Timeout)
	case err != nil:
		return nil, fmt.Errorf("verify: %w", err)
	}
	r := c.Result()
	if !r.OK {
		return r, fmt.Errorf("verify: %s and %s differ from what run %s (seed %d) sends: %s",
			v.HitsTopic, v.OrdersTopic, RunDaysName(from, n), w.Seed(), r.Summary())
	}
	return r, nil
}

// RunDaysName names run days [from, from+n) for messages: "day 3 (2026-06-04)" or "days 3…5".
func RunDaysName(from, n int) string {
	if n == 1 {
		return fmt.Sprintf("day %d (%s)", from, world.DayDate(from))
	}
	return fmt.Sprintf("days %d…%d", from, from+n-1)
}
