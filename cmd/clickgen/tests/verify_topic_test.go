package tests

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
)

// TestVerifyMissingTopicThatGetsNothing: run day 0 sends no snapshot, so a cluster without an
// orders topic holds exactly what it sends there; verify reconciles (exit 0). Asked about two
// days, whose run sends snapshot 0, the same missing topic is a failure naming it.
func TestVerifyMissingTopicThatGetsNothing(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "hits"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	verifyMissingTopicThatGetsNothing(t, strings.Join(c.ListenAddrs(), ","))
}

// verifyMissingTopicThatGetsNothing is TestVerifyMissingTopicThatGetsNothing at addr, which
// holds an empty topic hits and no topic orders.
func verifyMissingTopicThatGetsNothing(t *testing.T, addr string) {
	if _, errs, code := clickgen(t, concatArgs([]string{"batch", "--day", "0", "--brokers", addr, "--topic", "hits"}, smallWorld)...); code != 0 {
		t.Fatalf("batch: exit %d: %s", code, errs)
	}
	out, errs, code := clickgen(t, concatArgs([]string{"verify", "--brokers", addr, "--day", "0"}, smallWorld)...)
	if code != 0 || !strings.Contains(errs, "orders does not exist, and run day 0 (2026-06-01) sends nothing to it") {
		t.Errorf("verify --day 0 without an orders topic: exit %d, want 0 and a note on stderr\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	out, errs, code = clickgen(t, concatArgs([]string{"verify", "--brokers", addr, "--day", "0", "--days", "2"}, smallWorld)...)
	if code != 1 || !strings.Contains(errs, "orders") || !strings.Contains(errs, "does not exist") {
		t.Errorf("verify --days 2 without an orders topic: exit %d, want 1 naming the missing topic\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
}
