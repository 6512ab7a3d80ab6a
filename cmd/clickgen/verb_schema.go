package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"

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

// buildVersion is the module version stamped by `go install`, or "devel".
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

const versionHelp = `Print clickgen's build version, the world version (generator_version in the inventory) and
the Go runtime.`

func runVersion(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if err := b.parse(args, sio.out, false); err != nil {
		return err
	}
	_, err := fmt.Fprintf(sio.out, "clickgen %s (world %s, %s %s/%s)\n",
		buildVersion(), world.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
