package main

import (
	"context"
	"io"
	"runtime/debug"
	"slices"

	"github.com/clickgen/clickgen/generator/session"
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
// They win over what the toolchain stamped (session.Version).
var version, commit string

const versionHelp = `Print clickgen's build: the module version and the commit it was built from, the world
version (generator_version in the inventory) and the Go runtime. A build that stamps no
version control information (GOFLAGS=-buildvcs=false, a tree without .git) names its commit
when linked with -ldflags "-X main.commit=$(git rev-parse HEAD)" (and -X main.version=…), as
the README's install recipe and the image do; else the commit is unknown.`

func runVersion(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if err := b.parse(args, sio.out, false); err != nil {
		return err
	}
	bi, _ := debug.ReadBuildInfo()
	_, err := io.WriteString(sio.out, session.Version(bi, version, commit))
	return err
}
