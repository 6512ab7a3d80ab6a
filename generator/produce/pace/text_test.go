package pace

import (
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

var (
	_ pflag.Value = (*Rate)(nil)
	_ pflag.Value = (*Shape)(nil)
)

func TestRateText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Rate
		text string // MarshalText of the result
	}{
		{"20000/s", 20000, "20000/s"},
		{"20000", 20000, "20000/s"},
		{"1200/m", 20, "20/s"},
		{"30/m", 0.5, "30/m"},
		{"", 0, ""},
		{"  ", 0, ""},
	} {
		var r Rate
		if err := r.UnmarshalText([]byte(tc.in)); err != nil || r != tc.want {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v, nil", tc.in, float64(r), err, float64(tc.want))
			continue
		}
		text, err := r.MarshalText()
		if err != nil || string(text) != tc.text {
			t.Errorf("Rate(%v).MarshalText() = %q, %v; want %q", float64(r), text, err, tc.text)
		}
		var back Rate
		if err := back.UnmarshalText(text); err != nil || back != r {
			t.Errorf("%q read back as %v, %v; want %v", text, float64(back), err, float64(r))
		}
		var set Rate = 7
		if err := set.Set(tc.in); err != nil || set != tc.want {
			t.Errorf("Set(%q) = %v, %v; want %v", tc.in, float64(set), err, float64(tc.want))
		}
	}
}

func TestRateTextErrors(t *testing.T) {
	for _, in := range []string{"lots", "0/s", "-5/s", "5/x", "2000000000/s", "ramp:1/s-2/s:1s"} {
		r := Rate(7)
		err := r.Set(in)
		if err == nil || !errors.Is(err, ErrRate) || errors.Is(err, ErrShape) || !strings.Contains(err.Error(), "rate") {
			t.Errorf("Set(%q) = %v; want an error marked ErrRate", in, err)
		}
		if r != 7 {
			t.Errorf("Set(%q) failed but changed the rate to %v", in, float64(r))
		}
		if uerr := r.UnmarshalText([]byte(in)); uerr == nil || uerr.Error() != err.Error() {
			t.Errorf("UnmarshalText(%q) = %v, want Set's error %v", in, uerr, err)
		}
	}
}

func TestShapeText(t *testing.T) {
	for _, tc := range []struct {
		in, text string
	}{
		{"20000/s", "20000/s"},
		{"constant:20000", "20000/s"},
		{"ramp:0-20000/s:30s", "ramp:0/s-20000/s:30s"},
		{"steps:1000/s@10s,0/s@5s,5000/s@10s", "steps:1000/s@10s,0/s@5s,5000/s@10s"},
		{"sine:10000/s+-5000/s:1m", "sine:10000/s±5000/s:1m0s"},
		{"", ""},
	} {
		var s Shape
		if err := s.UnmarshalText([]byte(tc.in)); err != nil {
			t.Errorf("UnmarshalText(%q): %v", tc.in, err)
			continue
		}
		if s.IsZero() != (tc.in == "") {
			t.Errorf("UnmarshalText(%q).IsZero() = %v", tc.in, s.IsZero())
		}
		text, err := s.MarshalText()
		if err != nil || string(text) != tc.text || s.String() != tc.text {
			t.Errorf("%q: MarshalText = %q, %v, String = %q; want %q", tc.in, text, err, s.String(), tc.text)
		}
		var back Shape
		if err := back.UnmarshalText(text); err != nil || back.String() != s.String() {
			t.Errorf("%q read back as %q, %v", text, back.String(), err)
		}
		if s.IsZero() {
			continue
		}
		want, _ := ParseShape(tc.in)
		for _, n := range []uint64{0, 1, 1000, 123456} {
			got, gok := s.Due(n)
			exp, eok := want.Due(n)
			if got != exp || gok != eok {
				t.Errorf("%q: Due(%d) = %v, %v; ParseShape's = %v, %v", tc.in, n, got, gok, exp, eok)
			}
		}
	}
}

func TestShapeSetErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "empty"},
		{"fast", "shape \"fast\""},
		{"ramp:1/s", "ramp wants"},
		{"steps:5/s", "step 1"},
		{"sine:5/s±10/s:1s", "amplitude"},
	} {
		s := Shape{}
		err := s.Set(tc.in)
		if err == nil || !errors.Is(err, ErrShape) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Set(%q) = %v; want an error marked ErrShape mentioning %q", tc.in, err, tc.want)
		}
		if !s.IsZero() {
			t.Errorf("Set(%q) failed but set the shape to %q", tc.in, s)
		}
	}
}

// TestYAML: a YAML decoder fills both types through UnmarshalText, and a bad value's error
// says which type it was.
func TestYAML(t *testing.T) {
	type pacing struct {
		Rate    Shape `yaml:"rate"`
		MaxRate Rate  `yaml:"max_rate"`
	}
	for _, tc := range []struct {
		yaml, rate string
		max        Rate
		err        error
	}{
		{"rate: ramp:1000/s-20000/s:30s\nmax_rate: 50000/s\n", "ramp:1000/s-20000/s:30s", 50000, nil},
		{"rate: 20000\nmax_rate: 20000\n", "20000/s", 20000, nil},
		{"rate: \"\"\nmax_rate: \"\"\n", "", 0, nil},
		{"{}\n", "", 0, nil},
		{"rate: fast\n", "", 0, ErrShape},
		{"max_rate: lots\n", "", 0, ErrRate},
	} {
		var p pacing
		err := yaml.Unmarshal([]byte(tc.yaml), &p)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("yaml %q: error %v, want one marked %v", tc.yaml, err, tc.err)
			}
			continue
		}
		if err != nil || p.Rate.String() != tc.rate || p.MaxRate != tc.max {
			t.Errorf("yaml %q = %q, %v, %v; want %q, %v", tc.yaml, p.Rate, float64(p.MaxRate), err, tc.rate, float64(tc.max))
			continue
		}
		out, err := yaml.Marshal(p)
		var back pacing
		if err != nil || yaml.Unmarshal(out, &back) != nil || back.Rate.String() != p.Rate.String() || back.MaxRate != p.MaxRate {
			t.Errorf("yaml %q marshalled as %q (%v) does not read back", tc.yaml, out, err)
		}
	}
}
