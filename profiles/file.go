package profiles

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/clickgen/clickgen/generator/fileio"
)

// LoadFile reads and parses a user's profile file ([ParseFile]), as every input is read
// (fileio.Read: at most 1 MiB; a FIFO, a pipe or a device within fileio.DefaultWait; given up
// when ctx ends, wrapping its cause); an error is a *[ValueError] named profile file, with
// the path and the field at fault. A file without a name is named after the file.
func LoadFile(ctx context.Context, path string) (Profile, error) {
	p, _, err := loadFile(ctx, path)
	return p, err
}

// SourceFile returns the text of the user's profile file at path as it is, comments
// included, once it has passed [LoadFile]'s checks and its world.catalog, if any, has been
// read and parsed as a run reads it (a missing catalog or a directory used to pass);
// errors are LoadFile's, or name the profile file and world.catalog.
func SourceFile(ctx context.Context, path string) ([]byte, error) {
	p, data, err := loadFile(ctx, path)
	if err != nil {
		return nil, err
	}
	if _, err := LoadCatalog(ctx, p.World.Catalog); err != nil {
		return nil, &ValueError{Field: "profile file", Value: path, Err: inFile{err}}
	}
	return data, nil
}

// loadFile is LoadFile, returning the file's text too.
func loadFile(ctx context.Context, path string) (Profile, []byte, error) {
	data, err := fileio.Read(ctx, path, fileio.Limit{Bytes: maxFileSize})
	if tl := (*fileio.TooLargeError)(nil); errors.As(err, &tl) {
		return Profile{}, nil, &ValueError{Field: "profile file", Value: path, Err: fmt.Errorf("%w: a profile is a few dozen lines", tl)}
	}
	if err != nil {
		return Profile{}, nil, &ValueError{Field: "profile file", Err: err} // the *fs.PathError names the path
	}
	p, err := ParseFile(data)
	if err != nil {
		return Profile{}, nil, &ValueError{Field: "profile file", Value: path, Err: inFile{err}}
	}
	if p.Name == "" {
		base := path[strings.LastIndexAny(path, `/\`)+1:]
		p.Name = strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
	}
	return p, data, nil
}

// inFile is the refusal of a value a profile file holds: its fields are the file's, said in
// this package's words (world.seed), never in a caller's names for the values it gives.
type inFile struct{ err error }

func (e inFile) Error() string { return e.err.Error() }
func (e inFile) Unwrap() error { return e.err }

// WriteList writes the embedded profiles to w, one a line with its description, the default
// one marked, in columns.
func WriteList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, name := range List() {
		p, err := Load(name)
		if err != nil {
			return err // an embedded profile is broken: a bug, caught by the tests
		}
		def := ""
		if name == Default {
			def = " (default)"
		}
		fmt.Fprintf(tw, "%s%s\t%s\n", name, def, p.Description)
	}
	return tw.Flush()
}
