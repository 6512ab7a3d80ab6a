package pace

import (
	"testing"
	"time"
)

// TestScheduled: Scheduled counts the messages a shape releases before t, the inverse of Due.
func TestScheduled(t *testing.T) {
	c, _ := Constant(1000)
	r, _ := Ramp(0, 2000, 10*time.Second)
	s, _ := Steps(Step{Rate: 100, For: time.Second}, Step{Rate: 0, For: time.Second}, Step{Rate: 1000, For: time.Second})
	for _, tc := range []struct {
		p    Pacer
		t    time.Duration
		want uint64
	}{
		{c, 0, 0}, {c, time.Millisecond, 1}, {c, time.Second, 1000}, {c, time.Second + 1, 1001},
		{r, 10 * time.Second, 10000}, {r, 5 * time.Second, 2500}, {r, 11 * time.Second, 12000},
		{s, time.Second, 100}, {s, 2 * time.Second, 100}, {s, 2*time.Second + 1, 101}, {s, 3 * time.Second, 1100},
	} {
		if got := Scheduled(tc.p, tc.t); got != tc.want {
			t.Errorf("Scheduled(%s, %v) = %d, want %d", tc.p, tc.t, got, tc.want)
		}
	}
	if got := AllowedRate(r, 0, 10*time.Second); got != 1000 {
		t.Errorf("mean rate of %s over its ramp = %v, want 1000", r, got)
	}
	if got := AllowedRate(r, 9*time.Second, 10*time.Second); got != 1900 {
		t.Errorf("rate of %s in its last second = %v, want 1900", r, got)
	}
}

// TestShapeName: a constant rate is spelled bare, every other shape as its String.
func TestShapeName(t *testing.T) {
	c, _ := Constant(20000)
	r, _ := Ramp(1000, 20000, 30*time.Second)
	for _, tc := range []struct {
		p    Pacer
		want string
	}{{c, "20000/s"}, {r, r.String()}} {
		if got := ShapeName(tc.p); got != tc.want {
			t.Errorf("ShapeName(%s) = %q, want %q", tc.p, got, tc.want)
		}
	}
}
