package measure

// A run's pass/fail verdict: expressions such as p99<50ms, rate>=0.99, failed==0 or
// freshness.p99<2s, parsed once into values (the command's --threshold) and judged against
// the run's final [Figures]. It is what k6's thresholds are to a load test: a stress run in CI
// fails when a figure crosses its limit, not when a person reads the numbers.
//
// A threshold names one figure, a comparison and a limit:
//
//	p50 p90 p99 p99.9 p(99)  a percentile of the produce latency (a duration: 50ms, 1.5s)
//	max  mean                 the largest and the mean produce latency (a duration)
//	rate                      acknowledged messages per second over the target rate (0.99, 99%)
//	failed                    messages that were not delivered (a whole number)
//	freshness.p99 ...         the pipeline latency of every followed consumer group (a duration)
//	store_p99 store_max ...   the time until queryable of the keys sampled in a followed table
//	store_unseen              the sampled keys never read from the table (a whole number)
//
// and a comparison among <, <=, >, >=, == and !=. The threshold holds when the comparison is
// true of the figure; it is crossed otherwise, and also when the figure could not be measured
// (no acknowledged message to take a percentile of): a verdict never passes on nothing. With a
// warm-up every figure is of what came after it.
//
// Parsing and judging are pure: no clock, no I/O, safe for concurrent use.

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clickgen/clickgen/generator/measure/latency"
	"github.com/clickgen/clickgen/generator/measure/report"
)

// Stat is which figure a threshold reads.
type Stat uint8

// The figures a [Threshold] reads.
const (
	StatQuantile Stat = iota // a percentile, Threshold.Q
	StatMax                  // the largest value
	StatMean                 // the mean
	StatRate                 // acknowledged messages per second over the target rate
	StatFailed               // messages not delivered
	StatUnseen               // sampled keys never read from the followed table
)

// Op is a comparison.
type Op uint8

// The comparisons of a [Threshold].
const (
	OpLess Op = iota
	OpLessEq
	OpGreater
	OpGreaterEq
	OpEqual
	OpNotEqual
)

// ops in the order they are tried when parsing: two-character ones first.
var ops = []struct {
	text string
	op   Op
}{{"<=", OpLessEq}, {">=", OpGreaterEq}, {"==", OpEqual}, {"!=", OpNotEqual}, {"<", OpLess}, {">", OpGreater}}

func (o Op) String() string {
	for _, x := range ops {
		if x.op == o {
			return x.text
		}
	}
	return "?"
}

// holds reports whether got o limit.
func (o Op) holds(got, limit float64) bool {
	switch o {
	case OpLess:
		return got < limit
	case OpLessEq:
		return got <= limit
	case OpGreater:
		return got > limit
	case OpGreaterEq:
		return got >= limit
	case OpEqual:
		return got == limit
	default:
		return got != limit
	}
}

// Threshold is one parsed expression ([ParseThreshold]). Limit is in the figure's unit:
// seconds for a latency, a ratio for rate (0.99), a count for failed.
type Threshold struct {
	// Freshness makes the threshold read the pipeline latency of each followed consumer group
	// instead of the produce latency; every group is judged on its own.
	Freshness bool
	Stat      Stat
	Q         float64 // the quantile in (0, 1) when Stat is StatQuantile
	Op        Op
	Limit     float64
	expr      string // the expression as given, without spaces

	// Store makes it read the followed table's figures (store_p99, store_unseen).
	Store bool
}

// ErrThresholdSyntax matches every refusal of [ParseThreshold] with errors.Is.
var ErrThresholdSyntax = errors.New("not a threshold")

// ThresholdSyntaxError is an expression [ParseThreshold] refuses, and why.
type ThresholdSyntaxError struct {
	Expr string
	Why  string
}

func (e *ThresholdSyntaxError) Error() string { return fmt.Sprintf("%q: %s", e.Expr, e.Why) }

// Is reports target == [ErrThresholdSyntax].
func (e *ThresholdSyntaxError) Is(target error) bool { return target == ErrThresholdSyntax }

// ThresholdFigures names the figures a threshold can read, for messages: `pN` stands for any
// percentile.
const ThresholdFigures = "p50, p90, p99, p99.9 (any pN or p(N)), max, mean, rate, failed, freshness.pN, freshness.max, freshness.mean, store_pN, store_max, store_mean, store_unseen"

