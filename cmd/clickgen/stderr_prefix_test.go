package main

import (
	"strings"
	"testing"
)

// TestEveryStderrLinePrefixed is issue 35's P15: one verdict line lacked the `clickgen:`
// prefix every other line on stderr has — a followed group's "follow g: NOT drained …", so
// a log filter on the prefix lost the verdict. Every line of a run whose followed group does
// not drain, its verdict included, begins with "clickgen: ".
func TestEveryStderrLinePrefixed(t *testing.T) {
	_, addr := kfakeCluster(t)
	_, errs, code := clickgen(t, "batch", "--day", "0", "--limit", "100", "--brokers", addr, "--topic", "hits",
		"--follow-group", "nobody", "--follow-timeout", "1s")
	if code != 1 || !strings.Contains(errs, "follow nobody: NOT drained within 1s") {
		t.Fatalf("exit %d, want 1 and the group not drained:\n%s", code, errs)
	}
	for _, l := range strings.Split(strings.TrimRight(errs, "\n"), "\n") {
		if !strings.HasPrefix(l, "clickgen: ") {
			t.Errorf("a line without the prefix: %q", l)
		}
	}
}
