package fileio

import (
	"fmt"
	"os"
)

// CheckWrite says, before a run sends anything, whether the data file path can be written:
// an existing regular file is opened for writing and closed (its content untouched), a new
// one's directory must take a file (a temporary one, removed at once). A FIFO, a device or
// another file that is not regular is left to its opening (a FIFO waits for its reader). A
// data file on a read-only filesystem was found only when the sink opened it, after the run
// was planned, and exited 1 where a report there (CheckReplace) exits 2.
func CheckWrite(path string) error {
	t, err := Resolve(path)
	if err != nil {
		return fmt.Errorf("it cannot be written: %w", unwrapPath(err))
	}
	switch {
	case t.Exists() && t.Info.IsDir():
		return fmt.Errorf("it is a directory")
	case t.Exists() && !t.Info.Mode().IsRegular():
		return nil
	case t.Exists():
		f, err := os.OpenFile(t.Path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("it cannot be written: %w", unwrapPath(err))
		}
		return f.Close()
	}
	dir, _ := split(t.Path)
	f, err := os.CreateTemp(dir, ".clickgen-check-*")
	if err != nil {
		return fmt.Errorf("it cannot be written: %w", unwrapPath(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}