// ParseThreshold reads one expression such as "p99<50ms" (spaces anywhere are ignored).
func ParseThreshold(s string) (Threshold, error) {
	expr := strings.Join(strings.Fields(s), "")
	bad := func(format string, args ...any) (Threshold, error) {
		return Threshold{}, &ThresholdSyntaxError{Expr: s, Why: fmt.Sprintf(format, args...)}
	}
	if expr == "" {
		return bad("empty: want a figure, a comparison and a limit, e.g. p99<50ms")
	}
	at, opLen := -1, 0
	var op Op
	for i := 0; i < len(expr) && at < 0; i++ {
		for _, x := range ops {
			if strings.HasPrefix(expr[i:], x.text) {
				at, opLen, op = i, len(x.text), x.op
				break
			}
		}
	}
	if at < 0 {
		return bad("no comparison: want one of < <= > >= == != between a figure and a limit, e.g. p99<50ms")
	}
	name, limit := expr[:at], expr[at+opLen:]
	t := Threshold{Op: op, expr: expr}
	if rest, ok := strings.CutPrefix(name, "freshness."); ok {
		t.Freshness, name = true, rest
	} else if rest, ok := strings.CutPrefix(name, "store_"); ok {
		t.Store, name = true, rest
	}
	if err := t.setFigure(name); err != nil {
		return bad("%v", err)
	}
	if limit == "" {
		return bad("no limit after %s", op)
	}
	if strings.ContainsAny(limit, "<>=!") {
		return bad("one comparison per threshold")
	}
	if err := t.setLimit(limit); err != nil {
		return bad("%v", err)
	}
	return t, nil
}

// setFigure reads the figure's name: what is left of the expression before the comparison,
// without "freshness.".
func (t *Threshold) setFigure(name string) error {
	switch name {
	case "max":
		t.Stat = StatMax
		return nil
	case "mean", "avg":
		t.Stat = StatMean
		return nil
	case "unseen":
		if !t.Store {
			return fmt.Errorf("unknown figure %q; figures: %s", name, ThresholdFigures)
		}
		t.Stat = StatUnseen
		return nil
	case "rate", "failed":
		if t.Store {
			return fmt.Errorf("store_%s: the store has percentiles, max, mean and unseen only", name)
		}
		if t.Freshness {
			return fmt.Errorf("freshness.%s: freshness has percentiles, max and mean only", name)
		}
		t.Stat = StatRate
		if name == "failed" {
			t.Stat = StatFailed
		}
		return nil
	case "":
		return fmt.Errorf("no figure before the comparison; figures: %s", ThresholdFigures)
	}
	p, ok := strings.CutPrefix(name, "p")
	if ok {
		if in, ok := strings.CutPrefix(p, "("); ok {
			p, ok = strings.CutSuffix(in, ")")
			if !ok {
				return fmt.Errorf("%s: an unclosed parenthesis", name)
			}
		}
		if q, err := percent(p); err == nil {
			if q == 100 {
				t.Stat = StatMax // p100 is the maximum, exactly
				return nil
			}
			t.Stat, t.Q = StatQuantile, q/100
			return nil
		} else if p != "" && (p[0] >= '0' && p[0] <= '9' || p[0] == '.') {
			return fmt.Errorf("%s: %v", name, err)
		}
	}
	return fmt.Errorf("unknown figure %q; figures: %s", name, ThresholdFigures)
}

// percent reads the N of pN: a decimal number greater than 0 and at most 100.
func percent(s string) (float64, error) {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' }) {
		return 0, errors.New("want a percentile such as p99 or p99.9")
	}
	q, err := strconv.ParseFloat(s, 64)
	if err != nil || q <= 0 || q > 100 {
		return 0, errors.New("want a percentile greater than 0 and at most 100")
	}
	return q, nil
}

// setLimit reads the limit in the figure's unit.
func (t *Threshold) setLimit(s string) error {
	switch t.Stat {
	case StatRate:
		v, pct := strings.CutSuffix(s, "%")
		r, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(r) || math.IsInf(r, 0) || r < 0 {
			return fmt.Errorf("rate limit %q: want the achieved share of the target rate, e.g. 0.99 or 99%%", s)
		}
		if pct {
			r /= 100
		}
		t.Limit = r
	case StatFailed, StatUnseen:
		n, err := strconv.ParseUint(s, 10, 63)
		if err != nil {
			return fmt.Errorf("%s limit %q: want a whole number of messages, e.g. %s==0", t.Figure(), s, t.Figure())
		}
		t.Limit = float64(n)
	default:
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
				return fmt.Errorf("limit %q: a latency needs a unit, e.g. %sms or %ss", s, s, s)
			}
			return fmt.Errorf("limit %q: want a duration such as 50ms or 1.5s", s)
		}
		t.Limit = d.Seconds()
	}
	return nil
}

// String is the expression as given, without spaces.
func (t Threshold) String() string { return t.expr }

