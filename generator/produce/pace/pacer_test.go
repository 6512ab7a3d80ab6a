package pace

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// pacerOf returns must, which unwraps a constructor's result and fails t on its error.
func pacerOf(t testing.TB) (must func(Pacer, error) Pacer) {
	return func(p Pacer, err error) Pacer {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// perSecond counts the messages of p due in each whole second [i, i+1) of the first secs.
func perSecond(t testing.TB, p Pacer, secs int) []int {
	t.Helper()
	counts := make([]int, secs)
	for n := uint64(0); ; n++ {
		d, ok := p.Due(n)
		if !ok || d >= time.Duration(secs)*time.Second {
			return counts
		}
		counts[d/time.Second]++
	}
}

// checkInverse checks that Due is the inverse of the cumulative count cum (in messages, of
// elapsed seconds), written independently here: the count reaches n at Due(n), to within
// the nanosecond Due is rounded to.
func checkInverse(t *testing.T, p Pacer, cum func(sec float64) float64, ns []uint64) {
	t.Helper()
	for _, n := range ns {
		d, ok := p.Due(n)
		if !ok {
			t.Errorf("%v: Due(%d) ended, want a time", p, n)
			continue
		}
		x := float64(n)
		slack := 1e-9 * max(1, x) // float rounding of the count itself
		before, after := cum((d - time.Nanosecond).Seconds()), cum((d + time.Nanosecond).Seconds())
		if d > 0 && before > x+slack || after < x-slack {
			t.Errorf("%v: Due(%d) = %v, but count(%v-1ns) = %.9f and count(%v+1ns) = %.9f do not bracket %d",
				p, n, d, d, before, d, after, n)
		}
	}
}

var someN = []uint64{1, 2, 3, 7, 10, 99, 100, 101, 499, 500, 501, 1000, 4999, 12345, 59999, 60000, 60001, 1e6}

func TestConstant(t *testing.T) {
	must := pacerOf(t)
	p := must(Constant(100))
	for _, tc := range []struct {
		n    uint64
		want time.Duration
	}{{0, 0}, {1, 10 * time.Millisecond}, {100, time.Second}, {360000, time.Hour}} {
		if got, ok := p.Due(tc.n); got != tc.want || !ok {
			t.Errorf("Constant(100/s).Due(%d) = %v, %v; want %v, true", tc.n, got, ok, tc.want)
		}
	}
	third := must(Constant(3))
	if got, _ := third.Due(1); got != 333333333 {
		t.Errorf("Constant(3/s).Due(1) = %d ns, want 333333333 (rounded to the nanosecond)", got)
	}
	checkInverse(t, third, func(s float64) float64 { return 3 * s }, someN)
}

func TestRamp(t *testing.T) {
	must := pacerOf(t)
	// 0 → 100/s over 10 s: count(t) = 5t² up to 500 messages at 10 s, then 100/s.
	up := must(Ramp(0, 100, 10*time.Second))
	for _, tc := range []struct {
		n    uint64
		want time.Duration
	}{{0, 0}, {5, time.Second}, {20, 2 * time.Second}, {500, 10 * time.Second}, {600, 11 * time.Second}} {
		if got, ok := up.Due(tc.n); got != tc.want || !ok {
			t.Errorf("%v: Due(%d) = %v, %v; want %v, true", up, tc.n, got, ok, tc.want)
		}
	}
	checkInverse(t, up, func(s float64) float64 {
		if s <= 10 {
			return 5 * s * s
		}
		return 500 + 100*(s-10)
	}, someN)

	// 1000/s → 200/s over 8 s, then 200/s: count(t) = 1000t − 50t² up to 4800 at 8 s.
	down := must(Ramp(1000, 200, 8*time.Second))
	checkInverse(t, down, func(s float64) float64 {
		if s <= 8 {
			return 1000*s - 50*s*s
		}
		return 4800 + 200*(s-8)
	}, someN)

	// A ramp down to zero ends with its last message.
	toZero := must(Ramp(100, 0, 10*time.Second))
	if got, ok := toZero.Due(500); got != 10*time.Second || !ok {
		t.Errorf("%v: Due(500) = %v, %v; want 10s, true", toZero, got, ok)
	}
	if got, ok := toZero.Due(501); ok {
		t.Errorf("%v: Due(501) = %v, true; want the shape to have ended", toZero, got)
	}

	// from == to is a constant rate.
	flat := must(Ramp(250, 250, time.Second))
	for _, n := range someN {
		got, _ := flat.Due(n)
		want, _ := must(Constant(250)).Due(n)
		if d := got - want; d < -1 || d > 1 {
			t.Errorf("%v: Due(%d) = %v, want %v as for constant:250/s", flat, n, got, want)
		}
	}
}

func TestRampCountsPerSecond(t *testing.T) {
	must := pacerOf(t)
	// 0 → 1000/s over 10 s: second i holds count(i+1) − count(i) = 50·(2i+1) messages.
	p := must(Ramp(0, 1000, 10*time.Second))
	got := perSecond(t, p, 13)
	for i, c := range got {
		want := 1000
		if i < 10 {
			want = 50 * (2*i + 1)
		}
		if c != want {
			t.Errorf("%v: second %d holds %d messages, want %d", p, i, c, want)
		}
	}
}

func TestSteps(t *testing.T) {
	must := pacerOf(t)
	p := must(Steps(Step{10, time.Second}, Step{50, 2 * time.Second}, Step{0, time.Second}, Step{20, time.Second}))
	got := perSecond(t, p, 7)
	want := []int{10, 50, 50, 0, 20, 20, 20} // the last rate goes on
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%v: second %d holds %d messages, want %d", p, i, got[i], want[i])
		}
	}
	// The first message of a step is due exactly at its boundary; a pause moves it to the
	// end of the pause.
	for _, tc := range []struct {
		n    uint64
		want time.Duration
	}{{9, 900 * time.Millisecond}, {10, time.Second}, {110, 4 * time.Second}, {130, 5 * time.Second}} {
		if got, ok := p.Due(tc.n); got != tc.want || !ok {
			t.Errorf("%v: Due(%d) = %v, %v; want %v, true", p, tc.n, got, ok, tc.want)
		}
	}

	// A zero last rate ends the shape after the last message of the steps before it.
	end := must(Steps(Step{10, time.Second}, Step{0, time.Second}))
	if got, ok := end.Due(9); got != 900*time.Millisecond || !ok {
		t.Errorf("%v: Due(9) = %v, %v; want 900ms, true", end, got, ok)
	}
	if got, ok := end.Due(10); ok {
		t.Errorf("%v: Due(10) = %v, true; want the shape to have ended", end, got)
	}
}

