package main

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/verify/topics"
)

// TestVerifyRunError: a partition count that differs says which flag to give, running out
// of time names --timeout, and both still wrap what Run returned.
func TestVerifyRunError(t *testing.T) {
	v := &topics.Verify{HitsTopic: "raw", OrdersTopic: "ord", Timeout: 5 * time.Minute}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("verify: %w: whatever", &topics.PartitionsError{Topic: "raw", Has: 2, Want: 3}),
			"verify: topic raw has 2 partitions, but its keys are checked against 3: if it was created so, say --hits-partitions 2"},
		{fmt.Errorf("verify: %w: whatever", &topics.PartitionsError{Topic: "ord", Has: 4, Want: 1}),
			"verify: topic ord has 4 partitions, but its keys are checked against 1: if it was created so, say --orders-partitions 4"},
		{&topics.TimeoutError{Timeout: v.Timeout, Err: fmt.Errorf("broker: read raw: %w", context.DeadlineExceeded)},
			"verify: broker: read raw: context deadline exceeded (--timeout 5m0s)"},
		{errors.New("verify: other"), "verify: other"},
	} {
		got := verifyRunError(v, tc.err)
		if got == nil || got.Error() != tc.want {
			t.Errorf("verifyRunError(%v) = %v, want %q", tc.err, got, tc.want)
		}
	}
	var pe *topics.PartitionsError
	if !errors.As(verifyRunError(v, &topics.PartitionsError{Topic: "raw"}), &pe) {
		t.Error("verifyRunError lost the *PartitionsError")
	}
	if !errors.Is(verifyRunError(v, &topics.TimeoutError{Err: context.DeadlineExceeded}), context.DeadlineExceeded) {
		t.Error("verifyRunError lost the deadline")
	}
	if verifyRunError(v, nil) != nil {
		t.Error("verifyRunError(nil) is not nil")
	}
}
