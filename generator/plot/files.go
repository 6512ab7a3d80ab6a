package plot

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// AddReportFile adds the report in the file at path (what --report wrote) to the page,
// labelled label. An error that is not the file's opening names the file.
func (p *Page) AddReportFile(path, label string) error {
	rep, err := readFile(path, ReadReport)
	if err != nil {
		return err
	}
	p.Runs = append(p.Runs, Run{Label: label, Report: rep})
	return nil
}

// AddReportFiles adds the reports in the files at paths in order ([Page.AddReportFile]), each
// labelled by the label in the same position or, past the end of labels, by its file name.
func (p *Page) AddReportFiles(paths, labels []string) error {
	for i, path := range paths {
		label := filepath.Base(path)
		if i < len(labels) {
			label = labels[i]
		}
		if err := p.AddReportFile(path, label); err != nil {
			return err
		}
	}
	return nil
}

// SetInventoryFile makes the inventory in the file at path (the output of `clickgen
// inventory`) the page's expectation.
func (p *Page) SetInventoryFile(path string) error {
	inv, err := readFile(path, ReadInventory)
	if err == nil {
		p.Inventory = inv
	}
	return err
}

// readFile opens path and decodes it with read, naming the file in a decoding error.
func readFile[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	v, err := read(f)
	if err != nil {
		return v, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
