package play

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WriteReport writes v as indented JSON to path through a temporary file in the same
// directory and a rename, so a full disk or a crash leaves the old report or none, never a
// truncated one.
func WriteReport(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, werr := f.Write(append(b, '\n'))
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// CheckReportPath says, before a run sends anything, whether a report can be written to path
// and does not clash with data, the run's data file ("" or "-" for none): a report found
// unwritable only after a day was sent makes a scheduler retry and duplicate the run, and
// a report written over the data file destroys it.
func CheckReportPath(path, data string) error {
	if path == "-" {
		return errors.New("the report is a file; give a path")
	}
	if data != "" && data != "-" && samePath(path, data) {
		return errors.New("it is also the data file: the report would overwrite the data")
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return errors.New("it is a directory")
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".clickgen-report-check-*")
	if err != nil {
		return fmt.Errorf("it cannot be written: %v", errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// samePath reports whether a and b name the same file: the same cleaned absolute path, or
// the same existing file (links).
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
