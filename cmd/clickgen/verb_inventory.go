package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/session"
	"github.com/clickgen/clickgen/profiles"
)

const inventoryHelp = `Print, as JSON on stdout and without sending anything, what a storage must contain after
'batch' and 'snapshot' with the same flags: the world passport (seed, generator_version,
catalog_sha256), per day the clean events, their SHA-256 (over each event followed by "\n":
exactly the bytes of batch --file) and counts by event type, the reconciliation classes of
every day whose order window closes inside the range, and per sent snapshot its rows and
SHA-256. With the garbage flags of the playing verbs it also counts the malformed messages
and redeliveries they add, and what the stand's raw, ODS and error tables must then hold.`

func runInventory(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if slices.ContainsFunc(args, func(a string) bool { return a == "--merge" || strings.HasPrefix(a, "--merge=") }) {
		return mergeInventories(ctx, sio, b, args)
	}
	if err := b.parse(args, sio.out, false); err != nil {
		return err
	}
	// The inventory is of what batch and snapshot send: it plays their world and days.
	c, err := b.standConfig(sio)
	if err != nil {
		return err
	}
	inv, err := session.Inventory(ctx, c)
	if err != nil {
		return err
	}
	return printInventory(sio, inv)
}

// mergeInventories is inventory --merge: it takes files, not the world's flags, and computes
// nothing.
func mergeInventories(ctx context.Context, sio *stdio, b *binding, args []string) error {
	// The world's flags are refused, not read: the variables they fall back to are not either.
	if err := b.parseArgs(args, sio.out, true); err != nil {
		return err
	}
	if !b.v.merge || b.fs.NFlag() != 1 || b.fs.NArg() == 0 {
		return usagef("inventory", "--merge takes only inventory files: inventory --merge A.json B.json …")
	}
	var uses []fileio.Use
	for _, path := range b.fs.Args() {
		uses = append(uses, fileio.Input("--merge", path))
	}
	if err := checkPaths("inventory", uses...); err != nil {
		return err
	}
	inv, err := profiles.MergeInventoryFiles(ctx, b.fs.Args())
	if err != nil {
		return b.refuse(err)
	}
	return printInventory(sio, inv)
}

func printInventory(sio *stdio, inv *world.Inventory) error {
	enc := json.NewEncoder(sio.out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(inv)
}

const catalogHelp = `Write the embedded catalog (6 categories × 30 products: sku,name,category,brand,price,demand;
price in integer kopecks) in the stand's dictionary format, to stdout or a file. The same file
given back with --catalog reproduces the default world.`

func runCatalog(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if err := b.parse(args, sio.out, false); err != nil {
		return err
	}
	file := b.v.catalogFile
	if file == "-" {
		_, err := sio.out.Write(world.DefaultCatalogCSV)
		return err
	}
	if err := checkPaths("catalog", fileio.Output("--file", file)); err != nil {
		return err
	}
	// Written whole, then renamed into place: a full disk left a 0-byte catalog (issue 29
	// N13), which a run given it as --catalog then refused.
	return fileio.WriteFile(file, world.DefaultCatalogCSV)
}
