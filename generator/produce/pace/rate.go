package pace

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Rate is a message rate in messages per second. A valid rate is finite and at most 1e9/s
// (one message per nanosecond, the resolution of time.Duration); shapes say whether it may
// also be zero.
type Rate float64

// maxRate is the largest rate a shape accepts: beyond one message per nanosecond due times
// can no longer be told apart.
const maxRate = 1e9

// ParseRate parses a rate written as NUMBER/UNIT or as a bare NUMBER, which means per second.
// NUMBER is a plain decimal (20000, 2.5; no sign, no exponent). UNIT is s, m, h, ms (or any
// other unit of time.ParseDuration), or a whole duration such as 10s, so "5/10s" is 0.5/s.
// Examples: "20000/s", "20000", "1200/m", "500/ms". The rate must be positive and at most
// 1e9/s.
func ParseRate(s string) (Rate, error) {
	r, err := parseRate(s, false)
	if err != nil {
		return 0, err
	}
	return r, nil
}

// parseRate is ParseRate, also accepting zero when zero is true (a ramp endpoint or a pause
// in steps).
func parseRate(s string, zero bool) (Rate, error) {
	num, unit, hasUnit := strings.Cut(strings.TrimSpace(s), "/")
	if num == "" {
		return 0, fmt.Errorf("rate %q: no number (want e.g. 20000/s)", s)
	}
	if !isDecimal(num) {
		return 0, fmt.Errorf("rate %q: %q is not a plain decimal number such as 20000 or 2.5", s, num)
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(n, 0) {
		return 0, fmt.Errorf("rate %q: number %q is out of range", s, num)
	}
	per := time.Second
	if hasUnit {
		if unit == "" {
			return 0, fmt.Errorf("rate %q: no unit after the slash (want s, m, h, ms or a duration such as 10s)", s)
		}
		text := unit
		if c := unit[0]; c < '0' || c > '9' {
			text = "1" + unit
		}
		per, err = time.ParseDuration(text)
		if err != nil {
			return 0, fmt.Errorf("rate %q: unit %q is not s, m, h, ms or a duration such as 10s", s, unit)
		}
		if per <= 0 {
			return 0, fmt.Errorf("rate %q: unit %q is not a positive duration", s, unit)
		}
	}
	r := n / per.Seconds()
	switch {
	case r == 0 && !zero:
		return 0, fmt.Errorf("rate %q: must be positive", s)
	case r > maxRate:
		return 0, fmt.Errorf("rate %q: %s/s is above the maximum of 1e9/s", s, strconv.FormatFloat(r, 'g', -1, 64))
	}
	return Rate(r), nil
}

// isDecimal reports whether s is digits with at most one dot between digits.
func isDecimal(s string) bool {
	intPart, frac, hasDot := strings.Cut(s, ".")
	return allDigits(intPart) && (!hasDot || allDigits(frac))
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// String formats r so that ParseRate reads back the same value, per second, per minute or
// per hour, whichever is shortest (ties go to the second, then the minute): 20000/s, 30/m,
// 1000/m, 2.5/h.
func (r Rate) String() string {
	f := float64(r)
	best := strconv.FormatFloat(f, 'f', -1, 64) + "/s"
	for _, u := range []struct {
		seconds float64
		name    string
	}{{60, "m"}, {3600, "h"}} {
		if n, ok := shortestPer(f, u.seconds); ok && len(n)+2 < len(best) {
			best = n + "/" + u.name
		}
	}
	return best
}

// shortestPer returns the shortest decimal n for which ParseRate's n/per gives back f.
func shortestPer(f, per float64) (string, bool) {
	for prec := 0; prec <= 20; prec++ {
		text := strconv.FormatFloat(f*per, 'f', prec, 64)
		if n, err := strconv.ParseFloat(text, 64); err == nil && n/per == f {
			return text, true
		}
	}
	return "", false
}

// checkRate says what is wrong with r as a shape's rate; what names it in the message.
func checkRate(what string, r Rate, zero bool) error {
	f := float64(r)
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return fmt.Errorf("%s %v is not finite", what, f)
	case f < 0:
		return fmt.Errorf("%s %s is negative", what, r)
	case f == 0 && !zero:
		return fmt.Errorf("%s must be positive", what)
	case f > maxRate:
		return fmt.Errorf("%s %s is above the maximum of 1e9/s", what, r)
	}
	return nil
}

// checkDuration says what is wrong with d as a shape's duration.
func checkDuration(what string, d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("%s %v must be positive", what, d)
	}
	return nil
}

// maxDurationF is 2^63, the first float64 past the largest time.Duration.
const maxDurationF = float64(math.MaxInt64)

// fromSeconds converts s seconds to a Duration, rounded to the nearest nanosecond. ok is false
// when the result does not fit a Duration (or s is NaN or negative).
func fromSeconds(s float64) (time.Duration, bool) { return fromNanos(s * 1e9) }

// fromNanos is fromSeconds for a count of nanoseconds.
func fromNanos(ns float64) (time.Duration, bool) {
	ns = math.Round(ns)
	if !(ns < maxDurationF) || ns < 0 {
		return 0, false
	}
	return time.Duration(ns), true
}

// addDuration returns a+b for non-negative a and b; ok is false when the sum overflows.
func addDuration(a, b time.Duration) (time.Duration, bool) {
	if b > math.MaxInt64-a {
		return 0, false
	}
	return a + b, true
}
