package main

import (
	"strings"
	"testing"
)

// TestVerifyOneDayAmongMany is issue 38 item 3 as the newcomer met it: after days 0–7 and
// then day 8 were sent, `verify --day 8 --days 1` ended with 412 784 unexpected messages and
// read "353200 of 49557 expected messages". The run's day verifies OK among the others, which
// are counted as other runs'; --strict, for topics that must hold the run alone, makes them
// unexpected (exit 1); and the Kafka table fits 100 columns.
func TestVerifyOneDayAmongMany(t *testing.T) {
	_, addr := kfakeCluster(t)
	small := []string{"--scale", "0.05"}
	for _, args := range [][]string{
		{"batch", "--day", "0", "--days", "3", "--brokers", addr, "--topic", "hits"},
		{"snapshot", "--day", "0", "--days", "3", "--brokers", addr, "--topic", "orders"},
		{"batch", "--day", "3", "--brokers", addr, "--topic", "hits"},
		{"snapshot", "--day", "3", "--brokers", addr, "--topic", "orders"},
	} {
		if _, errs, code := clickgen(t, concatArgs(args, small)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errs)
		}
	}
	out, errs, code := clickgen(t, concatArgs([]string{"verify", "--brokers", addr, "--day", "3", "--days", "1"}, small)...)
	if code != 0 || !strings.Contains(out, "\nother runs'") || !strings.Contains(out, "messages name model days outside the run (days 0–2)") ||
		!strings.Contains(errs, "of other runs (days 0–2, outside it; not judged)") {
		t.Errorf("verify --day 3 among days 0–3: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for i, line := range strings.Split(out, "\n") {
		if n := len([]rune(line)); n > 100 {
			t.Errorf("stdout line %d is %d columns: %q", i+1, n, line)
		}
	}
	out, _, code = clickgen(t, concatArgs([]string{"verify", "--brokers", addr, "--day", "3", "--days", "1", "--strict"}, small)...)
	if code != 1 || !strings.Contains(out, "unexpected") || strings.Contains(out, "\nother runs'") {
		t.Errorf("verify --strict of day 3 among days 0–3: exit %d, want 1 with the other days unexpected:\n%s", code, out)
	}
}
