package main

import (
	"os"
	"path/filepath"
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
		{[]string{"run", "--sede", "3"}, "unknown flag: --sede; did you mean --seed?\n"},
		{[]string{"xyzzy"}, "clickgen: unknown verb \"xyzzy\"\n"},
	} {
		_, errs, code := clickgen(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("clickgen %q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestEveryTypedNameGetsASuggestion: each kind of name a user types — a verb, a profile (run
// and profiles show), a profiles subcommand, a flag, a class of inject --class, a class of
// --garbage-mix (on the command line and in a profile file) — is answered with the name it
// was probably meant to be, and exit 2 (issue 38: profiles subcommands and the classes had
// none).
func TestEveryTypedNameGetsASuggestion(t *testing.T) {
	profile := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(profile, []byte("name: mine\ngarbage:\n  rate: 0.01\n  mix:\n    keyset_mismach: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"verfy"}, "did you mean verify?"},
		{[]string{"run", "stres"}, "did you mean stress?"},
		{[]string{"profiles", "show", "fil"}, "did you mean fill?"},
		{[]string{"profiles", "lst"}, `unknown subcommand "lst": want list or show; did you mean list?`},
		{[]string{"profiles", "sho", "fill"}, "did you mean show?"},
		{[]string{"run", "--rat", "5/s"}, "unknown flag: --rat; did you mean --rate?\n"},
		{[]string{"inject", "--class", "keyset_mismach", "--kind", "hits", "--file", "-"}, "did you mean keyset_mismatch?"},
		{[]string{"inject", "--class", "feild_invalid", "--kind", "orders", "--file", "-"}, "did you mean field_invalid?"},
		{[]string{"inventory", "--day", "0", "--garbage-mix", "not_an_objekt=1"}, "did you mean not_an_object?"},
		{[]string{"batch", "--day", "0", "--file", "-", "--garbage-mix", "vanishng=1,keyset_mismatch=1"}, "did you mean vanishing?"},
		{[]string{"run", "--profile-file", profile}, "did you mean keyset_mismatch?"},
	} {
		out, errs, code := clickgen(t, tc.args...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("clickgen %s: exit %d, stdout %d bytes, stderr %q; want 2 and %q", strings.Join(tc.args, " "), code, len(out), errs, tc.want)
		}
	}
}