func TestSine(t *testing.T) {
	must := pacerOf(t)
	const mean, amp, period = 1000.0, 500.0, 60.0
	p := must(Sine(mean, amp, period*time.Second))
	cum := func(s float64) float64 {
		return mean*s + amp*period/(2*math.Pi)*(1-math.Cos(2*math.Pi*s/period))
	}
	checkInverse(t, p, cum, someN)
	// A whole period holds exactly mean·period messages.
	if got, ok := p.Due(60000); got != time.Minute || !ok {
		t.Errorf("%v: Due(60000) = %v, %v; want 1m0s, true", p, got, ok)
	}

	counts := perSecond(t, p, 60)
	peak, trough := 0, 0
	for i, c := range counts {
		if want := cum(float64(i+1)) - cum(float64(i)); math.Abs(float64(c)-want) > 1 {
			t.Errorf("%v: second %d holds %d messages, want %.1f ± 1", p, i, c, want)
		}
		if c > counts[peak] {
			peak = i
		}
		if c < counts[trough] {
			trough = i
		}
	}
	// The rate peaks at period/4 = 15 s and bottoms out at 45 s: the seconds on either side.
	if peak != 14 && peak != 15 {
		t.Errorf("%v: busiest second is %d (%d messages), want 14 or 15 around period/4", p, peak, counts[peak])
	}
	if trough != 44 && trough != 45 {
		t.Errorf("%v: quietest second is %d (%d messages), want 44 or 45 around 3·period/4", p, trough, counts[trough])
	}

	// amplitude == mean touches zero at 3·period/4 and still inverts.
	full := must(Sine(10, 10, 4*time.Second))
	checkInverse(t, full, func(s float64) float64 {
		return 10*s + 10*4/(2*math.Pi)*(1-math.Cos(2*math.Pi*s/4))
	}, someN)
}

func TestUntil(t *testing.T) {
	must := pacerOf(t)
	p := must(Until(must(Constant(100)), time.Second))
	if got, ok := p.Due(99); got != 990*time.Millisecond || !ok {
		t.Errorf("%v: Due(99) = %v, %v; want 990ms, true", p, got, ok)
	}
	for _, n := range []uint64{100, 101, 1e9} {
		if got, ok := p.Due(n); ok {
			t.Errorf("%v: Due(%d) = %v, true; want the shape to have ended at 1s", p, n, got)
		}
	}
}