// Figure names what t reads: p99, max, rate, freshness.p99.9, ...
func (t Threshold) Figure() string {
	var name string
	switch t.Stat {
	case StatQuantile:
		name = "p" + strconv.FormatFloat(t.Q*100, 'f', -1, 64)
	case StatMax:
		name = "max"
	case StatMean:
		name = "mean"
	case StatRate:
		name = "rate"
	case StatFailed:
		name = "failed"
	case StatUnseen:
		name = "unseen"
	}
	if t.Freshness {
		return "freshness." + name
	}
	if t.Store {
		return "store_" + name
	}
	return name
}

// NeedsTarget reports whether t reads the achieved share of a target rate, which only a run
// paced by a rate (or given a target) has.
func (t Threshold) NeedsTarget() bool { return t.Stat == StatRate }

// unit is what the figure t reads is counted in, as the report names it.
func (t Threshold) unit() string {
	switch t.Stat {
	case StatRate:
		return "ratio"
	case StatFailed, StatUnseen:
		return "messages"
	}
	return "ms"
}

// Verdict is one threshold judged on one run (for freshness, on one group).
type Verdict struct {
	Threshold Threshold
	// Group is the consumer group judged by a freshness threshold, "" otherwise.
	Group string
	// Got is the figure, in the threshold's unit (seconds for a latency); Measured is false
	// when there was nothing to measure (then the threshold is crossed) and Missing says why.
	Got      float64
	Measured bool
	Missing  string
	// Held is true when the comparison is true of the figure.
	Held bool
}

// Judge judges t on the figures f: one verdict, or one per followed group (in name order)
// for a freshness threshold; a freshness threshold on a run that followed no group is
// crossed, with no group.
func (t Threshold) Judge(f Figures) []Verdict {
	if t.Store {
		return []Verdict{t.judgeStore(f)}
	}
	if !t.Freshness {
		return []Verdict{t.judge("", f.Histograms.Latency, f)}
	}
	if len(f.Histograms.Freshness) == 0 {
		return []Verdict{{Threshold: t, Missing: "no consumer group was followed"}}
	}
	groups := slices.Sorted(maps.Keys(f.Histograms.Freshness))
	out := make([]Verdict, 0, len(groups))
	for _, g := range groups {
		out = append(out, t.judge(g, f.Histograms.Freshness[g], f))
	}
	return out
}

func (t Threshold) judge(group string, h latency.Histogram, f Figures) Verdict {
	v := Verdict{Threshold: t, Group: group}
	after := ""
	if f.Warmup != nil {
		after = " after the warm-up"
	}
	switch t.Stat {
	case StatRate:
		switch {
		case f.Warmup != nil && f.RateElapsed <= 0:
			v.Missing = "the run ended within its warm-up"
			return v
		case f.TargetPerS <= 0:
			v.Missing = "the run has no target rate"
			return v
		}
		v.Got = f.AchievedPerS / f.TargetPerS
	case StatFailed:
		// failed==0 "held" on a run that sent nothing (after its warm-up): no message, no
		// verdict.
		sent, failed := f.Sent, f.Failed
		if f.Warmup != nil {
			sent, failed = sent-f.Warmup.Acked-f.Warmup.Failed, failed-f.Warmup.Failed
		}
		if sent <= 0 {
			v.Missing = "no message was sent" + after
			return v
		}
		v.Got = float64(failed)
	default:
		if h.Count() == 0 {
			v.Missing = "no message was acknowledged" + after
			if group != "" {
				v.Missing = "the group took no message" + after
			}
			return v
		}
		d := h.Max()
		switch t.Stat {
		case StatQuantile:
			d = h.Quantile(t.Q)
		case StatMean:
			d = h.Mean()
		}
		v.Got = d.Seconds()
	}
	v.Measured, v.Held = true, t.Op.holds(v.Got, t.Limit)
	return v
}

// Value is the figure as the console and the report print it: a latency in milliseconds
// ("63.2ms"), the rate as a ratio with four decimals, failed as a count; "no data" when
// nothing was measured.
func (v Verdict) Value() string {
	if !v.Measured {
		return "no data"
	}
	switch v.Threshold.Stat {
	case StatRate:
		return strconv.FormatFloat(v.Got, 'f', 4, 64)
	case StatFailed, StatUnseen:
		return strconv.FormatFloat(v.Got, 'f', 0, 64)
	}
	return strconv.FormatFloat(inUnit(v.Threshold, v.Got), 'f', -1, 64) + "ms"
}

// inUnit is x, a figure of t in seconds, ratio or count, in the unit the report names
// (milliseconds to the microsecond for a latency).
func inUnit(t Threshold, x float64) float64 {
	if t.unit() == "ms" {
		return math.Round(x*1e6) / 1e3
	}
	return x
}

