package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/profiles"
)

// TestProfilesListAndShow: `profiles list` names every embedded profile with its description
// and marks the default; `profiles show NAME` prints the embedded file itself, which parses
// back to the profile Load returns.
func TestProfilesListAndShow(t *testing.T) {
	out, errs, code := clickgen(t, "profiles", "list")
	if code != 0 {
		t.Fatalf("profiles list: exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	names := profiles.List()
	if len(lines) != len(names) {
		t.Fatalf("profiles list printed %d lines, want one per profile %v:\n%s", len(lines), names, out)
	}
	for i, name := range names {
		p, _ := profiles.Load(name)
		if !strings.HasPrefix(lines[i], name+" ") || !strings.HasSuffix(lines[i], p.Description) {
			t.Errorf("profiles list line %d = %q, want %s and its description", i, lines[i], name)
		}
		if (name == profiles.Default) != strings.Contains(lines[i], "(default)") {
			t.Errorf("profiles list line %q: the default is %s", lines[i], profiles.Default)
		}

		shown, errs, code := clickgen(t, "profiles", "show", name)
		if code != 0 {
			t.Fatalf("profiles show %s: exit %d: %s", name, code, errs)
		}
		src, _ := profiles.Source(name)
		if shown != string(src) {
			t.Errorf("profiles show %s does not print the embedded file", name)
		}
		got, err := profiles.Parse([]byte(shown))
		if err != nil || got.Name != name {
			t.Errorf("profiles show %s prints YAML that parses to %q, %v", name, got.Name, err)
		}
	}
}

// TestBrokenProfileFile: a broken profile file is a usage error (exit 2, nothing on stdout)
// that names the file and the field, for `profiles show` and for `run` alike; a good one is
// printed back.
func TestBrokenProfileFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		body, want string
	}{
		{"pacing:\n  mode: rate\n  rate: 20000/fortnight\n", "pacing.rate"},
		{"play:\n  days: 2\n  sned: hits\n", "line 3: field sned not found"},
		{"garbage:\n  rate: 0.1\n  mix: {typo: 1}\n", "garbage.mix"},
		{"stop:\n  duration: soon\n", "line 2: cannot unmarshal"},
		{"play:\n  endless: true\n", "play.endless needs stop.duration or stop.messages"},
	} {
		path := write("broken.yaml", tc.body)
		for _, args := range [][]string{
			{"profiles", "show", "--profile-file", path},
			{"run", "--profile-file", path},
		} {
			out, errs, code := clickgen(t, args...)
			if code != 2 || out != "" || !strings.Contains(errs, tc.want) || !strings.Contains(errs, path) {
				t.Errorf("clickgen %q with %q: exit %d, stdout %q, stderr %q; want exit 2 naming the file and %q",
					args, tc.body, code, out, errs, tc.want)
			}
		}
	}
	good := write("mine.yaml", "# my smoke\nworld:\n  scale: 0.01\n")
	out, errs, code := clickgen(t, "profiles", "show", "--profile-file", good)
	if code != 0 || out != "# my smoke\nworld:\n  scale: 0.01\n" {
		t.Errorf("profiles show --profile-file good: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, args := range [][]string{
		{"profiles"}, {"profiles", "lst"}, {"profiles", "show"}, {"profiles", "show", "nope"},
		{"profiles", "show", "fill", "--profile-file", good}, {"profiles", "list", "extra"},
		{"profiles", "show", "--profile-file", filepath.Join(dir, "missing.yaml")},
	} {
		if _, errs, code := clickgen(t, args...); code != 2 {
			t.Errorf("clickgen %q: exit %d (%s), want 2", args, code, errs)
		}
	}
	out, _, code = clickgen(t, "profiles", "--help")
	if code != 0 || !strings.Contains(out, "profiles show") {
		t.Errorf("profiles --help: exit %d: %s", code, out)
	}
}
