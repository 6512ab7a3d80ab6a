package verify

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/verify/topics"
)

// flags names the fields as the command line's flags do.
func flags(key string, _ bool) string {
	return map[string]string{"HitPartitions": "--hits-partitions", "OrderPartitions": "--orders-partitions", "Timeout": "--timeout"}[key]
}

// TestRunError: a partition count that differs says which setting to give (by the caller's
// names: the flag), running out of time names the timeout, and both still wrap what Run
// returned.
func TestRunError(t *testing.T) {
	c := &Config{Kafka: &Kafka{HitsTopic: "raw", OrdersTopic: "ord", Timeout: 5 * time.Minute}, Names: flags}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("verify: %w: whatever", &topics.PartitionsError{Topic: "raw", Has: 2, Want: 3}),
			"verify: topic raw has 2 partitions, but its keys are checked against 3: if it was created so, say --hits-partitions 2"},
		{fmt.Errorf("verify: %w: whatever", &topics.PartitionsError{Topic: "ord", Has: 4, Want: 1}),
			"verify: topic ord has 4 partitions, but its keys are checked against 1: if it was created so, say --orders-partitions 4"},
		{&topics.TimeoutError{Timeout: c.Kafka.Timeout, Err: fmt.Errorf("broker: read raw: %w", context.DeadlineExceeded)},
			"verify: broker: read raw: context deadline exceeded (--timeout 5m0s)"},
		{errors.New("verify: other"), "verify: other"},
	} {
		got := c.runError(tc.err)
		if got == nil || got.Error() != tc.want {
			t.Errorf("runError(%v) = %v, want %q", tc.err, got, tc.want)
		}
	}
	var pe *topics.PartitionsError
	if !errors.As(c.runError(&topics.PartitionsError{Topic: "raw"}), &pe) {
		t.Error("runError lost the *PartitionsError")
	}
	if !errors.Is(c.runError(&topics.TimeoutError{Err: context.DeadlineExceeded}), context.DeadlineExceeded) {
		t.Error("runError lost the deadline")
	}
	if c.runError(nil) != nil {
		t.Error("runError(nil) is not nil")
	}
}
