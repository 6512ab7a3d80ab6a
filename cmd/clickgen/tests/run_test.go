package tests

import (
	"strings"
	"testing"
)

// TestRunIntoBrokers plays smoke into a separate cluster: the topics then hold exactly the
// expected counts, and the expectation is checked against what was acknowledged.
func TestRunIntoBrokers(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	_, addr := kfakeCluster(t)
	runIntoBrokers(t, addr)
}

// runIntoBrokers is TestRunIntoBrokers on empty topics hits and orders at addr.
func runIntoBrokers(t *testing.T, addr string) {
	out, errs, code := clickgen(t, "run", "smoke", "--brokers", addr)
	if code != 0 {
		t.Fatalf("run smoke --brokers: exit %d: %s", code, errs)
	}
	if n := len(consume(t, addr, "hits")); n != 2282 {
		t.Errorf("topic hits holds %d messages, want 2282", n)
	}
	if n := len(consume(t, addr, "orders")); n != 3 {
		t.Errorf("topic orders holds %d messages, want 3", n)
	}
	if !strings.Contains(out, "expect hits: 2282 messages, profile smoke says 2282: ok") || strings.Contains(out, "OK:") {
		t.Errorf("with --brokers, run checks the expected counts and reconciles nothing (no read-back):\n%s", out)
	}
}
