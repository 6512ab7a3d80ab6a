// Package fileio is how clickgen opens what it reads and resolves what it writes. Every input
// (a catalog, a profile, a report, an inventory, a CA bundle) is read by [Read]: a regular
// file up to a size limit, anything else (a FIFO, a pipe, a terminal, a device) up to the
// same limit and within a deadline, and every read ends as soon as the caller's context does.
// Every output is resolved by [Resolve] to the file writing it really writes (through
// symbolic links, dangling ones included, directories reached through links and /proc
// aliases), so that [Check] can refuse, before a run sends anything, an output that is one of
// the run's inputs or another of its outputs, and [Replace] can write a file atomically
// where the path leads. The package reads no flags: callers name each path as their users
// spell it.
package fileio

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sync/atomic"
	"syscall"
	"time"
)

// DefaultWait is how long [Read] lets a stream (a FIFO, a pipe, a terminal, a device) take to
// be read whole when the [Limit] does not say: a FIFO nobody writes is an error after it, not
// a read that waits for ever.
const DefaultWait = 30 * time.Second

// NoticeAfter is how long a read of a stream waits before the context's notice hears of it
// ([WithNotice]).
const NoticeAfter = time.Second

// Limit bounds one [Read].
type Limit struct {
	// Bytes is the most an input may hold; a larger one is refused with a *[TooLargeError]
	// naming this bound. It must be positive.
	Bytes int64
	// Wait is how long a stream may take to be read whole (a regular file has no deadline
	// but the context); 0 means [DefaultWait].
	Wait time.Duration
}

// TooLargeError is [Read]'s refusal of an input larger than Limit bytes. Size is the size of
// a regular file, or -1 for a stream, which is not read past the limit.
type TooLargeError struct {
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return "larger than " + Size(e.Limit)
	}
	return fmt.Sprintf("%d bytes, larger than %s", e.Size, Size(e.Limit))
}

// WaitError is [Read]'s refusal of a stream that was not read whole within Wait: a FIFO no
// process writes, or one whose writer never closes it. Kind names the file ("a FIFO").
type WaitError struct {
	Kind string
	Read int64 // bytes read before the deadline
	Wait time.Duration
}

func (e *WaitError) Error() string {
	if e.Read == 0 {
		return fmt.Sprintf("%s: nothing was written within %v (is a process writing it?)", e.Kind, e.Wait)
	}
	return fmt.Sprintf("%s: not written whole within %v (%d bytes read, and no end: is its writer still writing?)", e.Kind, e.Wait, e.Read)
}

// Waiting is what a notice ([WithNotice]) hears: a read of Path, a Kind of stream, has
// waited [NoticeAfter] and waits at most Wait in all.
type Waiting struct {
	Path string
	Kind string
	Wait time.Duration
}

type noticeKey struct{}

// WithNotice returns a copy of ctx whose reads ([Read]) call notice, once each, when a stream
// has kept them waiting for [NoticeAfter]: a program says so on its console, so that a read
// from a FIFO nobody writes does not look like a hang. notice must return at once; it is
// called from the goroutine that called Read.
func WithNotice(ctx context.Context, notice func(Waiting)) context.Context {
	return context.WithValue(ctx, noticeKey{}, notice)
}

// Read returns the content of the file at path, which it opens without blocking (a FIFO
// without a writer does not hold the open) and never reads past lim.Bytes. A regular file
// larger than the limit is refused before it is read. Anything else but a directory (a FIFO,
// a pipe such as /dev/stdin, a terminal, a device such as /dev/zero) is read until its end,
// the limit (refused: a *[TooLargeError]) or lim.Wait (a *[WaitError]), whichever comes
// first; a FIFO no process has opened for writing yet is waited for. When ctx ends first,
// the read is abandoned and its error wraps ctx's cause (context.Canceled for a signal). A
// directory is refused (syscall.EISDIR). Errors are *fs.PathError naming path: "open" for a
// file that cannot be opened (fs.ErrNotExist, fs.ErrPermission), "read" for the rest.
func Read(ctx context.Context, path string, lim Limit) ([]byte, error) {
	if lim.Bytes <= 0 {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("limit %d bytes, want a positive one", lim.Bytes)}
	}
	wait := lim.Wait
	if wait <= 0 {
		wait = DefaultWait
	}
	if err := context.Cause(ctx); err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("interrupted: %w", err)}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fail := func(err error) ([]byte, error) {
		f.Close()
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		return fail(err)
	case fi.IsDir():
		return fail(syscall.EISDIR)
	case fi.Mode().IsRegular() && fi.Size() > lim.Bytes:
		return fail(&TooLargeError{Size: fi.Size(), Limit: lim.Bytes})
	}
	regular := fi.Mode().IsRegular()
	r := &reader{f: f, max: lim.Bytes, fifo: fi.Mode()&fs.ModeNamedPipe != 0}
	size := int64(0)
	if regular {
		size = fi.Size()
	}
	done := make(chan error, 1)
	go func() {
		err := r.readAll(size)
		f.Close()
		done <- err
	}()
	var deadline, notice <-chan time.Time
	if !regular {
		t := time.NewTimer(wait)
		defer t.Stop()
		deadline = t.C
		if _, ok := ctx.Value(noticeKey{}).(func(Waiting)); ok && wait > NoticeAfter {
			n := time.NewTimer(NoticeAfter)
			defer n.Stop()
			notice = n.C
		}
	}
	var cause func() error
	for cause == nil {
		select {
		case err := <-done:
			if err != nil {
				return nil, &fs.PathError{Op: "read", Path: path, Err: unwrapPath(err)}
			}
			if n := r.got.Load(); n > lim.Bytes {
				size := int64(-1) // a stream is not read further
				if regular {
					size = max(fi.Size(), n) // it grew while it was read
				}
				return nil, &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Size: size, Limit: lim.Bytes}}
			}
			return r.bytes(), nil
		case <-notice:
			ctx.Value(noticeKey{}).(func(Waiting))(Waiting{Path: path, Kind: Kind(fi.Mode()), Wait: wait})
		case <-deadline:
			cause = func() error { return &WaitError{Kind: Kind(fi.Mode()), Read: r.got.Load(), Wait: wait} }
		case <-ctx.Done():
			cause = func() error { return fmt.Errorf("interrupted: %w", context.Cause(ctx)) }
		}
	}
	// A file in the poller (a FIFO, a pipe, a terminal) stops its read at a past deadline:
	// wait for the reader to let go of it. Any other read is abandoned where it blocks, and
	// its goroutine closes the file when the read returns.
	if f.SetReadDeadline(time.Unix(1, 0)) == nil {
		<-done
	}
	return nil, &fs.PathError{Op: "read", Path: path, Err: cause()}
}

