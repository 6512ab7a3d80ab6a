package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/google/renameio/v2"
)

// NotRegularError is [Replace]'s refusal of a path that leads to an existing file that is not
// a regular one (Kind: "a character device", "a FIFO", ...): the rename would replace the
// node itself with a regular file (as root, a report to /dev/null replaced the host's
// /dev/null), and writing in place into a pipe or /dev/stdout would mix the file into a
// stream.
type NotRegularError struct{ Kind string }

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("it is not a regular file (%s): it is replaced atomically, so give the path of a regular file or a new one", e.Kind)
}

// CheckReplace says, before anything is sent, whether [Replace] can write path: it resolves
// ([Resolve]), is not an existing file of another kind than a regular one (a
// *[NotRegularError]), and a file can be created in its directory (tried, and removed).
// A file found unwritable only after a run sent its data makes a scheduler retry, and
// duplicate, the run.
func CheckReplace(path string) error {
	t, err := Resolve(path)
	if err != nil {
		return fmt.Errorf("it cannot be written: %w", unwrapPath(err))
	}
	if err := replaceable(t); err != nil {
		return err
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

// replaceable refuses a target Replace cannot replace: an existing directory, or an existing
// file that is not a regular one.
func replaceable(t Target) error {
	switch {
	case !t.Exists() || t.Info.Mode().IsRegular():
		return nil
	case t.Info.IsDir():
		return errors.New("it is a directory")
	}
	return &NotRegularError{Kind: Kind(t.Info.Mode())}
}

// Replace writes data to the file path leads to ([Resolve]: through symbolic links, a
// dangling one to the file it names, which is created; the links stay) through a temporary
// file in the same directory, synced, then renamed over it: a full disk or a crash leaves the
// previous file, or none, never a truncated one. A replaced file keeps its permissions; a
// new one gets 0644. An existing file that is not a regular one is refused (a
// *[NotRegularError]), as is a directory.
func Replace(path string, data []byte) error {
	r, err := NewReplacement(path)
	if err != nil {
		return err
	}
	if _, err := r.Write(data); err != nil {
		r.Abort()
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return r.Commit()
}

// Replacement is a file written in full before it replaces the file a path leads to, as
// [Replace] writes one: its writes go to a temporary file in the same directory, and
// [Replacement.Commit] renames it into place. A caller that writes as it goes (a CPU
// profile) holds one until it is done. The temporary file and its atomic rename are
// renameio's; what is ours is where the path leads (through links, never onto a device) and
// the directory's sync after the rename.
type Replacement struct {
	*renameio.PendingFile // the temporary file
	path                  string
	target                string
}

// NewReplacement starts a replacement of the file path leads to, refusing what [Replace]
// refuses; nothing at path changes until Commit.
func NewReplacement(path string) (*Replacement, error) {
	t, err := Resolve(path)
	if err == nil {
		err = replaceable(t)
	}
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	perm := fs.FileMode(0o644)
	if t.Exists() {
		perm = t.Info.Mode().Perm()
	}
	dir, _ := split(t.Path)
	pf, err := renameio.NewPendingFile(t.Path, renameio.WithTempDir(dir), renameio.WithStaticPermissions(perm))
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return &Replacement{PendingFile: pf, path: path, target: t.Path}, nil
}

// Commit syncs and closes the temporary file and renames it over the target; on any error
// the target is left as it was and the temporary file removed.
func (r *Replacement) Commit() error {
	if err := r.CloseAtomicallyReplace(); err != nil {
		r.Cleanup()
		return fmt.Errorf("write %s: %w", r.path, unwrapPath(err))
	}
	// The rename is durable once the directory is synced; a directory that cannot be
	// synced (some file systems refuse) still holds the renamed file.
	dir, _ := split(r.target)
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Abort removes the temporary file: the target stays as it was.
func (r *Replacement) Abort() {
	r.Cleanup()
}

// WriteFile writes data to path as [Replace] does, atomically, when path leads to a regular
// file or to none; into an existing character device (/dev/null, /dev/stdout on a terminal)
// or FIFO (a pipe, /dev/stdout in a pipeline) it writes in place, opened for writing only and
// without blocking: a FIFO no process reads is an error, not a wait, and one whose reader
// stops reading fails after [DefaultWait]. Anything else (a directory, a socket) is refused.
func WriteFile(path string, data []byte) error {
	t, err := Resolve(path)
	if err != nil || !t.Exists() || t.Info.Mode().IsRegular() {
		return Replace(path, data)
	}
	if t.Info.Mode()&(fs.ModeCharDevice|fs.ModeNamedPipe) == 0 {
		return Replace(path, data) // refused, in Replace's words
	}
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENXIO) {
		return fmt.Errorf("write %s: %s no process reads", path, Kind(t.Info.Mode()))
	}
	if err != nil {
		return err
	}
	// A reader that stops reading ends the write after DefaultWait, as it ends a read.
	f.SetWriteDeadline(time.Now().Add(DefaultWait))
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return nil
}
