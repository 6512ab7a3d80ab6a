package pace

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Rate
	}{
		{"20000/s", 20000},
		{"20000", 20000},
		{" 20000/s ", 20000},
		{"2.5/s", 2.5},
		{"500/ms", 500000},
		{"1200/m", 20},
		{"7200/h", 2},
		{"5/10s", 0.5},
		{"3/1m30s", 3.0 / 90},
		{"1000000000/s", 1e9},
	} {
		got, err := ParseRate(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v, nil", tc.in, float64(got), err, float64(tc.want))
		}
	}
}

func TestParseRateErrors(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want: a piece of the error message
	}{
		{"", "no number"},
		{"/s", "no number"},
		{"abc", `"abc" is not a plain decimal`},
		{"-5/s", `"-5" is not a plain decimal`},
		{"+5/s", `"+5" is not a plain decimal`},
		{"1e3/s", `"1e3" is not a plain decimal`},
		{"inf/s", `"inf" is not a plain decimal`},
		{"NaN", `"NaN" is not a plain decimal`},
		{".5/s", `".5" is not a plain decimal`},
		{"5./s", `"5." is not a plain decimal`},
		{"1.2.3/s", `"1.2.3" is not a plain decimal`},
		{"0/s", "must be positive"},
		{"0.0", "must be positive"},
		{"5/", "no unit after the slash"},
		{"5/x", `unit "x" is not`},
		{"5/sec", `unit "sec" is not`},
		{"5/s/s", `unit "s/s" is not`},
		{"5/0s", `unit "0s" is not a positive duration`},
		{"2000000000/s", "above the maximum of 1e9/s"},
		{"2/ns", "above the maximum of 1e9/s"},
		{strings.Repeat("9", 400), "out of range"},
	} {
		got, err := ParseRate(tc.in)
		if err == nil {
			t.Errorf("ParseRate(%q) = %v, nil; want an error containing %q", tc.in, got, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"`+tc.in+`"`) {
			t.Errorf("ParseRate(%q) error = %q; want it to quote the input and contain %q", tc.in, err, tc.want)
		}
	}
}

func TestRateString(t *testing.T) {
	for _, tc := range []struct {
		r    Rate
		want string
	}{
		{20000, "20000/s"},
		{0.5, "30/m"},
		{1.0 / 60, "1/m"},
		{1.0 / 3600, "1/h"},
		{2.5 / 3600, "2.5/h"},
		{0.3, "18/m"},
		{0.7, "42/m"},
		{0.123, "7.38/m"},
		{1.0 / 7, "8.571428571428571/m"},
		{1e9, "1000000000/s"},
		{0, "0/s"},
		{60, "60/s"},
		{0.125, "7.5/m"},
		{1000.0 / 60, "1000/m"},
	} {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("Rate(%v).String() = %q, want %q", float64(tc.r), got, tc.want)
		}
	}
	// Whatever the value, String reads back as the same value.
	for _, r := range []Rate{1.0 / 7, 3.0 / 90, 123.456, 1e-9, 0.1, 999999999.5} {
		back, err := ParseRate(r.String())
		if err != nil || back != r {
			t.Errorf("ParseRate(%q) = %v, %v; want %v back", r.String(), float64(back), err, float64(r))
		}
	}
}

func TestParseShape(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want: the canonical String
		n        uint64
		due      time.Duration // Due(n)
	}{
		{"20000/s", "constant:20000/s", 20000, time.Second},
		{"100", "constant:100/s", 100, time.Second},
		{"constant:1200/m", "constant:20/s", 20, time.Second},
		{" constant:100/s ", "constant:100/s", 1, 10 * time.Millisecond},
		{"ramp:1000/s-20000/s:30s", "ramp:1000/s-20000/s:30s", 315000, 30 * time.Second},
		{"ramp:0/s-100/s:10s", "ramp:0/s-100/s:10s", 500, 10 * time.Second},
		{"ramp:100/s-0:10s", "ramp:100/s-0/s:10s", 500, 10 * time.Second},
		{"ramp:100/s-100/s:1m", "ramp:100/s-100/s:1m0s", 100, time.Second},
		{"steps:1000/s@10s,5000/s@10s,20000/s@10s", "steps:1000/s@10s,5000/s@10s,20000/s@10s", 60000, 20 * time.Second},
		{"steps:10/s@1s,0/s@1s,10/s@1s", "steps:10/s@1s,0/s@1s,10/s@1s", 10, 2 * time.Second},
		{"steps:60/m@1m", "steps:1/s@1m0s", 61, 61 * time.Second},
		{"sine:10000/s±5000/s:60s", "sine:10000/s±5000/s:1m0s", 600000, time.Minute},
		{"sine:10000/s+-5000/s:60s", "sine:10000/s±5000/s:1m0s", 600000, time.Minute},
		{"sine:10/s±0/s:1s", "sine:10/s±0/s:1s", 10, time.Second},
	} {
		p, err := ParseShape(tc.in)
		if err != nil {
			t.Errorf("ParseShape(%q) error: %v", tc.in, err)
			continue
		}
		if got := p.String(); got != tc.want {
			t.Errorf("ParseShape(%q).String() = %q, want %q", tc.in, got, tc.want)
		}
		if got, ok := p.Due(tc.n); got != tc.due || !ok {
			t.Errorf("ParseShape(%q).Due(%d) = %v, %v; want %v, true", tc.in, tc.n, got, ok, tc.due)
		}
	}
}

func TestParseShapeErrors(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want: a piece of the error message
	}{
		{"", "empty"},
		{"fast", `"fast" is not a plain decimal number`},
		{"linear:5/s", `unknown shape "linear"`},
		{"constant:", "no number"},
		{"constant:0/s", "must be positive"},
		{"constant:5/d", `unit "d" is not`},
		{"ramp:1000/s:30s", "ramp wants ramp:FROM-TO:DURATION"},
		{"ramp:1000/s-2000/s", "ramp wants ramp:FROM-TO:DURATION"},
		{"ramp:1x/s-2000/s:30s", `ramp start: rate "1x/s"`},
		{"ramp:1000/s-2000/q:30s", `ramp end: rate "2000/q"`},
		{"ramp:1000/s-2000/s:30", `ramp duration "30" is not a duration`},
		{"ramp:1000/s-2000/s:-5s", `ramp duration "-5s" must be positive`},
		{"ramp:0/s-0/s:5s", "sends nothing"},
		{"steps:", "steps wants steps:RATE@DURATION"},
		{"steps:1000/s", `step 1 "1000/s" wants RATE@DURATION`},
		{"steps:1000/s@10s,5000/s", `step 2 "5000/s" wants RATE@DURATION`},
		{"steps:1000/s@10s,5x/s@1s", `step 2: rate "5x/s"`},
		{"steps:1000/s@10s,5/s@0s", `step 2 duration "0s" must be positive`},
		{"steps:0/s@1s,0/s@2s", "every rate is zero"},
		{"sine:10000/s:60s", "sine wants sine:MEAN±AMPLITUDE:PERIOD"},
		{"sine:10000/s±5000/s", "sine wants sine:MEAN±AMPLITUDE:PERIOD"},
		{"sine:0/s±0/s:60s", "sine mean: rate"},
		{"sine:100/s±200/s:60s", "amplitude 200/s is above the mean 100/s"},
		{"sine:100/s±50/s:forever", `sine period "forever" is not a duration`},
	} {
		p, err := ParseShape(tc.in)
		if err == nil {
			t.Errorf("ParseShape(%q) = %v, nil; want an error containing %q", tc.in, p, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), `shape "`+tc.in+`": `) {
			t.Errorf("ParseShape(%q) error = %q; want it to start with the shape and contain %q", tc.in, err, tc.want)
		}
	}
}

// FuzzParseShape checks, for any input: ParseShape does not panic; whatever it accepts
// prints (String) as a spelling it accepts again, which prints the same and is due at the
// same times; and Due is non-decreasing and stays ended once it has ended.
func FuzzParseShape(f *testing.F) {
	for _, s := range []string{
		"20000/s", "constant:1/h", "ramp:1000/s-20000/s:30s", "ramp:7/m-0/s:1h",
		"steps:1000/s@10s,0/s@1s,20000/s@10s", "sine:10000/s±5000/s:60s", "sine:3/s+-3/s:1ms",
		"ramp:-", "steps:,", "sine:±:", "1.5/10s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseShape(s)
		if err != nil {
			return
		}
		q, err := ParseShape(p.String())
		if err != nil {
			t.Fatalf("ParseShape(%q) = %v, but its String %q does not parse: %v", s, p, p.String(), err)
		}
		if q.String() != p.String() {
			t.Fatalf("ParseShape(%q).String() = %q, which reads back as %q", s, p, q)
		}
		prev, ended := time.Duration(0), false
		for _, n := range []uint64{0, 1, 2, 3, 10, 100, 1000, 1e4, 1e6, 1e9, 1e12, math.MaxUint64} {
			d, ok := p.Due(n)
			if e, eok := q.Due(n); e != d || eok != ok {
				t.Fatalf("%q: Due(%d) = %v, %v but after a round trip %v, %v", s, n, d, ok, e, eok)
			}
			if ended && ok {
				t.Fatalf("%q: Due(%d) = %v after the shape ended", s, n, d)
			}
			if ok && d < prev {
				t.Fatalf("%q: Due(%d) = %v goes back before %v", s, n, d, prev)
			}
			ended, prev = !ok, max(prev, d)
		}
	})
}

// FuzzRateString checks that every valid rate, whatever its bits, prints as text that
// ParseRate reads back as exactly the same rate.
func FuzzRateString(f *testing.F) {
	for _, r := range []float64{1, 0.5, 1.0 / 60, 1.0 / 7, 1000.0 / 60, 1e-9, 123.456, 1e9} {
		f.Add(math.Float64bits(r))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		r := Rate(math.Float64frombits(bits))
		if !(r > 0 && r <= maxRate) {
			return
		}
		back, err := ParseRate(r.String())
		if err != nil || back != r {
			t.Fatalf("ParseRate(%q) = %v, %v; want %v back", r.String(), float64(back), err, float64(r))
		}
	})
}
