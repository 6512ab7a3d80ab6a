package tests

import (
	"testing"
)

// TestStressIntoBrokers: stress against a separate cluster sends exactly --messages, and
// skips the read-back.
func TestStressIntoBrokers(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	_, addr := kfakeCluster(t)
	stressIntoBrokers(t, addr)
}

// stressIntoBrokers is TestStressIntoBrokers on an empty topic hits at addr.
func stressIntoBrokers(t *testing.T, addr string) {
	out, errs, code := clickgen(t, "run", "stress", "--brokers", addr, "--rate", "100000/s", "--messages", "3000", "--max-rate", "200000/s")
	if code != 0 || out != "" {
		t.Fatalf("run stress --brokers: exit %d, stdout %q, stderr:\n%s", code, out, errs)
	}
	if n := len(consume(t, addr, "hits")); n != 3000 {
		t.Errorf("topic hits holds %d messages, want 3000", n)
	}
}
