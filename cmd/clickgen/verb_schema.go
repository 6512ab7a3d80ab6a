package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/clickgen/clickgen/generator/world"
	"github.com/clickgen/clickgen/schema"
)

func runSchema(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags("schema", "schema [--entity hits|orders] [--format markdown|keys|json-schema]",
		`Print the wire contract from schema/: the keys of a topic's messages one per line in wire
order (keys), the export description as markdown tables (markdown), or a JSON Schema that a
consumer can validate messages with (json-schema).`)
	entity := fs.String("entity", schema.EntityHits, "which messages: hits or orders")
	format := fs.String("format", schema.FormatMarkdown, "output format: markdown, keys or json-schema")
	if err := parseFlags(fs, args, sio.out, false); err != nil {
		return err
	}
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

func runVersion(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags("version", "version", "Print clickgen's build version, the world version (generator_version in the inventory) and the Go runtime.")
	if err := parseFlags(fs, args, sio.out, false); err != nil {
		return err
	}
	_, err := fmt.Fprintf(sio.out, "clickgen %s (world %s, %s %s/%s)\n",
		buildVersion(), world.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return err
}
