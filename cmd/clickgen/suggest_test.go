package main

import (
	"strings"
	"testing"
)

// TestTypos is issue 31: a typo of a verb, a profile or a flag gets a suggestion, exit 2.
func TestTypos(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rnu"}, "clickgen: unknown verb \"rnu\"; did you mean run?\n"},
		{[]string{"inv", "--day", "0"}, `clickgen: unknown verb "inv"; did you mean inventory?`},
		{[]string{"verfy"}, `clickgen: unknown verb "verfy"; did you mean verify?`},
		{[]string{"run", "fil"}, `clickgen: run: unknown profile "fil": want one of fill, garbage, live, smoke, stress, or --profile-file FILE; did you mean fill?`},
		{[]string{"profiles", "show", "stres"}, `unknown profile "stres": want one of fill, garbage, live, smoke, stress, or --profile-file FILE; did you mean stress?`},
		{[]string{"batch", "--day", "0", "--brokrs", "k:9"}, "clickgen: batch: unknown flag: --brokrs; did you mean --brokers?\n"},
		{[]string{"run", "--sede", "3"}, "unknown flag: --sede; did you mean --seed, --send or --speed?"},
		{[]string{"xyzzy"}, "clickgen: unknown verb \"xyzzy\"\n"},
	} {
		_, errs, code := clickgen(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("clickgen %q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}
