package pace

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Schedule says when a message is due, as elapsed time since the start of pacing. n is the
// message's number (counted from 0) and model its model time past the first message's model
// time. ok is false when the schedule has ended and message n is not to be sent. A Schedule
// is a pure function: no clock, same answer for the same arguments.
type Schedule func(n uint64, model time.Duration) (due time.Duration, ok bool)

// ByCount returns the schedule of a rate shape: message n is due at p.Due(n), whatever its
// model time.
func ByCount(p Pacer) Schedule {
	return func(n uint64, _ time.Duration) (time.Duration, bool) { return p.Due(n) }
}

// DefaultSpeed is the replay speed of `clickgen live`: a model day in 24 real minutes.
const DefaultSpeed = 60

// Replay returns the schedule of model-time replay: a message whose model time is m past the
// first message's is due at m/speed, rounded to the nanosecond, whatever its number. speed is
// model seconds per real second (60 by default in live mode, 3600 plays a model hour in a
// second) and must be positive and finite, and at least [MinSpeed], so that a model day's
// schedule fits a time.Duration ([CheckReplay] checks longer spans). Model times should not
// decrease; a message whose model time is earlier than the first message's is due at once.
// The schedule ends (ok is false) only where m/speed no longer fits a time.Duration, about
// 292 years.
func Replay(speed float64) (Schedule, error) {
	if !(speed > 0) || math.IsInf(speed, 0) {
		return nil, fmt.Errorf("replay speed %v must be positive and finite", speed)
	}
	if err := CheckReplay(speed, 24*time.Hour); err != nil {
		return nil, err
	}
	return func(_ uint64, model time.Duration) (time.Duration, bool) {
		if model <= 0 {
			return 0, true
		}
		return fromNanos(float64(model) / speed)
	}, nil
}

// MinSpeed is the slowest replay speed [Replay] accepts: at it, a model day takes the longest
// time.Duration, about 292 years. At --speed 1e-9 the schedule ended after the first message
// and the run exited 0 as if its duration had run out.
const MinSpeed = float64(24*time.Hour) / maxDurationF

// CheckReplay reports whether replaying model time span at speed fits a time.Duration: a
// schedule that does not would end in the middle of the run.
func CheckReplay(speed float64, span time.Duration) error {
	if real := float64(span) / speed; !(real < maxDurationF) {
		years := real / float64(365.25*24*time.Hour)
		return fmt.Errorf("replay speed %v: %v of model time would take %.3g years, more than a time.Duration holds (292 years); want a speed of at least %.2g",
			speed, span, years, float64(span)/maxDurationF)
	}
	return nil
}

// ErrEnd is returned by [Runner.Wait] when the schedule has ended: the message it was asked
// about is not to be sent, nor any later one.
var ErrEnd = errors.New("pace: schedule ended")

// Snapshot is a Runner's progress as seen at one moment. Its fields are read one by one, so
// while the runner is running they may describe two neighbouring messages.
type Snapshot struct {
	Sent    uint64        // messages released by Wait so far
	Elapsed time.Duration // real time since the first Wait; 0 before it
	Model   time.Duration // model time of the last released message, exactly as given to Wait
	Lag     time.Duration // how long after its intended time the last message was released (its send-time error)
	MaxLag  time.Duration // the largest Lag so far
}

// Runner holds messages until their schedule says they are due. It is open-loop: the
// intended time of message n is start + due(n), fixed from the start, so a message that is
// already late is released at once, its lag is recorded, and the following messages go back
// to their own times instead of being shifted. The start is the moment of the first Wait.
//
// A Runner paces one run. Wait must be called from one goroutine at a time (the send loop);
// Snapshot may be called from any goroutine at any time.
type Runner struct {
	schedule Schedule
	limiter  *rate.Limiter
	every    time.Duration
	progress func(Snapshot)

	// Owned by the goroutine that calls Wait.
	started      bool
	start        time.Time
	firstModel   time.Duration
	timer        *time.Timer
	nextProgress time.Time
	maxLag       time.Duration

	// Read by Snapshot from any goroutine.
	startAt   atomic.Pointer[time.Time]
	sent      atomic.Uint64
	model     atomic.Int64
	lag       atomic.Int64
	maxLagPub atomic.Int64
}

// Opt configures a Runner.
type Opt func(*cfg)

type cfg struct {
	maxRate  Rate
	every    time.Duration
	progress func(Snapshot)
}

func defaultCfg() cfg { return cfg{} }

// WithMaxRate sets a ceiling of r messages per second on top of the schedule, overriding the
// default of no ceiling. The ceiling is a rate.Limiter with a burst of r/100 (10 ms worth,
// at least 1) waited on with the run's context for each message, so over any window of w
// seconds at most r·w + burst messages are released. Messages it holds back count as late.
// r = 0 leaves no ceiling; otherwise r must be positive, finite and at most 1e9/s.
func WithMaxRate(r Rate) Opt { return func(c *cfg) { c.maxRate = r } }

// WithProgress sets fn to be called with a Snapshot about every interval of real time,
// overriding the default of no progress calls. fn runs on the goroutine that calls Wait:
// while Wait sleeps it is called on time, while a send blocks it is called when the next
// Wait begins. It must return quickly and must not call Wait.
func WithProgress(every time.Duration, fn func(Snapshot)) Opt {
	return func(c *cfg) { c.every, c.progress = every, fn }
}

