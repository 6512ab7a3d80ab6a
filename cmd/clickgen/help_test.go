package main

import (
	"strings"
	"testing"
)

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
