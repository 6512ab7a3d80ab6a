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

// TestEveryHelpFitsATerminal walks every verb of the verb table (so a verb added later is
// walked too) the three ways a user asks for its help — VERB --help, VERB -h, help VERB — and
// clickgen help itself: no line is wider than helpWidth columns (issue 38: run --help was
// 147 lines, some of 102–104 columns counted in bytes, and nothing checked the verbs a test
// did not list by name).
func TestEveryHelpFitsATerminal(t *testing.T) {
	asks := [][]string{{"help"}, {"--help"}}
	for _, v := range verbs {
		asks = append(asks, []string{v.name, "--help"}, []string{v.name, "-h"}, []string{"help", v.name})
	}
	for _, args := range asks {
		out, errs, code := clickgen(t, args...)
		if code != 0 || errs != "" || out == "" {
			t.Errorf("clickgen %s: exit %d, stderr %q, %d bytes of help", strings.Join(args, " "), code, errs, len(out))
		}
		for i, line := range strings.Split(out, "\n") {
			if n := len([]rune(line)); n > helpWidth {
				t.Errorf("clickgen %s: line %d is %d columns, want at most %d: %q", strings.Join(args, " "), i+1, n, helpWidth, line)
			}
		}
	}
}

// TestUsageExitSaysWhatWasNotDone: the exit code 2 of each verb's help says what a usage
// error spared, in the verb's terms (issue 38: plot, broker and verify said "nothing was
// sent", though none of them sends), and clickgen help says it for every verb.
func TestUsageExitSaysWhatWasNotDone(t *testing.T) {
	want := map[string]string{
		"run": "nothing was sent", "batch": "nothing was sent", "live": "nothing was sent", "snapshot": "nothing was sent",
		"inject": "nothing was sent", "verify": "nothing was read", "inventory": "nothing was written",
		"plot": "nothing was written", "catalog": "nothing was written", "schema": "nothing was written",
		"version": "nothing was written", "profiles": "nothing was written", "broker": "no broker was started",
	}
	for _, v := range verbs {
		w, ok := want[v.name]
		if !ok {
			t.Errorf("verb %s: no wording of its exit code 2 is expected here: add it", v.name)
			continue
		}
		out, _, _ := clickgen(t, v.name, "--help")
		flat := strings.Join(strings.Fields(out), " ")
		if !strings.Contains(flat, "2 for usage errors") || !strings.Contains(flat, "("+w+")") {
			t.Errorf("%s --help: exit code 2 does not say %q:\n%s", v.name, w, out)
		}
		if w != "nothing was sent" && strings.Contains(flat, "nothing was sent") {
			t.Errorf("%s --help says \"nothing was sent\", though %s sends nothing", v.name, v.name)
		}
	}
	out, _, _ := clickgen(t, "help")
	if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, "2 usage error (refused before anything was read, sent or written)") {
		t.Errorf("clickgen help: exit code 2 is not said for every verb:\n%s", out)
	}
}