// reader reads one opened file on a goroutine of its own, into chunks: a stream read up to a
// limit of 256 MiB and refused holds 256 MiB at most (a slice grown by doubling held half as
// much again, and the copies).
type reader struct {
	f      *os.File
	max    int64
	fifo   bool
	chunks [][]byte
	got    atomic.Int64 // bytes read so far: what a WaitError says was read
}

// chunk is the largest piece a stream is read in.
const chunk = 1 << 20

// room returns where the next bytes go: the rest of the last chunk, or a new one (of size,
// the file's size when it is known, else up to chunk), never past one byte beyond the limit.
func (r *reader) room(size int64) []byte {
	if n := len(r.chunks); n > 0 && len(r.chunks[n-1]) < cap(r.chunks[n-1]) {
		c := r.chunks[n-1]
		return c[len(c):cap(c)]
	}
	left := r.max + 1 - r.got.Load()
	if left <= 0 {
		return nil
	}
	grow := int64(chunk)
	if len(r.chunks) < 8 {
		grow = 4 << 10 << len(r.chunks) // 4 KiB, doubling: most inputs are small
	}
	c := make([]byte, 0, min(left, max(size, grow)))
	r.chunks = append(r.chunks, c)
	return c[:cap(c)]
}

// add counts n bytes read into the room given last.
func (r *reader) add(n int) {
	last := &r.chunks[len(r.chunks)-1]
	*last = (*last)[:len(*last)+n]
	r.got.Add(int64(n))
}

// bytes returns what was read, in one slice.
func (r *reader) bytes() []byte {
	if len(r.chunks) == 1 {
		return r.chunks[0]
	}
	return slices.Concat(r.chunks...)
}

// readAll reads to the end, or one byte past the limit; size is a regular file's size, read
// in one piece (0 for a stream). A FIFO is read through its raw descriptor: read(2) says 0
// bytes both when its writer closed it and before any process opened it for writing, and
// only the first is its end.
func (r *reader) readAll(size int64) error {
	if !r.fifo {
		for {
			room := r.room(size + 1) // one byte more: a file that grew is seen
			if room == nil {
				return nil
			}
			n, err := r.f.Read(room)
			r.add(n)
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	rc, err := r.f.SyscallConn()
	if err != nil {
		return err
	}
	var rerr error
	end := false
	for !end && rerr == nil {
		err := rc.Read(func(fd uintptr) bool {
			for {
				room := r.room(0)
				if room == nil {
					end = true // one byte past the limit
					return true
				}
				n, err := syscall.Read(int(fd), room)
				switch {
				case err == syscall.EINTR:
					continue
				case err == syscall.EAGAIN:
					return false // a writer, and nothing to read yet: wait until there is
				case err != nil:
					rerr = err
					return true
				case n > 0:
					r.add(n)
				case r.got.Load() > 0 || writerGone(fd):
					end = true // no writer left, and one has been: the end
					return true
				default:
					return false // no process opened the FIFO for writing yet: wait for one
				}
			}
		})
		if err != nil {
			return err
		}
	}
	return rerr
}

// Kind names the kind of file of mode m: "a regular file", "a directory", "a FIFO", "a
// character device", "a block device", "a socket" or "a symbolic link".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a file of mode " + m.String()
}

// Size writes n bytes in the largest binary unit that divides it ("256 MiB", "1 MiB",
// "1536 bytes"): the limits of inputs, as errors name them.
func Size(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
