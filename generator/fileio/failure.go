package fileio

import (
	"context"
	"errors"
	"io/fs"
	"syscall"
)

// ReadFailed reports whether err, returned by [Read] (as it is or wrapped), is the system
// failing to read a file that is there to be read: an I/O error of the device or file
// system, too many open files, no memory. It is false for every error that says the path
// does not name a readable input (missing, forbidden, a directory, a device that cannot be
// read, too large, a stream not written whole within its wait: the caller gave the wrong
// path), for a read that ctx interrupted, and for errors that are not a file's (a decoding
// error of what was read). A command tells a user's mistake (exit 2) from a failure (exit 1)
// by it.
func ReadFailed(err error) bool {
	var pe *fs.PathError
	if err == nil || !errors.As(err, &pe) {
		return false
	}
	var tl *TooLargeError
	var we *WaitError
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &tl) || errors.As(err, &we) {
		return false
	}
	var errno syscall.Errno
	if !errors.As(pe.Err, &errno) {
		return false
	}
	switch errno {
	case syscall.ENOENT, syscall.EACCES, syscall.EPERM, syscall.ENOTDIR, syscall.EISDIR, syscall.ELOOP,
		syscall.ENAMETOOLONG, syscall.ENXIO, syscall.ENODEV, syscall.EINVAL:
		return false // the path names nothing that can be read as a file
	}
	return true
}
