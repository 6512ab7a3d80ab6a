package play

import (
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/pace"
)

// TestAllowed: allowed counts the messages a shape releases before t, the inverse of Due.
func TestAllowed(t *testing.T) {
	c, _ := pace.Constant(1000)
	r, _ := pace.Ramp(0, 2000, 10*time.Second)
	s, _ := pace.Steps(pace.Step{Rate: 100, For: time.Second}, pace.Step{Rate: 0, For: time.Second}, pace.Step{Rate: 1000, For: time.Second})
	for _, tc := range []struct {
		p    pace.Pacer
		t    time.Duration
		want uint64
	}{
		{c, 0, 0}, {c, time.Millisecond, 1}, {c, time.Second, 1000}, {c, time.Second + 1, 1001},
		{r, 10 * time.Second, 10000}, {r, 5 * time.Second, 2500}, {r, 11 * time.Second, 12000},
		{s, time.Second, 100}, {s, 2 * time.Second, 100}, {s, 2*time.Second + 1, 101}, {s, 3 * time.Second, 1100},
	} {
		if got := allowed(tc.p, tc.t); got != tc.want {
			t.Errorf("allowed(%s, %v) = %d, want %d", tc.p, tc.t, got, tc.want)
		}
	}
	if got := AllowedRate(r, 0, 10*time.Second); got != 1000 {
		t.Errorf("mean rate of %s over its ramp = %v, want 1000", r, got)
	}
	if got := AllowedRate(r, 9*time.Second, 10*time.Second); got != 1900 {
		t.Errorf("rate of %s in its last second = %v, want 1900", r, got)
	}
}
