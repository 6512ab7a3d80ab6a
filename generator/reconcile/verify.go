package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
)

// Verify is what `clickgen verify` reads back and how: the two topics, the partition counts
// their keys were placed with and the expectation's workers ([Options]), how long reading may
// take, and where from. [Verify.Validate] checks the settings; [Verify.Run] reads and
// reconciles them with what a range of a world sends.
type Verify struct {
	HitsTopic, OrdersTopic string
	Timeout                time.Duration
	Options
	// Brokers are the Kafka bootstrap brokers the topics are read from, Conn the connection
	// options (TLS, SASL, timeouts; the brokers are given only here).
	Brokers []string
	Conn    []sink.Opt
	// Logf, if set, hears a line when the expectation is built and when each topic was read.
	Logf func(format string, args ...any)
}

// The refusals of [Verify.Validate]: *field.Errors naming the settings by their field in
// Verify (HitsTopic, Timeout), so a caller says them in its own names (field.Say); errors.Is
// finds each. ErrSameTopic comes inside a *field.Error with the topic.
var (
	ErrTopicUnnamed = field.New("{HitsTopic|the hits} and {OrdersTopic|orders topics} must be named")
	ErrSameTopic    = field.New("the same as {HitsTopic|the hits topic}")
	ErrPartitions   = field.New("{HitPartitions|the hits'} and {OrderPartitions|orders' partition counts} must be at least 1")
	ErrTimeout      = field.New("{Timeout|the timeout} must be positive")
)

// Validate checks the settings: two different, named topics, partition counts of at least
// 1 and a positive timeout. The first refusal found is one of the Err values above.
func (v *Verify) Validate() error {
	switch {
	case v.HitsTopic == "" || v.OrdersTopic == "":
		return ErrTopicUnnamed
	case v.HitsTopic == v.OrdersTopic:
		return &field.Error{Field: "OrdersTopic", Words: "orders topic", Value: strconv.Quote(v.OrdersTopic), Err: ErrSameTopic}
	case v.HitPartitions < 1 || v.OrderPartitions < 1:
		return ErrPartitions
	case v.Timeout <= 0:
		return ErrTimeout
	}
	return nil
}

// Run builds the expectation of r, a range of w ([Expect]), reads both topics back from
// v.Brokers into it within the timeout, and returns the result. When the result does not
// reconcile, Run returns it with an error that names the run and summarises the differences;
// a topic with another partition count is an error wrapping a *[PartitionsError], and running
// out of time a *[TimeoutError].
func (v *Verify) Run(ctx context.Context, w *world.World, r world.Range) (*Result, error) {
	logf := v.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	start := time.Now()
	e, err := Expect(ctx, w, r, v.Options)
	if err != nil {
		return nil, err
	}
	nh, no := e.Messages()
	logf("verify: run %s sends %d hits and %d orders (expectation built in %v)", r.Name(), nh, no, time.Since(start).Round(time.Millisecond))
	rctx, cancel := context.WithTimeout(ctx, v.Timeout)
	defer cancel()
	c := e.NewChecker()
	err = c.ReadTopics(rctx, v.Brokers, v.HitsTopic, v.OrdersTopic, v.Conn, func(t string, got int64, took time.Duration) {
		if got < 0 {
			logf("verify: %s does not exist, and run %s sends nothing to it", t, r.Name())
			return
		}
		logf("verify: read %d messages of %s in %v", got, t, took.Round(time.Millisecond))
	})
	var pe *PartitionsError
	switch {
	case errors.As(err, &pe):
		return nil, fmt.Errorf("verify: %w: if it was created so, set its partition count to %d", err, pe.Has)
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		return nil, &TimeoutError{Timeout: v.Timeout, Err: err}
	case err != nil:
		return nil, fmt.Errorf("verify: %w", err)
	}
	res := c.Result()
	if !res.OK {
		return res, fmt.Errorf("verify: %s and %s differ from what run %s (seed %d) sends: %s",
			v.HitsTopic, v.OrdersTopic, r.Name(), w.Seed(), res.Summary())
	}
	return res, nil
}

// TimeoutError is [Verify.Run] running out of its Timeout while reading the topics; Err is
// what the read returned.
type TimeoutError struct {
	Timeout time.Duration
	Err     error
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("verify: %v (timeout %v)", e.Err, e.Timeout)
}

func (e *TimeoutError) Unwrap() error { return e.Err }
