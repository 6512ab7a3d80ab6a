package fileio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within fails the test unless f returns within limit: a read that used to block for ever
// must not hang the test either.
func within[T any](t *testing.T, limit time.Duration, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(limit):
		t.Fatalf("still reading after %v", limit)
		panic("unreachable")
	}
}

type result struct {
	data []byte
	err  error
}

func read(ctx context.Context, path string, lim Limit) result {
	b, err := Read(ctx, path, lim)
	return result{b, err}
}

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.csv")
	os.WriteFile(path, []byte("abc\n"), 0o644)
	if r := read(context.Background(), path, Limit{Bytes: 4}); r.err != nil || string(r.data) != "abc\n" {
		t.Errorf("Read(4 bytes, limit 4) = %q, %v", r.data, r.err)
	}
	r := read(context.Background(), path, Limit{Bytes: 3})
	var tl *TooLargeError
	if !errors.As(r.err, &tl) || r.err.Error() != "read "+path+": 4 bytes, larger than 3 bytes" {
		t.Errorf("Read(4 bytes, limit 3) = %v, want a *TooLargeError naming the size and the limit", r.err)
	}
	if r := read(context.Background(), dir, Limit{Bytes: 1 << 20}); !errors.Is(r.err, syscall.EISDIR) || r.err.Error() != "read "+dir+": is a directory" {
		t.Errorf("Read(a directory) = %v, want EISDIR", r.err)
	}
	missing := filepath.Join(dir, "none")
	if r := read(context.Background(), missing, Limit{Bytes: 1}); !errors.Is(r.err, fs.ErrNotExist) || r.err.Error() != "open "+missing+": no such file or directory" {
		t.Errorf("Read(missing) = %v, want the open error as os.Open words it", r.err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := read(ctx, path, Limit{Bytes: 4}); !errors.Is(r.err, context.Canceled) {
		t.Errorf("Read(cancelled context) = %v, want context.Canceled", r.err)
	}
}

// TestReadEndless is issue 29 N2: /dev/zero read as a catalog grew to 2.8 GB in 6 s. A stream
// is read one byte past the limit, never more, and refused naming the limit.
func TestReadEndless(t *testing.T) {
	r := within(t, 30*time.Second, func() result { return read(context.Background(), "/dev/zero", Limit{Bytes: 1 << 20}) })
	var tl *TooLargeError
	if !errors.As(r.err, &tl) || tl.Size != -1 || r.err.Error() != "read /dev/zero: larger than 1 MiB" {
		t.Errorf("Read(/dev/zero, 1 MiB) = %v, want refused as larger than 1 MiB", r.err)
	}
}

// fifo makes a FIFO in a temporary directory.
func fifo(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadFIFO is issue 29 N1 in the library: a FIFO without a writer blocked the open for
// ever. It is opened at once; a writer that comes later, or that was waiting first, is read
// to its end; none within the wait is a *WaitError; a cancelled context ends the wait at once.
func TestReadFIFO(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 20_000) // 320 000 bytes: more than a pipe's buffer
	write := func(path string) {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		f.Write(data)
		f.Close()
	}
	t.Run("writer-first", func(t *testing.T) {
		path := fifo(t)
		go write(path) // blocks in open until the reader comes
		r := within(t, 30*time.Second, func() result { return read(context.Background(), path, Limit{Bytes: 1 << 20}) })
		if r.err != nil || !bytes.Equal(r.data, data) {
			t.Errorf("Read(FIFO, writer first) = %d bytes, %v; want the %d written", len(r.data), r.err, len(data))
		}
	})
	t.Run("writer-too-much", func(t *testing.T) {
		path := fifo(t)
		go write(path)
		r := within(t, 30*time.Second, func() result { return read(context.Background(), path, Limit{Bytes: 1000}) })
		if r.err == nil || r.err.Error() != "read "+path+": larger than 1000 bytes" {
			t.Errorf("Read(FIFO of 320 000 bytes, limit 1000) = %v", r.err)
		}
	})
	t.Run("no-writer", func(t *testing.T) {
		path := fifo(t)
		r := within(t, 30*time.Second, func() result {
			return read(context.Background(), path, Limit{Bytes: 1 << 20, Wait: 100 * time.Millisecond})
		})
		var we *WaitError
		if !errors.As(r.err, &we) || r.err.Error() != "read "+path+": a FIFO: nothing was written within 100ms (is a process writing it?)" {
			t.Errorf("Read(FIFO, no writer, wait 100ms) = %v, want a *WaitError", r.err)
		}
	})
	t.Run("writer-stalls", func(t *testing.T) {
		path := fifo(t)
		held := make(chan *os.File, 1)
		go func() {
			f, _ := os.OpenFile(path, os.O_WRONLY, 0)
			f.Write([]byte("abc"))
			held <- f // open, never closed while the read waits
		}()
		r := within(t, 30*time.Second, func() result {
			return read(context.Background(), path, Limit{Bytes: 1 << 20, Wait: 200 * time.Millisecond})
		})
		(<-held).Close()
		if r.err == nil || !strings.Contains(r.err.Error(), "a FIFO: not written whole within 200ms (3 bytes read, and no end") {
			t.Errorf("Read(FIFO, writer that never closes) = %v, want a *WaitError counting 3 bytes", r.err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		path := fifo(t)
		waiting := make(chan Waiting, 1)
		ctx, cancel := context.WithCancelCause(WithNotice(context.Background(), func(w Waiting) { waiting <- w }))
		go func() {
			// The notice says the read waits; then the signal comes.
			<-waiting
			cancel(context.Canceled)
		}()
		r := within(t, 30*time.Second, func() result { return read(ctx, path, Limit{Bytes: 1 << 20}) })
		if !errors.Is(r.err, context.Canceled) || r.err.Error() != "read "+path+": interrupted: context canceled" {
			t.Errorf("Read(FIFO, cancelled while waiting) = %v, want context.Canceled", r.err)
		}
	})
}

// TestReadNotice: a read of a stream that waits past NoticeAfter says so once, with what it
// reads and its bound; a writer that comes after that (the reader surely waits: it has said
// so) is read to its end.
func TestReadNotice(t *testing.T) {
	path := fifo(t)
	data := bytes.Repeat([]byte("0123456789abcdef"), 20_000)
	heard := make(chan Waiting, 2)
	ctx := WithNotice(context.Background(), func(w Waiting) { heard <- w })
	go func() {
		w := <-heard
		heard <- w
		f, _ := os.OpenFile(path, os.O_WRONLY, 0)
		f.Write(data)
		f.Close()
	}()
	r := within(t, 30*time.Second, func() result { return read(ctx, path, Limit{Bytes: 1 << 20, Wait: time.Minute}) })
	if r.err != nil || !bytes.Equal(r.data, data) {
		t.Fatalf("Read(FIFO, writer after the notice) = %d bytes, %v; want the %d written", len(r.data), r.err, len(data))
	}
	if w := <-heard; w != (Waiting{Path: path, Kind: "a FIFO", Wait: time.Minute}) || len(heard) != 0 {
		t.Errorf("heard %+v (and %d more), want one notice of the FIFO and its minute", w, len(heard))
	}
}

// TestReadPipe: a pipe named through /proc/self/fd (as /dev/stdin is in a shell pipeline) is
// read to its end, and an empty one whose writer is gone is empty at once, not a wait.
func TestReadPipe(t *testing.T) {
	for _, data := range []string{"sku,name\n", ""} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		w.WriteString(data)
		w.Close()
		got := within(t, 30*time.Second, func() result {
			return read(context.Background(), fmt.Sprintf("/proc/self/fd/%d", r.Fd()), Limit{Bytes: 100})
		})
		r.Close()
		if got.err != nil || string(got.data) != data {
			t.Errorf("Read(a pipe holding %q) = %q, %v", data, got.data, got.err)
		}
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{256 << 20: "256 MiB", 1 << 20: "1 MiB", 64 << 10: "64 KiB", 1536: "1536 bytes", 3 << 30: "3 GiB", 1000: "1000 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
