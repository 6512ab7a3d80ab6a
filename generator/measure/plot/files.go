package plot

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// MaxReportBytes bounds a report file the page reads: a week of a stress run's intervals,
// with consumer groups followed, takes a few dozen MB.
const MaxReportBytes = 256 << 20

// AddReportFile adds the report in the file at path (what --report wrote) to the page,
// labelled label. The file is read as every input is (fileio.Read: at most MaxReportBytes; a
// FIFO, a pipe or a device within fileio.DefaultWait; given up when ctx ends, wrapping its
// cause). An error that is not the file's opening or reading names the file.
func (p *Page) AddReportFile(ctx context.Context, path, label string) error {
	rep, err := readFile(ctx, path, MaxReportBytes, ReadReport)
	if err != nil {
		return err
	}
	p.Runs = append(p.Runs, Run{Label: label, Report: rep})
	return nil
}

// AddReportFiles adds the reports in the files at paths in order ([Page.AddReportFile]), each
// labelled by the label in the same position or, past the end of labels, by its file name.
func (p *Page) AddReportFiles(ctx context.Context, paths, labels []string) error {
	for i, path := range paths {
		label := filepath.Base(path)
		if i < len(labels) {
			label = labels[i]
		}
		if err := p.AddReportFile(ctx, path, label); err != nil {
			return err
		}
	}
	return nil
}

// SetInventoryFile makes the inventory in the file at path (the output of `clickgen
// inventory`) the page's expectation. The file is read as [Page.AddReportFile] reads a
// report, up to world.MaxInventoryBytes.
func (p *Page) SetInventoryFile(ctx context.Context, path string) error {
	inv, err := readFile(ctx, path, world.MaxInventoryBytes, ReadInventory)
	if err == nil {
		p.Inventory = inv
	}
	return err
}

// readFile reads path (at most max bytes) and decodes it with read, naming the file in a
// decoding error.
func readFile[T any](ctx context.Context, path string, max int64, read func(io.Reader) (T, error)) (T, error) {
	data, err := fileio.Read(ctx, path, fileio.Limit{Bytes: max})
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := read(bytes.NewReader(data))
	if err != nil {
		return v, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
