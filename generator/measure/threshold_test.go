package measure

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/measure/latency"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in     string
		figure string
		op     Op
		limit  float64
		fresh  bool
	}{
		{"p99<50ms", "p99", OpLess, 0.05, false},
		{" p50 < 10ms ", "p50", OpLess, 0.01, false},
		{"p99.9<=1s", "p99.9", OpLessEq, 1, false},
		{"p(99)<200ms", "p99", OpLess, 0.2, false},
		{"p100<1s", "max", OpLess, 1, false},
		{"max<1s", "max", OpLess, 1, false},
		{"mean<5ms", "mean", OpLess, 0.005, false},
		{"avg<5ms", "mean", OpLess, 0.005, false},
		{"rate>=0.99", "rate", OpGreaterEq, 0.99, false},
		{"rate>=99%", "rate", OpGreaterEq, 0.99, false},
		{"failed==0", "failed", OpEqual, 0, false},
		{"failed!=3", "failed", OpNotEqual, 3, false},
		{"freshness.p99<2s", "freshness.p99", OpLess, 2, true},
		{"freshness.max>1m", "freshness.max", OpGreater, 60, true},
	} {
		got, err := ParseThreshold(tc.in)
		if err != nil {
			t.Errorf("ParseThreshold(%q): %v", tc.in, err)
			continue
		}
		if got.Figure() != tc.figure || got.Op != tc.op || got.Limit != tc.limit || got.Freshness != tc.fresh {
			t.Errorf("ParseThreshold(%q) = %s %s %v fresh %v, want %s %s %v fresh %v", tc.in, got.Figure(), got.Op, got.Limit, got.Freshness,
				tc.figure, tc.op, tc.limit, tc.fresh)
		}
		if want := strings.Join(strings.Fields(tc.in), ""); got.String() != want {
			t.Errorf("ParseThreshold(%q).String() = %q, want %q", tc.in, got.String(), want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ in, why string }{
		{"", "empty"},
		{"p99", "no comparison"},
		{"p99 50ms", "no comparison"},
		{"<50ms", "no figure"},
		{"p99<", "no limit"},
		{"p99<50", "needs a unit"},
		{"p99<-5ms", "want a duration"},
		{"p99<fast", "want a duration"},
		{"p0<1s", "greater than 0"},
		{"p101<1s", "at most 100"},
		{"p9x<1s", "want a percentile"},
		{"p(99<1s", "unclosed"},
		{"latency<1s", "unknown figure"},
		{"rate>=fast", "share of the target"},
		{"rate>=-1", "share of the target"},
		{"failed==0.5", "whole number"},
		{"failed==-1", "whole number"},
		{"freshness.rate>1", "percentiles, max and mean"},
		{"p99<1s<2s", "one comparison"},
	} {
		_, err := ParseThreshold(tc.in)
		if err == nil || !errors.Is(err, ErrThresholdSyntax) || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("ParseThreshold(%q) = %v, want a syntax error saying %q", tc.in, err, tc.why)
		}
	}
}

func hist(ds ...time.Duration) latency.Histogram {
	var h latency.Histogram
	for _, d := range ds {
		h.Record(d)
	}
	return h
}

