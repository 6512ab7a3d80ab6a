package topics

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// Verify is what `clickgen verify` reads back and how: the two topics, the partition counts
// their keys were placed with and the expectation's workers ([Options]), how long reading may
// take, and where from. [Verify.Validate] checks the settings; [Verify.Run] reads and
// reconciles them with what a range of a world sends.
type Verify struct {
	HitsTopic, OrdersTopic string
	// Timeout bounds one read of the topics: a range checked in windows ([PlanWindows]) reads
	// them once per window, each within Timeout.
	Timeout time.Duration
	Options
	// Brokers are the Kafka bootstrap brokers the topics are read from, Conn the connection
	// options (TLS, SASL, timeouts; the brokers are given only here).
	Brokers []string
	Conn    []sink.Opt
	// Logf, if set, hears a line when the expectation is built and when each topic was read,
	// and, while a topic is read, how far: first after ProgressAfter, then every
	// ProgressEvery (0: [DefaultProgressAfter], [DefaultProgressEvery]).
	Logf                         func(format string, args ...any)
	ProgressAfter, ProgressEvery time.Duration
	// Strict says the topics must hold the range alone: a message of a model day outside it
	// is unexpected. Otherwise it is another run's, counted apart ([TopicResult.Other]) and
	// not judged, as a store check counts rows of other dates.
	Strict bool
}

// The default periods of [Verify]'s progress lines: reading 2 M messages takes over a minute,
// and a read that says nothing looks like a hang.
const (
	DefaultProgressAfter = time.Second
	DefaultProgressEvery = 5 * time.Second
)

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
	n := PlanWindows(w, r, v.Options)
	p := &verifyProgress{run: r.Name(), units: 2 * int64(r.Days), start: start}
	if r.From == 0 {
		p.units-- // no snapshot before day 0
	}
	p.units *= int64(n)
	p.windows = n
	stop := v.progress(p, logf)
	defer stop()
	var res *Result
	var err error
	if n == 1 {
		var e *Expectation
		if e, err = expect(ctx, w, r, v.Options, &p.built); err != nil {
			return nil, err
		}
		var c *Checker
		if c, err = v.read(ctx, e, p, logf, "", start); err == nil {
			res = c.Result()
		}
	} else {
		logf("verify: run %s is planned and read in %d windows, each the messages of one segment of %d (the topics are read %d times)", r.Name(), n, n, n)
		planned := start // when the window's planning began
		res, err = checkWindows(ctx, w, r, v.Options, n, v.Strict, &p.built, func(k int) { p.checker.Store(nil); p.window.Store(int32(k)); planned = time.Now() },
			func(k int, e *Expectation, c *Checker) error {
				_, err := v.read(ctx, e, p, logf, fmt.Sprintf("window %d of %d: ", k+1, n), planned, c)
				return err
			})
		if res == nil && err == nil {
			err = errors.New("verify: no result")
		}
	}
	stop()
	var pe *PartitionsError
	switch {
	case errors.As(err, &pe):
		return nil, fmt.Errorf("verify: %w: if it was created so, set its partition count to %d", err, pe.Has)
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		return nil, &TimeoutError{Timeout: v.Timeout, Err: err}
	case err != nil:
		return nil, fmt.Errorf("verify: %w", err)
	}
	if !res.OK {
		return res, fmt.Errorf("verify: %s and %s differ from what run %s (seed %d) sends: %s",
			v.HitsTopic, v.OrdersTopic, r.Name(), w.Seed(), res.Summary())
	}
	return res, nil
}

