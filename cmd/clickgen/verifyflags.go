package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/reconcile"
)

// addVerifyFlags registers verify's own flags on fs, setting v, with the stand's defaults:
// topics hits (2 partitions) and orders (1), a 5 minute timeout, all cores. The segment is
// not a flag here.
func addVerifyFlags(fs *pflag.FlagSet, v *reconcile.Verify) {
	fs.StringVar(&v.HitsTopic, "hits-topic", reconcile.TopicHits, "topic the hits were sent to")
	fs.StringVar(&v.OrdersTopic, "orders-topic", reconcile.TopicOrders, "topic the order snapshots were sent to")
	fs.Int32Var(&v.HitPartitions, "hits-partitions", 2, "partition count the hits' keys were placed with (the stand's: 2)")
	fs.Int32Var(&v.OrderPartitions, "orders-partitions", 1, "partition count the orders' keys were placed with (the stand's: 1)")
	fs.DurationVar(&v.Timeout, "timeout", 5*time.Minute, "give up reading the topics after this long")
	fs.IntVar(&v.Workers, "workers", 0, "the expectation is computed on this many cores; 0 means all")
}

// checkVerify checks v (reconcile.Verify.Validate), naming the flags that set what it
// refuses.
func checkVerify(v *reconcile.Verify) error {
	err := v.Validate()
	switch {
	case errors.Is(err, reconcile.ErrTopicUnnamed):
		return errors.New("--hits-topic and --orders-topic must not be empty")
	case errors.Is(err, reconcile.ErrSameTopic):
		return fmt.Errorf("--hits-topic and --orders-topic are both %q", v.HitsTopic)
	case errors.Is(err, reconcile.ErrPartitions):
		return errors.New("--hits-partitions and --orders-partitions must be at least 1")
	case errors.Is(err, reconcile.ErrTimeout):
		return errors.New("--timeout must be positive")
	}
	return err
}

// verifyRunError words err, reconcile.Verify.Run's failure, for the command line: a topic
// with another partition count says which flag to change, running out of time names
// --timeout. Other errors stay as they are.
func verifyRunError(v *reconcile.Verify, err error) error {
	var pe *reconcile.PartitionsError
	var te *reconcile.TimeoutError
	switch {
	case errors.As(err, &pe):
		flag := map[string]string{v.HitsTopic: "--hits-partitions", v.OrdersTopic: "--orders-partitions"}[pe.Topic]
		return fmt.Errorf("verify: %w: if it was created so, say %s %d", pe, flag, pe.Has)
	case errors.As(err, &te):
		return fmt.Errorf("verify: %w (--timeout %v)", te.Err, te.Timeout)
	}
	return err
}