// row is v as the report's thresholds section holds it.
func (v Verdict) row() report.Threshold {
	r := report.Threshold{Expr: v.Threshold.String(), Group: v.Group, Figure: v.Threshold.Figure(), Unit: v.Threshold.unit(),
		Limit: inUnit(v.Threshold, v.Threshold.Limit), Held: v.Held, Missing: v.Missing}
	if v.Measured {
		x := inUnit(v.Threshold, v.Got)
		r.Value = &x
	}
	return r
}

// String says the verdict in one line: "p99<50ms crossed: p99 63.2ms", "freshness.p99<2s held
// for clickstream_hits: freshness.p99 1.21s".
func (v Verdict) String() string {
	word := "held"
	if !v.Held {
		word = "crossed"
	}
	s := v.Threshold.String() + " " + word
	if v.Group != "" {
		s += " for " + v.Group
	}
	if !v.Measured {
		return s + ": no data (" + v.Missing + ")"
	}
	return s + ": " + v.Threshold.Figure() + " " + v.Value()
}

// Thresholds are a run's thresholds, in the order given: the value of a repeatable flag
// (pflag.Value) and of a profile's field (encoding.TextUnmarshaler). Set appends one
// expression or several separated by commas.
type Thresholds []Threshold

// Set parses s (one expression, or several separated by commas) and appends them.
func (l *Thresholds) Set(s string) error {
	var add Thresholds
	for _, e := range strings.Split(s, ",") {
		t, err := ParseThreshold(e)
		if err != nil {
			return err
		}
		add = append(add, t)
	}
	*l = append(*l, add...)
	return nil
}

// String lists the expressions, separated by commas.
func (l Thresholds) String() string {
	s := make([]string, len(l))
	for i, t := range l {
		s[i] = t.String()
	}
	return strings.Join(s, ",")
}

// Type names the flag's value in help.
func (*Thresholds) Type() string { return "EXPR" }

// UnmarshalText sets l to the expressions of text (comma-separated), for profiles.
func (l *Thresholds) UnmarshalText(text []byte) error {
	*l = nil
	if len(strings.TrimSpace(string(text))) == 0 {
		return nil
	}
	return l.Set(string(text))
}

// MarshalText is String as bytes.
func (l Thresholds) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// NeedTarget reports whether one of l reads the achieved share of a target rate.
func (l Thresholds) NeedTarget() bool { return slices.ContainsFunc(l, Threshold.NeedsTarget) }

// NeedFreshness reports whether one of l reads the freshness of followed groups.
func (l Thresholds) NeedFreshness() bool {
	return slices.ContainsFunc(l, func(t Threshold) bool { return t.Freshness })
}

// Judge judges every threshold of l on f, in order.
func (l Thresholds) Judge(f Figures) []Verdict {
	var out []Verdict
	for _, t := range l {
		out = append(out, t.Judge(f)...)
	}
	return out
}

// Crossed returns the verdicts of vs that did not hold.
func Crossed(vs []Verdict) []Verdict {
	var out []Verdict
	for _, v := range vs {
		if !v.Held {
			out = append(out, v)
		}
	}
	return out
}

// CrossedError is the verdict of a run some of whose thresholds were crossed: those verdicts,
// in order. A run that otherwise completed ends with it (the command's exit code 3); a run
// that failed or was interrupted ends with its own error.
type CrossedError struct {
	Verdicts []Verdict
}

// ThresholdCrossed marks the error as a verdict on a run that completed, for a caller that
// tells it from failures without naming this package (a command's exit code).
func (*CrossedError) ThresholdCrossed() {}

// OnlyCrossed says whether err is made only of crossed thresholds (a *[CrossedError]),
// joined or wrapped: any other failure joined to it (a group that did not drain) is a
// failure of the run.
func OnlyCrossed(err error) bool {
	switch e := err.(type) {
	case interface{ ThresholdCrossed() }:
		return true
	case interface{ Unwrap() []error }:
		errs := e.Unwrap()
		for _, x := range errs {
			if !OnlyCrossed(x) {
				return false
			}
		}
		return len(errs) > 0
	}
	if u := errors.Unwrap(err); u != nil {
		return OnlyCrossed(u)
	}
	return false
}

func (e *CrossedError) Error() string {
	s := make([]string, len(e.Verdicts))
	for i, v := range e.Verdicts {
		s[i] = v.Threshold.String()
		if v.Group != "" {
			s[i] += " for " + v.Group
		}
		if v.Measured {
			s[i] += " (" + v.Threshold.Figure() + " " + v.Value() + ")"
		} else {
			s[i] += " (no data: " + v.Missing + ")"
		}
	}
	return "threshold(s) crossed: " + strings.Join(s, ", ")
}
