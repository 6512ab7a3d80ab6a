package pace

import (
	"fmt"
	"strings"
	"time"
)

// ParseShape parses a rate shape as written on the command line. RATE is the syntax of
// [ParseRate] and DURATION that of time.ParseDuration (30s, 1m30s, 2h).
//
//	RATE                              constant, e.g. 20000/s
//	constant:RATE                     constant, e.g. constant:20000/s
//	ramp:FROM-TO:DURATION             linear from FROM to TO over DURATION, then TO,
//	                                  e.g. ramp:1000/s-20000/s:30s (FROM or TO may be 0)
//	steps:RATE@DURATION,...           each RATE for its DURATION, the last RATE after that,
//	                                  e.g. steps:1000/s@10s,5000/s@10s,20000/s@10s
//	                                  (a 0 rate is a pause; a last 0 rate ends the shape)
//	sine:MEAN±AMPLITUDE:PERIOD        MEAN + AMPLITUDE·sin(2πt/PERIOD), AMPLITUDE ≤ MEAN,
//	                                  e.g. sine:10000/s±5000/s:60s ("+-" may replace "±")
//
// Errors quote the input and name the part that is wrong. The result's String is the
// canonical spelling of the same shape.
func ParseShape(s string) (Pacer, error) {
	p, err := parseShape(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("shape %q: %w", s, err)
	}
	return p, nil
}

func parseShape(s string) (Pacer, error) {
	if s == "" {
		return nil, fmt.Errorf("empty (want e.g. 20000/s or ramp:1000/s-20000/s:30s)")
	}
	kind, rest, found := strings.Cut(s, ":")
	if !found {
		r, err := parseRate(s, false)
		if err != nil {
			return nil, fmt.Errorf("%w; a shape is a rate or one of constant:, ramp:, steps:, sine:", err)
		}
		return Constant(r)
	}
	switch kind {
	case "constant":
		r, err := parseRate(rest, false)
		if err != nil {
			return nil, err
		}
		return Constant(r)
	case "ramp":
		rates, over, ok := strings.Cut(rest, ":")
		from, to, ok2 := strings.Cut(rates, "-")
		if !ok || !ok2 {
			return nil, fmt.Errorf("ramp wants ramp:FROM-TO:DURATION, e.g. ramp:1000/s-20000/s:30s")
		}
		a, err := parseRate(from, true)
		if err != nil {
			return nil, fmt.Errorf("ramp start: %w", err)
		}
		b, err := parseRate(to, true)
		if err != nil {
			return nil, fmt.Errorf("ramp end: %w", err)
		}
		d, err := parseDuration("ramp duration", over)
		if err != nil {
			return nil, err
		}
		return Ramp(a, b, d)
	case "steps":
		if rest == "" {
			return nil, fmt.Errorf("steps wants steps:RATE@DURATION,..., e.g. steps:1000/s@10s,5000/s@10s")
		}
		var steps []Step
		for i, part := range strings.Split(rest, ",") {
			rs, ds, ok := strings.Cut(part, "@")
			if !ok {
				return nil, fmt.Errorf("step %d %q wants RATE@DURATION, e.g. 1000/s@10s", i+1, part)
			}
			r, err := parseRate(rs, true)
			if err != nil {
				return nil, fmt.Errorf("step %d: %w", i+1, err)
			}
			d, err := parseDuration(fmt.Sprintf("step %d duration", i+1), ds)
			if err != nil {
				return nil, err
			}
			steps = append(steps, Step{Rate: r, For: d})
		}
		return Steps(steps...)
	case "sine":
		rates, period, ok := strings.Cut(rest, ":")
		mean, amp, ok2 := strings.Cut(rates, "±")
		if !ok2 {
			mean, amp, ok2 = strings.Cut(rates, "+-")
		}
		if !ok || !ok2 {
			return nil, fmt.Errorf("sine wants sine:MEAN±AMPLITUDE:PERIOD, e.g. sine:10000/s±5000/s:60s")
		}
		m, err := parseRate(mean, false)
		if err != nil {
			return nil, fmt.Errorf("sine mean: %w", err)
		}
		a, err := parseRate(amp, true)
		if err != nil {
			return nil, fmt.Errorf("sine amplitude: %w", err)
		}
		d, err := parseDuration("sine period", period)
		if err != nil {
			return nil, err
		}
		return Sine(m, a, d)
	}
	return nil, fmt.Errorf("unknown shape %q (want constant, ramp, steps or sine)", kind)
}

// parseDuration parses a positive duration; what names it in the error.
func parseDuration(what, s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%s %q is not a duration such as 30s or 1m30s", what, s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%s %q must be positive", what, s)
	}
	return d, nil
}
