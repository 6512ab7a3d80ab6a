package pace

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Pacer is a rate shape as a pure function: it never reads a clock, and the same n always
// gives the same answer. Implementations in this package are immutable and safe for
// concurrent use.
type Pacer interface {
	// Due returns the elapsed time since the start of pacing at which message n (counted
	// from 0) is due, to the nanosecond. It is the inverse of the shape's cumulative count:
	// message n is due when the count of messages the shape has allowed reaches n, so
	// Due(0) is the start of the first non-zero rate. ok is false when the shape never
	// sends message n (its rate has dropped to zero for good, it was cut off by [Until],
	// or the time does not fit a time.Duration); then it is false for every larger n too.
	// Due is non-decreasing in n.
	Due(n uint64) (due time.Duration, ok bool)

	// String returns the shape in the syntax of [ParseShape]; parsing it gives back an
	// equal shape (except for [Until], whose cut-off is not part of that syntax).
	String() string
}

// Constant returns a pacer of rate r: message n is due at n/r. r must be positive and at
// most 1e9/s.
func Constant(r Rate) (Pacer, error) {
	if err := checkRate("constant rate", r, false); err != nil {
		return nil, err
	}
	return constant{r: float64(r)}, nil
}

type constant struct{ r float64 }

func (c constant) Due(n uint64) (time.Duration, bool) { return fromSeconds(float64(n) / c.r) }
func (c constant) String() string                     { return "constant:" + Rate(c.r).String() }

// Ramp returns a pacer whose rate goes linearly from `from` to `to` over the duration over,
// then stays at `to`. Either rate may be zero but not both; a ramp down to zero ends after
// its last message. Due solves the quadratic of the cumulative count exactly.
func Ramp(from, to Rate, over time.Duration) (Pacer, error) {
	if err := checkRate("ramp start rate", from, true); err != nil {
		return nil, err
	}
	if err := checkRate("ramp end rate", to, true); err != nil {
		return nil, err
	}
	if from == 0 && to == 0 {
		return nil, errors.New("ramp from 0/s to 0/s sends nothing")
	}
	if err := checkDuration("ramp duration", over); err != nil {
		return nil, err
	}
	a, b, t := float64(from), float64(to), over.Seconds()
	return ramp{from: a, to: b, over: over, overS: t, slope: (b - a) / t, total: (a + b) * t / 2}, nil
}

type ramp struct {
	from, to float64       // messages per second at the start and at the end of the ramp
	over     time.Duration // length of the ramp
	overS    float64       // over in seconds
	slope    float64       // messages per second per second
	total    float64       // messages the ramp itself allows: (from+to)·over/2
}

func (r ramp) Due(n uint64) (time.Duration, bool) {
	x := float64(n)
	if x <= r.total {
		// Solve from·t + slope·t²/2 = x. 2x / (from + √(from² + 2·slope·x)) is the root
		// written without the cancellation of (−from + √…)/slope; it also holds for
		// slope = 0 (x/from) and from = 0 (√(2x/slope)).
		if n == 0 {
			return 0, true
		}
		t := 2 * x / (r.from + math.Sqrt(max(0, r.from*r.from+2*r.slope*x)))
		return fromSeconds(min(t, r.overS))
	}
	if r.to == 0 {
		return 0, false
	}
	after, ok := fromSeconds((x - r.total) / r.to)
	if !ok {
		return 0, false
	}
	return addDuration(r.over, after)
}

func (r ramp) String() string {
	return "ramp:" + Rate(r.from).String() + "-" + Rate(r.to).String() + ":" + r.over.String()
}

// Step is one piece of a [Steps] shape: Rate messages per second for the duration For.
type Step struct {
	Rate Rate          // messages per second during the step; 0 is a pause
	For  time.Duration // how long the step lasts; positive
}

// Steps returns a piecewise-constant pacer: each step's rate for its duration, in order.
// After the last step the last rate goes on for ever; end the shape with a zero-rate last
// step (or with [Until]) to stop there. A zero rate in the middle is a pause. At least one
// step must have a positive rate, and every duration must be positive.
func Steps(steps ...Step) (Pacer, error) {
	if len(steps) == 0 {
		return nil, errors.New("steps: no steps")
	}
	s := stepped{
		rate:   make([]float64, len(steps)),
		length: make([]time.Duration, len(steps)),
		start:  make([]time.Duration, len(steps)),
		count:  make([]float64, len(steps)+1),
	}
	var at time.Duration
	positive := false
	for i, st := range steps {
		if err := checkRate(fmt.Sprintf("step %d rate", i+1), st.Rate, true); err != nil {
			return nil, err
		}
		if err := checkDuration(fmt.Sprintf("step %d duration", i+1), st.For); err != nil {
			return nil, err
		}
		positive = positive || st.Rate > 0
		s.rate[i], s.length[i], s.start[i] = float64(st.Rate), st.For, at
		s.count[i+1] = s.count[i] + float64(st.Rate)*st.For.Seconds()
		var ok bool
		if at, ok = addDuration(at, st.For); !ok {
			return nil, errors.New("steps: total duration overflows")
		}
	}
	if !positive {
		return nil, errors.New("steps: every rate is zero, nothing would be sent")
	}
	s.end = at
	return s, nil
}

type stepped struct {
	rate   []float64       // messages per second of each step
	length []time.Duration // length of each step
	start  []time.Duration // elapsed time at which each step begins
	count  []float64       // count[i]: messages allowed before step i; count[len] after all
	end    time.Duration   // elapsed time at which the last step ends
}

