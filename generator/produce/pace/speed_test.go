package pace

import (
	"strings"
	"testing"
	"time"
)

// TestReplaySpeedBounded is issue 24 item 6: a speed so small that a model day's schedule does
// not fit a time.Duration (--speed 1e-9, 1e-15, 1e-300, 5e-324) ended the schedule after one
// message, and the run exited 0. Replay refuses it, naming the slowest speed; CheckReplay does
// the same for a run of several days.
func TestReplaySpeedBounded(t *testing.T) {
	for _, speed := range []float64{1e-9, 1e-15, 1e-300, 5e-324, MinSpeed / 1.0001} {
		if _, err := Replay(speed); err == nil || !strings.Contains(err.Error(), "want a speed of at least 9.4e-06") {
			t.Errorf("Replay(%v) = %v; want it refused, naming 9.4e-06", speed, err)
		}
	}
	for _, speed := range []float64{MinSpeed * 1.0001, 1e-5, 60} {
		s, err := Replay(speed)
		if err != nil {
			t.Errorf("Replay(%v) = %v; want a schedule", speed, err)
			continue
		}
		if _, ok := s(0, 24*time.Hour-time.Second); !ok {
			t.Errorf("Replay(%v): the day's last second is not due", speed)
		}
	}
	if err := CheckReplay(1e-5, 8*24*time.Hour); err == nil || !strings.Contains(err.Error(), "192h0m0s of model time would take") {
		t.Errorf("CheckReplay(1e-5, 8 days) = %v; want it refused", err)
	}
}
