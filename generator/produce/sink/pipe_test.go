package sink_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/clickgen/clickgen/generator/produce/sink"
)

// fifo makes a FIFO in a temporary directory.
func fifo(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sendLines sends n lines of 1 KB and flushes, returning the first error.
func sendLines(ctx context.Context, w *Writer, n int) error {
	v := []byte(strings.Repeat("x", 1023))
	for range n {
		if err := w.Send(ctx, Message{Topic: "hits", Key: []byte("1"), Value: v}); err != nil {
			return err
		}
	}
	return w.Flush(ctx)
}

// TestFIFOReaderGone is issue 24 item 3: a FIFO (or /dev/stdout, a pipe) was opened
// read-write, so the process held the read end, a reader that went away never made a write
// fail and the run hung for ever. Opened for writing only, the write fails with EPIPE.
func TestFIFOReaderGone(t *testing.T) {
	path := fifo(t)
	read := make(chan int64, 1)
	go func() {
		r, err := os.Open(path) // blocks until the writer opens
		if err != nil {
			read <- -1
			return
		}
		n, _ := io.CopyN(io.Discard, r, 100_000) // head -c 100000
		r.Close()
		read <- n
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := OpenFile(ctx, path, WriterOptions{BufferSize: 64 << 10}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	err = sendLines(ctx, w, 100_000)
	if !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("sending 100 MB to a FIFO whose reader left after 100 kB: %v; want EPIPE", err)
	}
	t.Logf("reader read %d bytes; the writer says: %v", <-read, err)
	st := w.Stats().Topics["hits"]
	if st.Acked+st.Failed != st.Sent || st.Failed == 0 || ctx.Err() != nil {
		t.Errorf("sent %d, acked %d, failed %d (ctx %v); want every line settled before the timeout", st.Sent, st.Acked, st.Failed, ctx.Err())
	}
	w.Close()
}

// TestFIFOWithoutReader: with no reader, opening a FIFO for writing blocks in the kernel for
// ever, deaf to signals. OpenFile waits for a reader until its wait or ctx ends, then fails.
func TestFIFOWithoutReader(t *testing.T) {
	path := fifo(t)
	_, err := OpenFile(context.Background(), path, WriterOptions{}, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "no process opened the pipe for reading within 300ms") {
		t.Errorf("OpenFile(FIFO without a reader) = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := OpenFile(ctx, path, WriterOptions{}, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("OpenFile(FIFO without a reader, cancelled) = %v; want context.Canceled", err)
	}
}

// TestStalledReaderAbandoned: a reader that keeps the FIFO open and stops reading fills the
// pipe and blocks the write. The write timeout (the delivery timeout) and ctx (a signal)
// abandon it: Flush and Send return, the lines written are acked, the blocked ones stay
// unaccounted.
func TestStalledReaderAbandoned(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		cancel  bool
		want    string
	}{
		{"write timeout", 300 * time.Millisecond, false, "did not finish within 300ms"},
		{"signal", 0, true, "abandoned: context canceled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := fifo(t)
			opened := make(chan *os.File, 1)
			go func() { r, _ := os.Open(path); opened <- r }() // opens, never reads
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			w, err := OpenFile(ctx, path, WriterOptions{BufferSize: 256 << 10, WriteTimeout: tc.timeout}, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			r := <-opened
			defer r.Close()
			if tc.cancel {
				time.AfterFunc(300*time.Millisecond, cancel)
			}
			done := make(chan error, 1)
			go func() { done <- sendLines(ctx, w, 10_000) }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("sending into a stalled FIFO: %v; want %q", err, tc.want)
				}
				st := w.Stats().Topics["hits"]
				if st.Failed != 0 || st.Acked >= st.Sent {
					t.Errorf("sent %d, acked %d, failed %d; want the blocked lines neither acked nor failed", st.Sent, st.Acked, st.Failed)
				}
				t.Logf("%v (sent %d, acked %d)", err, st.Sent, st.Acked)
			case <-time.After(20 * time.Second):
				t.Fatal("the write into a stalled FIFO was not abandoned within 20 s")
			}
			if err := w.Send(context.Background(), Message{Topic: "hits", Value: []byte("x")}); err == nil {
				t.Error("Send after an abandoned write succeeded")
			}
			w.Close()
		})
	}
}