// TestDueMonotonic checks the promise every Pacer makes: Due never goes back as n grows, and
// once a shape has ended it stays ended.
func TestDueMonotonic(t *testing.T) {
	must := pacerOf(t)
	shapes := []string{
		"constant:7/s", "constant:1000000/s", "3/h",
		"ramp:0/s-1000/s:10s", "ramp:1000/s-0/s:10s", "ramp:5/s-70000/s:3s", "ramp:70000/s-5/s:3s",
		"steps:100/s@1s,0/s@1s,2000/s@500ms,1/s@1s", "steps:1000/s@1s,0/s@1s",
		"sine:1000/s±1000/s:2s", "sine:50000/s±100/s:1s", "sine:3/s±1/s:1h",
	}
	for _, s := range shapes {
		p := must(ParseShape(s))
		prev, ended := time.Duration(0), false
		for n := uint64(0); n < 200_000; n++ {
			d, ok := p.Due(n)
			if ended && ok {
				t.Errorf("%v: Due(%d) = %v after the shape ended", p, n, d)
				break
			}
			if !ok {
				ended = true
				continue
			}
			if d < prev {
				t.Errorf("%v: Due(%d) = %v < Due(%d) = %v", p, n, d, n-1, prev)
				break
			}
			prev = d
		}
	}
}

func TestDueOutOfRange(t *testing.T) {
	must := pacerOf(t)
	// 2^63 ns is about 292 years: a message due later than that is never sent.
	for _, s := range []string{"1/h", "ramp:0/s-1/h:1h", "steps:1/h@1h", "sine:1/h±1/h:1h"} {
		p := must(ParseShape(s))
		if got, ok := p.Due(math.MaxUint64); ok {
			t.Errorf("%v: Due(MaxUint64) = %v, true; want ended", p, got)
		}
	}
}

func TestConstructorErrors(t *testing.T) {
	must := pacerOf(t)
	nan, inf := Rate(math.NaN()), Rate(math.Inf(1))
	c := must(Constant(1))
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"Constant(0)", second(Constant(0))},
		{"Constant(-1)", second(Constant(-1))},
		{"Constant(NaN)", second(Constant(nan))},
		{"Constant(Inf)", second(Constant(inf))},
		{"Constant(2e9)", second(Constant(2e9))},
		{"Ramp(0, 0, 1s)", second(Ramp(0, 0, time.Second))},
		{"Ramp(-1, 5, 1s)", second(Ramp(-1, 5, time.Second))},
		{"Ramp(1, 5, 0)", second(Ramp(1, 5, 0))},
		{"Steps()", second(Steps())},
		{"Steps(0@1s)", second(Steps(Step{0, time.Second}))},
		{"Steps(1@0s)", second(Steps(Step{1, 0}))},
		{"Steps(overflow)", second(Steps(Step{1, math.MaxInt64}, Step{1, 1}))},
		{"Sine(0, 0, 1s)", second(Sine(0, 0, time.Second))},
		{"Sine(1, 2, 1s)", second(Sine(1, 2, time.Second))},
		{"Sine(1, -1, 1s)", second(Sine(1, -1, time.Second))},
		{"Sine(1, 1, -1s)", second(Sine(1, 1, -time.Second))},
		{"Until(nil, 1s)", second(Until(nil, time.Second))},
		{"Until(c, 0)", second(Until(c, 0))},
	} {
		if tc.err == nil {
			t.Errorf("%s: no error, want one", tc.name)
		}
	}
}

func second(_ Pacer, err error) error { return err }

func BenchmarkDue(b *testing.B) {
	must := pacerOf(b)
	for _, s := range []string{"constant:20000/s", "ramp:1000/s-20000/s:30s", "steps:1000/s@10s,5000/s@10s,20000/s@10s", "sine:10000/s±5000/s:60s"} {
		p := must(ParseShape(s))
		kind, _, _ := strings.Cut(s, ":")
		b.Run(kind, func(b *testing.B) {
			b.ReportAllocs()
			var n uint64
			for b.Loop() {
				p.Due(n)
				n++
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "dues/s")
		})
	}
}

// TestShare checks that n shares of a shape send its messages between them at its due times:
// the union of the shares' due times is the shape's, and each share paces 1/n of the rate.
func TestShare(t *testing.T) {
	must := pacerOf(t)
	p := must(Ramp(1000, 5000, 10*time.Second))
	for n := 1; n <= 4; n++ {
		var union []time.Duration
		for i := range n {
			s, err := Share(p, i, n)
			if err != nil {
				t.Fatal(err)
			}
			for k := uint64(0); k < 3000/uint64(n); k++ {
				d, ok := s.Due(k)
				if !ok {
					t.Fatalf("share %d/%d: message %d not sent", i, n, k)
				}
				union = append(union, d)
			}
		}
		slices.Sort(union)
		for m, got := range union {
			if want, _ := p.Due(uint64(m)); got != want {
				t.Fatalf("n=%d: message %d of the union due at %v, want %v", n, m, got, want)
			}
		}
	}
	if _, err := Share(p, 4, 4); err == nil {
		t.Error("Share(p, 4, 4): no error")
	}
}
