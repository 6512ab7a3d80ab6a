package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/world"
	"github.com/clickgen/clickgen/profiles"
)

func runInventory(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags("inventory", "inventory --day D [--days N] [--seed S] [--scale X] [--catalog FILE] [--garbage RATE ...]",
		`Print, as JSON on stdout and without sending anything, what a storage must contain after
'batch' and 'snapshot' with the same flags: the world passport (seed, generator_version,
catalog_sha256), per day the clean events, their SHA-256 (over each event followed by "\n":
exactly the bytes of batch --file) and counts by event type, the reconciliation classes of
every day whose order window closes inside the range, and per sent snapshot its rows and
SHA-256. With the garbage flags of the playing verbs it also counts the malformed messages
and redeliveries they add, and what the stand's raw, ODS and error tables must then hold.`)
	pf := addPlayFlags(fs, "number of run days", false)
	workers := fs.Int("workers", 0, "days are generated on this many cores; 0 means all")
	merge := fs.Bool("merge", false, "instead of computing, sum the inventories of the N segments of one run given as `FILE` arguments into the whole run's (per-day hashes become segment_sha256)")
	if slices.ContainsFunc(args, func(a string) bool { return a == "--merge" || strings.HasPrefix(a, "--merge=") }) {
		// --merge takes files, not the world's flags: it computes nothing.
		if err := parseFlags(fs, args, sio.out, true); err != nil {
			return err
		}
		if !*merge || fs.NFlag() != 1 || fs.NArg() == 0 {
			return usagef("inventory", "--merge takes only inventory files: inventory --merge A.json B.json …")
		}
		var uses []fileio.Use
		for _, path := range fs.Args() {
			uses = append(uses, fileio.Input("--merge", path))
		}
		if err := checkPaths("inventory", uses...); err != nil {
			return err
		}
		inv, err := profiles.MergeInventoryFiles(ctx, fs.Args())
		if err != nil {
			return usage("inventory", flagNamed(err))
		}
		return printInventory(sio, inv)
	}
	// The inventory is of what batch and snapshot send: it plays their world and days.
	prof, segment, err := pf.parse(profiles.Batch(), args, sio.out, func(envLookup, *profiles.Overrides) error {
		if err := checkWorkers("inventory", *workers); err != nil {
			return err
		}
		pf.world.workers = renderWorkers(*workers, false)
		return nil
	})
	if err != nil {
		return err
	}
	plan, err := pf.plan(ctx, prof, segment, profiles.PlanOptions{Workers: *workers})
	if err != nil {
		return err
	}
	inv, err := plan.World.Inventory(ctx, plan.Range, *workers)
	if err != nil {
		if inv == nil {
			return err
		}
		snapshots := plan.Range.Days // of the days before each run day: none before day 0
		if plan.Range.From == 0 {
			snapshots--
		}
		return interrupted("inventory", err, " after counting %d of %d days' hits and %d of %d snapshots: nothing was printed",
			len(inv.Days), plan.Range.Days, len(inv.Snapshots), snapshots)
	}
	return printInventory(sio, inv)
}

func printInventory(sio *stdio, inv *world.Inventory) error {
	enc := json.NewEncoder(sio.out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(inv)
}

func runCatalog(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags("catalog", "catalog [--file PATH]",
		`Write the embedded catalog (6 categories × 30 products: sku,name,category,brand,price,demand;
price in integer kopecks) in the stand's dictionary format, to stdout or a file. The same file
given back with --catalog reproduces the default world.`)
	file := fs.String("file", "-", "write to `PATH` ('-' is stdout); a file is replaced whole or not at all")
	if err := parseFlags(fs, args, sio.out, false); err != nil {
		return err
	}
	if *file == "-" {
		_, err := sio.out.Write(world.DefaultCatalogCSV)
		return err
	}
	if err := checkPaths("catalog", fileio.Output("--file", *file)); err != nil {
		return err
	}
	// Written whole, then renamed into place: a full disk left a 0-byte catalog (issue 29
	// N13), which a run given it as --catalog then refused.
	return fileio.WriteFile(*file, world.DefaultCatalogCSV)
}
