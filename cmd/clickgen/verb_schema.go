package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/schema"
)

const schemaHelp = `Print the wire contract from schema/: the keys of a topic's messages one per line in wire
order (keys), the export description as markdown tables (markdown), or a JSON Schema that a
consumer can validate messages with (json-schema).`

func runSchema(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if err := b.parse(args, sio.out, false); err != nil {
		return err
	}
	entity, format := &b.v.entity, &b.v.format
	if !slices.Contains([]string{schema.EntityHits, schema.EntityOrders}, *entity) {
		return usagef("schema", "--entity %q: want hits or orders", *entity)
	}
	if !slices.Contains([]string{schema.FormatMarkdown, schema.FormatKeys, schema.FormatJSONSchema}, *format) {
		return usagef("schema", "--format %q: want markdown, keys or json-schema", *format)
	}
	return schema.Render(sio.out, *entity, *format)
}

// version and commit name the build when the toolchain stamped no version control
// information into it (GOFLAGS=-buildvcs=false, the image's build, a copy of the tree without
// .git): the install recipe and the image set them at link time,
//
//	go build -ldflags "-X main.commit=$(git rev-parse HEAD) -X main.version=v1.2.3" ./cmd/clickgen
//
// They win over what the toolchain stamped.
var version, commit string

// buildVersion is versionOf this binary's build information.
func buildVersion() (ver, rev string) {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(bi, version, commit)
}

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

// versionLine is what `clickgen version` prints: the module version and the commit (its
// first 12 hex digits), the world version (generator_version in the inventory) and the Go
// runtime.
func versionLine(ver, rev string) string {
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

const versionHelp = `Print clickgen's build: the module version and the commit it was built from, the world
version (generator_version in the inventory) and the Go runtime. A build that stamps no
version control information (GOFLAGS=-buildvcs=false, a tree without .git) names its commit
when linked with -ldflags "-X main.commit=$(git rev-parse HEAD)" (and -X main.version=…), as
the README's install recipe and the image do; else the commit is unknown.`

func runVersion(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if err := b.parse(args, sio.out, false); err != nil {
		return err
	}
	_, err := io.WriteString(sio.out, versionLine(buildVersion()))
	return err
}
