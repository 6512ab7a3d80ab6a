package profiles

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// TestProfileIntegersAreDecimal is issue 24 Medium 2 and 3 for profile files: YAML reads
// 010 as octal 8 and 0x10 as 16, and decoded world.seed 18446744073709551616 as
// 9223372036854775808 and 1.5 as 1. A profile's whole numbers are decimal as on the command
// line (leading zeros read as decimal), and a seed that is not a whole number of 64 bits is
// refused.
func TestProfileIntegersAreDecimal(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		got  func(Profile) int64
		want int64
	}{
		{"play:\n  day: 010\n", func(p Profile) int64 { return int64(p.Play.Day) }, 10},
		{"play:\n  days: 012\n", func(p Profile) int64 { return int64(p.Play.Days) }, 12},
		{"world:\n  seed: 010\n", func(p Profile) int64 { return int64(p.World.Seed) }, 10},
		{"world:\n  seed: 18446744073709551615\n", func(p Profile) int64 { return int64(p.World.Seed) }, -1},
		{"stop:\n  messages: 0100\n", func(p Profile) int64 { return p.Stop.Messages }, 100},
		{"expect:\n  hits: 010\n", func(p Profile) int64 { return *p.Expect.Hits }, 10},
		{"play:\n  day: +7\n", func(p Profile) int64 { return int64(p.Play.Day) }, 7},
	} {
		p, err := Parse([]byte(tc.yaml))
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.yaml, err)
			continue
		}
		if got := tc.got(p); got != tc.want {
			t.Errorf("Parse(%q) = %d, want %d", tc.yaml, got, tc.want)
		}
	}
	for _, tc := range []struct {
		yaml, want string
	}{
		{"play:\n  day: 0x10\n", `play.day: "0x10" must be a decimal integer (0x, 0o, 0b, exponents, spaces and _ are not read; leading zeros are) (line 2)`},
		{"play:\n  days: 0o10\n", `play.days: "0o10" must be a decimal integer`},
		{"stop:\n  messages: 1_000\n", `stop.messages: "1_000" must be a decimal integer`},
		{"world:\n  seed: 0x10\n", `world.seed: "0x10" must be a decimal integer`},
		{"world:\n  seed: 1.5\n", `world.seed: "1.5" is not a whole number (line 2)`},
		{"world:\n  seed: 18446744073709551616\n", `world.seed: 18446744073709551616 is out of range: want 0 to 18446744073709551615 (line 2)`},
		{"world:\n  seed: -1\n", `world.seed: -1 is out of range: want 0 to 18446744073709551615 (line 2)`},
		{"play:\n  day: 9223372036854775808\n", `play.day: 9223372036854775808 is out of range: want -9223372036854775808 to 9223372036854775807 (line 2)`},
	} {
		if _, err := Parse([]byte(tc.yaml)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q", tc.yaml, err, tc.want)
		}
	}
}

// TestProfileMixWeightsAreDecimal: the class weights of a garbage.mix mapping are integers a
// user types too; YAML read {not_an_object: 010} as weight 8.
func TestProfileMixWeightsAreDecimal(t *testing.T) {
	p, err := Parse([]byte("garbage:\n  rate: 0.1\n  mix:\n    not_an_object: 010\n    keyset_mismatch: 3\n"))
	if err != nil || p.Garbage.Mix["not_an_object"] != 10 || p.Garbage.Mix["keyset_mismatch"] != 3 {
		t.Errorf("mix {not_an_object: 010, keyset_mismatch: 3} = %v, %v; want weights 10 and 3", p.Garbage.Mix, err)
	}
	want := `garbage.mix.not_an_object: "0x10" must be a decimal integer`
	if _, err := Parse([]byte("garbage:\n  rate: 0.1\n  mix:\n    not_an_object: 0x10\n")); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("mix {not_an_object: 0x10}: %v, want %q", err, want)
	}
}

// TestMixOverrideNeedsGarbage: --garbage-mix on a profile without garbage is refused (issue 24
// Low 4); on one that makes garbage it replaces the mix.
func TestMixOverrideNeedsGarbage(t *testing.T) {
	mix := world.Mix{"not_an_object": 1}
	fill, err := Load("fill")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fill.Apply(Overrides{Mix: &mix}); !errors.Is(err, ErrMixWithoutRate) || !strings.Contains(err.Error(), "garbage.mix without garbage.rate") {
		t.Errorf("fill with --garbage-mix: %v, want it refused", err)
	}
	g, err := Load("garbage")
	if err != nil {
		t.Fatal(err)
	}
	if p, err := g.Apply(Overrides{Mix: &mix}); err != nil || len(p.Garbage.Mix) != 1 {
		t.Errorf("garbage with --garbage-mix: mix %v, %v; want the one class", p.Garbage.Mix, err)
	}
}

// TestProfileSizeBounded is issue 24 Low 7: decoding a profile is quadratic in the keys of a
// mapping (yaml.v3 checks every pair for duplicates, and words an error for each): 10 000
// keys took 0.47 s, 40 000 7 s and 200 000 over a minute, deaf to SIGTERM. A mapping of
// more keys than any profile has is refused before it is decoded (the refusal is ours, not
// the decoder's), and so is a file over 1 MiB.
func TestProfileSizeBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("play:\n  day: 0\ngarbage:\n  rate: 0.1\n  mix:\n")
	for i := range 10000 {
		fmt.Fprintf(&b, "    k%d: 1\n", i)
	}
	const want = "garbage.mix: 10000 keys (line 6), want at most 256: no profile has more than a few dozen fields"
	if _, err := Parse([]byte(b.String())); err == nil || err.Error() != want {
		t.Errorf("10 000 mix keys: %.300v, want %q", err, want)
	}
	top := "play:\n  day: 0\n" + strings.Repeat("x: 1\n", 300)
	if _, err := Parse([]byte(top)); err == nil || !strings.Contains(err.Error(), "the profile: 301 keys (line 1), want at most 256") {
		t.Errorf("301 top-level keys: %.300v, want them refused", err)
	}
	file := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(file, []byte("play:\n  day: 0\n"+strings.Repeat("# padding\n", 110000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(t.Context(), file); err == nil || !strings.Contains(err.Error(), "profile file "+file+": 1100015 bytes, larger than 1 MiB: a profile is a few dozen lines") {
		t.Errorf("a 1.1 MB profile: %v, want it refused", err)
	}
}
