package session

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// versionOf is the module version (linked, else the one the toolchain stamped: a tag, or a
// pseudo-version naming the commit; "devel" when there is none) and the commit (linked, else
// the stamped vcs.revision, "+dirty" for uncommitted changes; "" when nothing names it) of a
// build with information bi (nil when there is none) and the values linked with -X.
func versionOf(bi *debug.BuildInfo, linkedVersion, linkedCommit string) (ver, rev string) {
	ver, rev = "devel", linkedCommit
	if bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		ver = bi.Main.Version
	}
	if linkedVersion != "" {
		ver = linkedVersion
	}
	if rev == "" && bi != nil {
		dirty := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" && dirty {
			rev += "+dirty"
		}
	}
	return ver, rev
}

// Version is the line that names a build of the generator (a command's version): the module
// version and the commit (its first 12 hex digits) of a build with information bi (nil when
// there is none) and the values linked into it with -X ("" for none; they win over what the
// toolchain stamped: see versionOf), the world version (generator_version in the inventory)
// and the Go runtime.
func Version(bi *debug.BuildInfo, linkedVersion, linkedCommit string) string {
	ver, rev := versionOf(bi, linkedVersion, linkedCommit)
	hash, dirty := strings.CutSuffix(rev, "+dirty")
	switch {
	case rev == "":
		rev = "unknown"
	case len(hash) > 12:
		rev = hash[:12]
		if dirty {
			rev += "+dirty"
		}
	}
	return fmt.Sprintf("clickgen %s (commit %s, world %s, %s %s/%s)\n", ver, rev, world.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