func TestJudge(t *testing.T) {
	lat := hist(10*time.Millisecond, 20*time.Millisecond, 30*time.Millisecond, 100*time.Millisecond)
	run := Figures{Histograms: Histograms{Latency: lat, Freshness: map[string]latency.Histogram{"b": hist(3 * time.Second), "a": hist(time.Second)}},
		AchievedPerS: 990, TargetPerS: 1000, Sent: 100, Acked: 98, Failed: 2}
	for _, tc := range []struct {
		expr string
		held []bool
		line string
	}{
		{"max<1s", []bool{true}, "max<1s held: max 100ms"},
		{"max<50ms", []bool{false}, "max<50ms crossed: max 100ms"},
		{"p50<=21ms", []bool{true}, ""},
		{"p50<10ms", []bool{false}, ""},
		{"p75<=31ms", []bool{true}, "p75<=31ms held: p75 29.951ms"}, // a percentile the Percentiles do not hold
		{"rate>=0.99", []bool{true}, "rate>=0.99 held: rate 0.9900"},
		{"rate>0.995", []bool{false}, ""},
		{"failed==0", []bool{false}, "failed==0 crossed: failed 2"},
		{"failed<=2", []bool{true}, ""},
		{"freshness.p99<2s", []bool{true, false}, "freshness.p99<2s held for a: freshness.p99 1000ms"},
	} {
		th, err := ParseThreshold(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		vs := th.Judge(run)
		if len(vs) != len(tc.held) {
			t.Fatalf("%s: %d verdicts, want %d", tc.expr, len(vs), len(tc.held))
		}
		for i, v := range vs {
			if v.Held != tc.held[i] {
				t.Errorf("%s: verdict %d = %s, want held %v", tc.expr, i, v, tc.held[i])
			}
		}
		if tc.line != "" && vs[0].String() != tc.line {
			t.Errorf("%s: %q, want %q", tc.expr, vs[0].String(), tc.line)
		}
	}
}

// A verdict never passes on nothing: no acknowledged message, no target, no group followed,
// nothing after the warm-up.
func TestJudgeNothingMeasured(t *testing.T) {
	warm := &Warmup{Duration: time.Second, Acked: 5}
	for _, tc := range []struct {
		expr string
		run  Figures
		why  string
	}{
		{"p99<1s", Figures{}, "no message was acknowledged"},
		{"max>0s", Figures{}, "no message was acknowledged"},
		{"rate>=0", Figures{AchievedPerS: 100}, "no target rate"},
		{"freshness.p99<1s", Figures{Histograms: Histograms{Latency: hist(time.Millisecond)}}, "no consumer group"},
		{"freshness.p99<1s", Figures{Histograms: Histograms{Freshness: map[string]latency.Histogram{"g": {}}}}, "took no message"},
		{"p99<1s", Figures{Warmup: warm}, "no message was acknowledged after the warm-up"},
		{"rate>=0", Figures{Warmup: warm, TargetPerS: 100}, "the run ended within its warm-up"},
	} {
		th, _ := ParseThreshold(tc.expr)
		v := th.Judge(tc.run)[0]
		if v.Held || v.Measured || !strings.Contains(v.String(), tc.why) {
			t.Errorf("%s on %+v: %s, want crossed: %s", tc.expr, tc.run, v, tc.why)
		}
	}
}

// TestJudgeAfterWarmup: failed counts the failures after the warm-up; the latency and rate are
// the figures' own, which are of what came after it.
func TestJudgeAfterWarmup(t *testing.T) {
	f := Figures{Sent: 103, Acked: 100, Failed: 3, Warmup: &Warmup{Duration: time.Second, Failed: 3}, RateElapsed: time.Second, AchievedPerS: 99, TargetPerS: 100,
		Histograms: Histograms{Latency: hist(time.Millisecond)}}
	var l Thresholds
	if err := l.Set("failed==0,rate>=0.99,max<=1ms"); err != nil {
		t.Fatal(err)
	}
	for _, v := range l.Judge(f) {
		if !v.Held {
			t.Errorf("%s: want held (the 3 failures were the warm-up's)", v)
		}
	}
}

func TestList(t *testing.T) {
	var l Thresholds
	if err := l.Set("p99<50ms, failed==0"); err != nil {
		t.Fatal(err)
	}
	if err := l.Set("rate>=0.99"); err != nil {
		t.Fatal(err)
	}
	if got, want := l.String(), "p99<50ms,failed==0,rate>=0.99"; got != want {
		t.Fatalf("List = %q, want %q", got, want)
	}
	if err := l.Set("p99<50ms,bogus"); err == nil {
		t.Error("Set with a bad expression after a good one: no error")
	}
	vs := l.Judge(Figures{Histograms: Histograms{Latency: hist(time.Millisecond)}, AchievedPerS: 1, TargetPerS: 1, Sent: 1, Acked: 1})
	if c := Crossed(vs); len(vs) != 3 || len(c) != 0 {
		t.Errorf("Judge: %v (crossed %v), want 3 held", vs, c)
	}
	var m Thresholds
	if err := m.UnmarshalText([]byte(" ")); err != nil || len(m) != 0 {
		t.Errorf("UnmarshalText(blank) = %v, %v; want empty", m, err)
	}
}

// FuzzParse: ParseThreshold never panics, and what it accepts prints back as an expression that parses
// to the same threshold.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"p99<50ms", "rate>=99%", "failed==0", "freshness.p(99.9)<=2s", "max!=1h", "p<", "<=>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := ParseThreshold(s)
		if err != nil {
			return
		}
		again, err := ParseThreshold(th.String())
		if err != nil {
			t.Fatalf("Parse(%q) = %q, which does not parse: %v", s, th.String(), err)
		}
		if again != th {
			t.Fatalf("Parse(%q) = %+v, Parse of its String = %+v", s, th, again)
		}
	})
}
