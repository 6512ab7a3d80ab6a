package session

import (
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
		if got := Version(tc.bi, tc.linked, tc.commit); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %q…", tc.name, got, tc.want)
		}
	}
}