func (s stepped) Due(n uint64) (time.Duration, bool) {
	x := float64(n)
	last := len(s.rate) - 1
	// The step that holds message n is the first whose cumulative count passes n; zero-rate
	// steps pass nothing, so they are skipped as they should be.
	i := sort.Search(len(s.rate), func(i int) bool { return s.count[i+1] > x })
	if i > last {
		if s.rate[last] == 0 {
			return 0, false
		}
		after, ok := fromSeconds((x - s.count[last+1]) / s.rate[last])
		if !ok {
			return 0, false
		}
		return addDuration(s.end, after)
	}
	in, ok := fromSeconds((x - s.count[i]) / s.rate[i])
	if !ok {
		return 0, false
	}
	return s.start[i] + min(in, s.length[i]), true
}

func (s stepped) String() string {
	var b strings.Builder
	b.WriteString("steps:")
	for i, r := range s.rate {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(Rate(r).String())
		b.WriteByte('@')
		b.WriteString(s.length[i].String())
	}
	return b.String()
}

// Sine returns a pacer of rate mean + amplitude·sin(2πt/period): it starts at the mean,
// peaks at period/4 and bottoms out at 3·period/4. amplitude must be between 0 and mean, so
// the rate never goes negative. Its cumulative count has a closed form; Due inverts it by
// bisection on whole nanoseconds (at most 64 steps) and returns the first nanosecond at
// which the count reaches n.
func Sine(mean, amplitude Rate, period time.Duration) (Pacer, error) {
	if err := checkRate("sine mean rate", mean, false); err != nil {
		return nil, err
	}
	if err := checkRate("sine amplitude", amplitude, true); err != nil {
		return nil, err
	}
	if amplitude > mean {
		return nil, fmt.Errorf("sine amplitude %s is above the mean %s: the rate would go negative", amplitude, mean)
	}
	if err := checkDuration("sine period", period); err != nil {
		return nil, err
	}
	return sine{mean: float64(mean), amp: float64(amplitude), period: period}, nil
}

type sine struct {
	mean, amp float64 // messages per second
	period    time.Duration
}

// count is the cumulative count at t: mean·t + amp·P/(2π)·(1 − cos(2πt/P)). The phase is
// taken from t mod P in integers, so it stays exact however long the run.
func (s sine) count(t time.Duration) float64 {
	p := s.period.Seconds()
	phase := 2 * math.Pi * float64(t%s.period) / float64(s.period)
	return s.mean*t.Seconds() + s.amp*p/(2*math.Pi)*(1-math.Cos(phase))
}

func (s sine) Due(n uint64) (time.Duration, bool) {
	if n == 0 {
		return 0, true
	}
	x := float64(n)
	// mean·t ≤ count(t) ≤ mean·t + amp·P/π brackets the answer within P/π.
	hi, ok := fromSeconds(x / s.mean)
	if !ok {
		return 0, false
	}
	lo, _ := fromSeconds((x - s.amp*s.period.Seconds()/math.Pi) / s.mean)
	lo = max(0, lo-1)
	if lo > 0 && s.count(lo) >= x {
		lo = 0
	}
	// Rounding can leave count(hi) a hair below x; widen until it is not.
	for i := 0; s.count(hi) < x; i++ {
		var ok bool
		if hi, ok = addDuration(hi, max(1, hi-lo)); !ok || i == 64 {
			return 0, false
		}
	}
	// Invariant: count(lo) < x ≤ count(hi), or lo = 0 (count(0) = 0 < x).
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if s.count(mid) >= x {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

func (s sine) String() string {
	return "sine:" + Rate(s.mean).String() + "±" + Rate(s.amp).String() + ":" + s.period.String()
}

// Until returns p cut off at the elapsed time end: messages due before end keep their times,
// the first message due at or after end (and every later one) is not sent. A constant rate r
// cut off at d sends r·d messages.
func Until(p Pacer, end time.Duration) (Pacer, error) {
	if p == nil {
		return nil, errors.New("until: no pacer")
	}
	if err := checkDuration("until", end); err != nil {
		return nil, err
	}
	return until{p: p, end: end}, nil
}

type until struct {
	p   Pacer
	end time.Duration
}

func (u until) Due(n uint64) (time.Duration, bool) {
	d, ok := u.p.Due(n)
	if !ok || d >= u.end {
		return 0, false
	}
	return d, true
}

func (u until) String() string { return u.p.String() + " until " + u.end.String() }

// Share returns share i of n of p, for n processes that pace p together: message k of the
// share is due when message k·n+i of p is. The n shares' due times are p's, interleaved,
// so each sends at p's rate divided by n and together they send p's count (rounded to the
// share: a cut-off shape sends its messages between the shares, one process more or less
// each). Share(p, 0, 1) is p.
func Share(p Pacer, i, n int) (Pacer, error) {
	switch {
	case p == nil:
		return nil, errors.New("share: no pacer")
	case n < 1 || i < 0 || i >= n:
		return nil, fmt.Errorf("share %d of %d: want 0 ≤ i < n", i, n)
	case n == 1:
		return p, nil
	}
	return share{p: p, i: uint64(i), n: uint64(n)}, nil
}

type share struct {
	p    Pacer
	i, n uint64
}

func (s share) Due(k uint64) (time.Duration, bool) {
	if k > (math.MaxUint64-s.i)/s.n {
		return 0, false
	}
	return s.p.Due(k*s.n + s.i)
}

func (s share) String() string {
	return s.p.String() + " shared " + strconv.FormatUint(s.i, 10) + "/" + strconv.FormatUint(s.n, 10)
}
