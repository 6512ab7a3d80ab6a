package field

import (
	"slices"
	"testing"
)

// TestNearest: what a typo is taken for.
func TestNearest(t *testing.T) {
	for word, want := range map[string][]string{"ver": {"verify", "version"}, "rnu": {"run"}, "x": nil, "verfiy": {"verify"}, "schema": nil} {
		if got := Nearest(word, []string{"verify", "version", "run", "schema"}); !slices.Equal(got, want) {
			t.Errorf("Nearest(%q) = %q, want %q", word, got, want)
		}
	}
	if d := editDistance("brokrs", "brokers"); d != 1 {
		t.Errorf("editDistance(brokrs, brokers) = %d", d)
	}
}

// TestNearestOnly: only the nearest names are offered (issue 38: --rat suggested
// "--rate or --day"; --rate is one edit away, --day two); a name a typed word begins counts
// as one edit (inv, ver); ties are all offered, in the candidates' order.
func TestNearestOnly(t *testing.T) {
	flags := []string{"day", "days", "rate", "max-rate", "seed", "send", "speed", "scale"}
	for word, want := range map[string][]string{
		"rat": {"rate"}, "sede": {"seed"}, "sped": {"seed", "speed"}, "dya": {"day"}, "dayz": {"day", "days"},
		"sca": {"scale"}, "zzz": nil, "x": nil,
	} {
		if got := Nearest(word, flags); !slices.Equal(got, want) {
			t.Errorf("Nearest(%q) = %q, want %q", word, got, want)
		}
	}
	if got := Nearest("ver", []string{"verify", "version", "live"}); !slices.Equal(got, []string{"verify", "version"}) {
		t.Errorf("Nearest(ver) = %q, want both verbs it begins", got)
	}
}
