package fileio

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadFailed (issue 31): a command exits 2 for an input the user named wrongly and 1 for
// one the system failed to read; ReadFailed tells them apart on Read's own errors.
func TestReadFailed(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		path   string
		lim    Limit
		failed bool
	}{
		{"missing", context.Background(), filepath.Join(dir, "none"), Limit{Bytes: 10}, false},
		{"a directory", context.Background(), dir, Limit{Bytes: 10}, false},
		{"under a file", context.Background(), filepath.Join(file, "x"), Limit{Bytes: 10}, false},
		{"a symbolic link loop", context.Background(), loop, Limit{Bytes: 10}, false},
		{"too large", context.Background(), file, Limit{Bytes: 5}, false},
		{"endless", context.Background(), "/dev/zero", Limit{Bytes: 5}, false},
		{"a FIFO nobody writes", context.Background(), fifo(t), Limit{Bytes: 5, Wait: 50 * time.Millisecond}, false},
		{"interrupted", cancelled, file, Limit{Bytes: 10}, false},
		// Reading /proc/self/mem at offset 0 (never mapped) is EIO: an I/O error of a file
		// that is there.
		{"an I/O error", context.Background(), "/proc/self/mem", Limit{Bytes: 10}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(tc.ctx, tc.path, tc.lim)
			if err == nil {
				t.Fatalf("Read(%s) succeeded", tc.path)
			}
			if got := ReadFailed(err); got != tc.failed {
				t.Errorf("ReadFailed(%v) = %v, want %v", err, got, tc.failed)
			}
			if got := ReadFailed(fmt.Errorf("--flag: %w", err)); got != tc.failed {
				t.Errorf("ReadFailed of the wrapped %v = %v, want %v", err, got, tc.failed)
			}
		})
	}
	for _, tc := range []struct {
		err    error
		failed bool
	}{
		{&fs.PathError{Op: "open", Path: "p", Err: syscall.EACCES}, false},
		{&fs.PathError{Op: "read", Path: "p", Err: syscall.ESTALE}, true},
		{&fs.PathError{Op: "open", Path: "p", Err: syscall.EMFILE}, true},
		{errors.New("p: not a clickgen report: no \"topics\" key"), false},
		{nil, false},
	} {
		if got := ReadFailed(tc.err); got != tc.failed {
			t.Errorf("ReadFailed(%v) = %v, want %v", tc.err, got, tc.failed)
		}
	}
}