// NewRunner returns a runner for schedule s. It starts nothing: pacing starts with the first
// Wait.
func NewRunner(s Schedule, opts ...Opt) (*Runner, error) {
	if s == nil {
		return nil, errors.New("pace: no schedule")
	}
	c := defaultCfg()
	for _, o := range opts {
		o(&c)
	}
	r := &Runner{schedule: s}
	if c.maxRate != 0 {
		if err := checkRate("max rate", c.maxRate, false); err != nil {
			return nil, fmt.Errorf("pace: %w", err)
		}
		burst := max(1, int(math.Ceil(float64(c.maxRate)/100)))
		r.limiter = rate.NewLimiter(rate.Limit(c.maxRate), burst)
	}
	if c.progress != nil || c.every != 0 {
		if c.progress == nil || c.every <= 0 {
			return nil, fmt.Errorf("pace: progress wants a positive interval and a function, got %v", c.every)
		}
		r.every, r.progress = c.every, c.progress
	}
	return r, nil
}

// Wait blocks until the next message, whose model time is model, is due, and returns the
// time it was intended to go (start + due) so that a sink can measure latency from there
// rather than from the moment it was released. model is measured from any fixed origin, for
// example the model day's midnight; only its difference from the first message's matters.
//
// If the message is already due, Wait returns at once; the lateness is recorded as Lag.
// With a ceiling it then also waits for the rate limiter. It returns ctx.Err() as soon as
// ctx is done, and ErrEnd when the schedule has ended. A message counts as sent (Snapshot's
// Sent) when Wait returns it without error.
func (r *Runner) Wait(ctx context.Context, model time.Duration) (time.Time, error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
	}
	now := time.Now()
	if !r.started {
		r.started, r.start, r.firstModel = true, now, model
		r.nextProgress = now.Add(r.every)
		start := now
		r.startAt.Store(&start)
	}
	n := r.sent.Load()
	due, ok := r.schedule(n, model-r.firstModel)
	if !ok {
		return time.Time{}, ErrEnd
	}
	target := r.start.Add(due)
	for {
		r.tick(now)
		if !now.Before(target) {
			break
		}
		wake := target
		if r.progress != nil && r.nextProgress.Before(wake) {
			wake = r.nextProgress
		}
		if err := r.sleep(ctx, wake.Sub(now)); err != nil {
			return time.Time{}, err
		}
		now = time.Now()
	}
	if r.limiter != nil {
		if err := r.limiter.WaitN(ctx, 1); err != nil {
			return time.Time{}, limiterErr(ctx, err)
		}
		now = time.Now()
	}
	lag := max(0, now.Sub(target))
	r.lag.Store(int64(lag))
	if lag > r.maxLag {
		r.maxLag = lag
		r.maxLagPub.Store(int64(lag))
	}
	r.model.Store(int64(model))
	r.sent.Store(n + 1)
	return target, nil
}

// tick calls the progress function if its time has come, and moves its next time past now
// on the grid start + k·every, skipping ticks missed while a send blocked.
func (r *Runner) tick(now time.Time) {
	if r.progress == nil || now.Before(r.nextProgress) {
		return
	}
	r.progress(r.snapshotAt(now))
	missed := now.Sub(r.nextProgress) / r.every
	r.nextProgress = r.nextProgress.Add((missed + 1) * r.every)
}

// sleep waits for d on the runner's one timer, or until ctx is done.
func (r *Runner) sleep(ctx context.Context, d time.Duration) error {
	if r.timer == nil {
		r.timer = time.NewTimer(d)
	} else {
		r.timer.Reset(d)
	}
	select {
	case <-r.timer.C:
		return nil
	case <-ctx.Done():
		r.timer.Stop()
		return ctx.Err()
	}
}

// limiterErr turns the limiter's error into the run's. With n = 1 and a burst of at least 1
// the limiter fails only when ctx is done or when the next token comes after ctx's deadline;
// in that case no message could be released before the deadline anyway, so wait for it and
// end the way a run without a ceiling would.
func limiterErr(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	if _, ok := ctx.Deadline(); ok {
		<-ctx.Done()
		return ctx.Err()
	}
	return fmt.Errorf("pace: max rate: %w", err)
}

// Snapshot returns the runner's progress now. It is safe to call from any goroutine.
func (r *Runner) Snapshot() Snapshot { return r.snapshotAt(time.Now()) }

func (r *Runner) snapshotAt(now time.Time) Snapshot {
	s := Snapshot{
		Sent:   r.sent.Load(),
		Model:  time.Duration(r.model.Load()),
		Lag:    time.Duration(r.lag.Load()),
		MaxLag: time.Duration(r.maxLagPub.Load()),
	}
	if start := r.startAt.Load(); start != nil {
		s.Elapsed = now.Sub(*start)
	}
	return s
}

// Run is the send loop: for each message of msgs it waits with r until the message is due
// and then calls send with the message and its intended send time. model gives a message's
// model time for a [Replay] schedule; it may be nil for schedules by count. Run returns nil
// when msgs is exhausted or the schedule has ended, ctx.Err() when ctx is done (promptly,
// also in the middle of a wait), and send's error unchanged when send fails.
func Run[M any](ctx context.Context, r *Runner, msgs iter.Seq[M], model func(M) time.Duration, send func(m M, intended time.Time) error) error {
	for m := range msgs {
		var mt time.Duration
		if model != nil {
			mt = model(m)
		}
		at, err := r.Wait(ctx, mt)
		if errors.Is(err, ErrEnd) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := send(m, at); err != nil {
			return err
		}
	}
	return nil
}
