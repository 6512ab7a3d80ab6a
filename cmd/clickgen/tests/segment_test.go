package tests

import (
	"strings"
	"testing"
)

// TestVerifySegment: a topic one segment filled alone verifies with --segment, and not as
// the whole run.
func TestVerifySegment(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	_, addr := kfakeCluster(t)
	verifySegment(t, addr)
}

// verifySegment is TestVerifySegment on empty topics hits and orders at addr.
func verifySegment(t *testing.T, addr string) {
	run := concatArgs([]string{"--day", "1", "--days", "1"}, smallWorld, allGarbage, []string{"--segment", "1/2"})
	for _, verb := range []struct{ name, topic string }{{"batch", "hits"}, {"snapshot", "orders"}} {
		if _, errs, code := clickgen(t, concatArgs([]string{verb.name}, run, []string{"--brokers", addr, "--topic", verb.topic})...); code != 0 {
			t.Fatalf("%s: exit %d: %s", verb.name, code, errs)
		}
	}
	if out, errs, code := clickgen(t, concatArgs([]string{"verify", "--brokers", addr}, run)...); code != 0 {
		t.Fatalf("verify --segment 1/2 of segment 1/2: exit %d\n%s\n%s", code, out, errs)
	}
	whole := concatArgs([]string{"verify", "--brokers", addr, "--day", "1", "--days", "1"}, smallWorld, allGarbage)
	if out, _, code := clickgen(t, whole...); code != 1 || !strings.Contains(out, "missing") {
		t.Errorf("verify of the whole run against one segment: exit %d, want 1 naming missing messages\n%s", code, out)
	}
}
