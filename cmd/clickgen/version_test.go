package main

import (
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionOf: what `clickgen version` names, from what the toolchain stamped and what was
// linked with -X (issue 38: a build without a VCS stamp printed "devel" and no commit, so two
// builds could not be told apart).
func TestVersionOf(t *testing.T) {
	stamped := &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260606180300-14c5176abcde"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "14c5176abcde0123456789abcdef0123456789ab"}, {Key: "vcs.modified", Value: "true"}}}
	unstamped := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}
	for _, tc := range []struct {
		name           string
		bi             *debug.BuildInfo
		linked, commit string
		want           string
	}{
		{"stamped by the toolchain", stamped, "", "", "clickgen v0.0.0-20260606180300-14c5176abcde (commit 14c5176abcde+dirty, world "},
		{"no stamp, nothing linked", unstamped, "", "", "clickgen devel (commit unknown, world "},
		{"no build information", nil, "", "", "clickgen devel (commit unknown, world "},
		{"no stamp, the commit linked", unstamped, "", "0477c19c7c3ce46d78467f3124d099c714dec38a", "clickgen devel (commit 0477c19c7c3c, world "},
		{"linked over stamped", stamped, "v1.2.3", "0477c19c7c3ce46d78467f3124d099c714dec38a", "clickgen v1.2.3 (commit 0477c19c7c3c, world "},
		{"a short commit", unstamped, "", "0477c19", "clickgen devel (commit 0477c19, world "},
	} {
		if got := versionLine(versionOf(tc.bi, tc.linked, tc.commit)); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %q…", tc.name, got, tc.want)
		}
	}
}

// TestVersionLinked builds the command as the README's install recipe and the image do,
// without a VCS stamp and with -X main.version and -X main.commit, and runs its version verb.
func TestVersionLinked(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := filepath.Join(t.TempDir(), "clickgen")
	build := exec.Command("go", "build", "-buildvcs=false", "-ldflags",
		"-X main.version=v9.8.7 -X main.commit=0123456789abcdef0123456789abcdef01234567", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if want := "clickgen v9.8.7 (commit 0123456789ab, world "; err != nil || !strings.HasPrefix(string(out), want) {
		t.Errorf("version: %q, %v; want %q…", out, err, want)
	}
}
