package main

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"

	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/measure/plot"
)

const plotHelp = `Write one self-contained HTML page (inline SVG, no scripts, nothing fetched) drawing the
reports that --report wrote: rate target against achieved, latency p50/p95/p99 and lag per
interval (rate-paced runs), with --follow-group the pipeline latency p50/p99/max and consumer
lag per interval, the produce and pipeline latency distributions (percentile on a log scale
of 1/(1-p), as HdrHistogram plots them), acknowledged against sent per topic, the partitions'
balance, and messages per day and per garbage class. Several reports overlay, each labelled
by its file name or by the --label in the same position (shown whole in each chart's legend),
so runs compare on one page; a run whose values are below a tenth of the largest on a line
chart is drawn against a right-hand axis, which its legend lines name. --inventory draws
the expectation per day and class beside them: the output of 'clickgen inventory' with the
run's flags (the report says what was sent; the inventory, what the world plans).`

func runPlot(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if err := b.parse(args, sio.out, true); err != nil {
		return err
	}
	fs, labels, invFile, title := b.fs, &b.v.labels, &b.v.inventory, &b.v.title
	if fs.NArg() == 0 {
		return usagef("plot", "no report given")
	}
	if len(*labels) > fs.NArg() {
		return usagef("plot", "%d labels for %d reports", len(*labels), fs.NArg())
	}
	uses := []fileio.Use{fileio.Input("--inventory", *invFile)}
	for _, path := range fs.Args() {
		uses = append(uses, fileio.Input("REPORT", path))
	}
	if err := checkPaths("plot", uses...); err != nil {
		return err
	}
	// A file that does not exist or is not a report is a usage error, as every verb's input
	// is (exitCode makes an I/O error a failure, and an interruption 130).
	page := plot.Page{Title: *title}
	if err := page.AddReportFiles(ctx, fs.Args(), *labels); err != nil {
		return plotInputError(err)
	}
	if *invFile != "" {
		if err := page.SetInventoryFile(ctx, *invFile); err != nil {
			return plotInputError(fmt.Errorf("--inventory: %w", err))
		}
	}
	return page.WriteHTML(sio.out)
}

// plotInputError is a report or inventory plot could not read: a usage error, or, interrupted,
// where it was (no page was written).
func plotInputError(err error) error {
	var pe *iofs.PathError
	if errors.As(err, &pe) && errors.Is(err, context.Canceled) {
		return interrupted("plot", err, " while reading %s: no page was written", pe.Path)
	}
	return usage("plot", err)
}
