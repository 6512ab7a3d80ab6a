// Package reportfile writes the command's JSON reports (--report): checked before a run sends
// anything ([Check]), written atomically at its end ([Write]), never into a device, a FIFO or
// the run's data file.
package reportfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Write writes v as indented JSON to path through a temporary file in the same
// directory and a rename, so a full disk or a crash leaves the old report or none, never a
// truncated one. A symbolic link is followed: the file it names is replaced, the link stays.
// A path that exists and is not a regular file (a device, a FIFO, a socket, or a link to
// one, such as /dev/null or /proc/self/fd/1) is refused ([Check]): the rename
// would replace the node itself with a regular file (as root, --report /dev/null replaced
// the host's /dev/null).
func Write(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	path, err = reportTarget(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
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

// Check says, before a run sends anything, whether a report can be written to path
// and does not clash with data, the run's data file ("" or "-" for none): a report found
// unwritable only after a day was sent makes a scheduler retry and duplicate the run, and
// a report written over the data file destroys it.
func Check(path, data string) error {
	if path == "-" {
		return errors.New("the report is a file; give a path")
	}
	if data != "" && data != "-" && samePath(path, data) {
		return errors.New("it is also the data file: the report would overwrite the data")
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return errors.New("it is a directory")
	}
	path, err := reportTarget(path)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".clickgen-report-check-*")
	if err != nil {
		return fmt.Errorf("it cannot be written: %w", errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// reportTarget is the file a report at path replaces: path itself, or the file a symbolic
// link at path names. It refuses an existing file that is not a regular one, naming its
// kind: the report is not written in place into a device or a pipe (a FIFO without a reader
// would block the end of the run, /dev/stdout would mix the report into the data).
func reportTarget(path string) (string, error) {
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return path, nil // a new file (or a dangling link, replaced)
	}
	if err != nil {
		return path, err
	}
	if !st.Mode().IsRegular() {
		return path, fmt.Errorf("it is not a regular file (%s): the report replaces its file atomically, so give the path of a regular file or a new one", fileKind(st.Mode()))
	}
	if lst, err := os.Lstat(path); err == nil && lst.Mode()&os.ModeSymlink != 0 {
		return filepath.EvalSymlinks(path)
	}
	return path, nil
}

// fileKind names the kind of a file that is not a regular one.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.String()
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
