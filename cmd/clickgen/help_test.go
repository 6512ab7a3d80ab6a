package main

import (
	"strings"
	"testing"
)

// TestHelpConsistent is issue 31: every verb's help fits in 100 columns (lines of 126 were
// found), names the exit codes the verb returns (some verbs did not), shows defaults as a
// user reads them (run --days (default 1) though fill plays 8; --max-memory (default 0
// bytes); 2m0s) and lists only the flags that apply (verify listed producer flags), verify's
// Kafka and ClickHouse flags in two labelled groups.
func TestHelpConsistent(t *testing.T) {
	for _, v := range []string{"run", "profiles", "batch", "live", "snapshot", "inventory", "verify", "plot", "inject", "catalog", "broker", "schema", "version"} {
		out, errs, code := clickgen(t, v, "--help")
		if code != 0 || errs != "" {
			t.Errorf("%s --help: exit %d, stderr %q", v, code, errs)
		}
		for i, line := range strings.Split(out, "\n") {
			if n := len([]rune(line)); n > 100 {
				t.Errorf("%s --help line %d is %d columns: %q", v, i+1, n, line)
			}
		}
		if !strings.Contains(out, "\nExit codes: 0 ") || !strings.Contains(out, ", 2 for usage errors") {
			t.Errorf("%s --help does not name its exit codes:\n%s", v, out)
		}
		for _, bad := range []string{"(default 0 bytes)", "m0s)", "h0m", "[=true|false]"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s --help shows %q", v, bad)
			}
		}
	}
	out, _, _ := clickgen(t, "run", "--help")
	if strings.Contains(out, "(default 1)") || strings.Contains(out, "(default 20260601)") || !strings.Contains(out, "env KAFKA_BOOTSTRAP_SERVERS") {
		t.Errorf("run --help shows a default its profile decides, or not the variable it reads:\n%s", out)
	}
	out, _, _ = clickgen(t, "verify", "--help")
	k := strings.Index(out, "\nKafka flags:\n")
	c := strings.Index(out, "\nClickHouse flags:\n")
	if k < 0 || c < k || !strings.Contains(out[k:c], "--brokers") || !strings.Contains(out[k:c], "--hits-partitions") ||
		!strings.Contains(out[c:], "--clickhouse URL") || !strings.Contains(out[c:], "--events-table") || !strings.Contains(out[c:], "--wait") {
		t.Errorf("verify --help: want the Kafka and the ClickHouse flags in two labelled groups:\n%s", out)
	}
	for _, producer := range []string{"--delivery-timeout", "--linger", "--compression", "--follow-", "--create-topics", "--flush-timeout", "--metrics-addr"} {
		if strings.Contains(out, producer) {
			t.Errorf("verify --help lists the producer flag %s", producer)
		}
	}
}