// read reads both topics back into a checker of e (c, when given: a window's), within the
// timeout, telling logf what it read; tag begins its lines (a window's number), and e was
// planned since planned.
func (v *Verify) read(ctx context.Context, e *Expectation, p *verifyProgress, logf func(string, ...any), tag string, planned time.Time, c ...*Checker) (*Checker, error) {
	r := e.Range
	nh, no := e.Messages()
	logf("verify: %srun %s sends %d hits and %d orders (expectation built in %v)", tag, r.Name(), nh, no, time.Since(planned).Round(time.Millisecond))
	rctx, cancel := context.WithTimeout(ctx, v.Timeout)
	defer cancel()
	ck := e.NewChecker()
	if len(c) > 0 {
		ck = c[0]
	}
	ck.strict = v.Strict
	deadline, _ := rctx.Deadline()
	p.deadline.Store(deadline.UnixNano())
	p.checker.Store(ck)
	err := ck.ReadTopics(rctx, v.Brokers, v.HitsTopic, v.OrdersTopic, v.Conn, func(t string, got int64, took time.Duration) {
		if got < 0 {
			logf("verify: %s%s does not exist, and run %s sends nothing to it", tag, t, r.Name())
			return
		}
		if o := ck.other[topicNamed(t, v.OrdersTopic)].Messages; o > 0 {
			logf("verify: %sread %d messages of %s in %v: %d of run %s, %d of other runs (%s, outside it; not judged)",
				tag, got+int64(o), t, took.Round(time.Millisecond), got, r.Name(), o, dayRanges(slices.Sorted(maps.Keys(ck.otherDays[topicNamed(t, v.OrdersTopic)]))))
			return
		}
		logf("verify: %sread %d messages of %s in %v", tag, got, t, took.Round(time.Millisecond))
	})
	return ck, err
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

// verifyProgress is how far a [Verify.Run] is: the units of the expectation built, then the
// checker reading the topics.
type verifyProgress struct {
	run     string
	units   int64 // the range's units: its days' hits and its snapshots
	start   time.Time
	built   atomic.Int64
	checker atomic.Pointer[Checker]
	// deadline is when reading the topics gives up (the Timeout), in Unix nanoseconds, set
	// before checker: a frozen broker kept the read's lines counting up with no end in sight.
	// Atomic: each window's read sets it again while the progress lines may still be telling
	// the window before.
	deadline atomic.Int64
	// windows is how many windows the range is checked in, window the one being planned
	// (from 0; see PlanWindows).
	windows int
	window  atomic.Int32
}

// step says which step the run is at ("" between steps), since when, and how far in words.
func (p *verifyProgress) step() (name string, since time.Time, line string) {
	c := p.checker.Load()
	if c == nil {
		if p.windows > 1 {
			return "expectation", p.start, fmt.Sprintf("verify: computing what run %s sends, window %d of %d: %d of %d days' hits and snapshots of all windows",
				p.run, p.window.Load()+1, p.windows, p.built.Load(), p.units)
		}
		return "expectation", p.start, fmt.Sprintf("verify: computing what run %s sends: %d of %d days' hits and snapshots", p.run, p.built.Load(), p.units)
	}
	if r, ok := c.Reading(); ok {
		other := ""
		if r.Other > 0 {
			other = fmt.Sprintf(", and %d of other runs", r.Other)
		}
		return r.Topic, time.Now().Add(-r.Took), fmt.Sprintf("verify: reading %s: %d of %d expected messages read%s (%v; gives up in %v)",
			r.Topic, r.Read, r.Want, other, r.Took.Round(time.Second), max(time.Until(time.Unix(0, p.deadline.Load())), 0).Round(time.Second))
	}
	return "", time.Time{}, ""
}

// progressPoll is how often a Verify looks at how far it is.
const progressPoll = 100 * time.Millisecond

// progress tells logf how far p is: for each step (building the expectation, reading each
// topic), first ProgressAfter into it, then every ProgressEvery; until the returned stop is
// called, which returns once no line is being told and may be called again.
func (v *Verify) progress(p *verifyProgress, logf func(string, ...any)) (stop func()) {
	after, every := cmp.Or(v.ProgressAfter, DefaultProgressAfter), cmp.Or(v.ProgressEvery, DefaultProgressEvery)
	poll := min(progressPoll, after, every)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(poll)
		defer t.Stop()
		var told string    // the step last told
		var next time.Time // when to tell it again
		for {
			select {
			case <-quit:
				return
			case now := <-t.C:
				name, since, line := p.step()
				switch {
				case name == "":
					continue
				case name != told:
					if now.Sub(since) < after {
						continue
					}
				case now.Before(next):
					continue
				}
				logf("%s", line)
				told, next = name, now.Add(every)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		<-done
	}
}

// topicNamed is the topic whose name is name, given the orders topic's name.
func topicNamed(name, ordersTopic string) topic {
	if name == ordersTopic {
		return orders
	}
	return hits
}
