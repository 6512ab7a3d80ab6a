package sink

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fullDisk is a file that accepts room bytes and then fails like a full disk, keeping
// whatever it accepted (as the kernel does), and can be truncated and seeked.
type fullDisk struct {
	data []byte
	pos  int64
	room int
}

func (f *fullDisk) Write(p []byte) (int, error) {
	n := min(len(p), f.room-int(f.pos))
	f.data = append(f.data[:f.pos], p[:n]...)
	f.pos += int64(n)
	if n < len(p) {
		return n, syscall.ENOSPC
	}
	return n, nil
}

func (f *fullDisk) Truncate(size int64) error { f.data = f.data[:size]; return nil }

func (f *fullDisk) Seek(off int64, whence int) (int64, error) {
	if whence != io.SeekStart {
		return 0, errors.New("unsupported")
	}
	f.pos = off
	return off, nil
}

// TestWriterFullDiskLeavesWholeLines is issue 11 item 10: a full disk used to leave a partial
// last JSON line. The file must hold only whole lines, exactly the acknowledged ones, and the
// error must be the disk's.
func TestWriterFullDiskLeavesWholeLines(t *testing.T) {
	f := &fullDisk{room: 1000}
	w, err := NewWriter(f, WriterOptions{BufferSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	w.file = f
	line := bytes.Repeat([]byte("x"), 29) // 30 bytes with its newline
	var sendErr error
	for range 100 {
		if sendErr = w.Send(context.Background(), Message{Topic: "hits", Value: line}); sendErr != nil {
			break
		}
	}
	ferr := w.Flush(context.Background())
	if !errors.Is(sendErr, syscall.ENOSPC) && !errors.Is(ferr, syscall.ENOSPC) {
		t.Fatalf("Send = %v, Flush = %v; want ENOSPC", sendErr, ferr)
	}
	if len(f.data)%30 != 0 || !bytes.HasSuffix(f.data, []byte("x\n")) {
		t.Fatalf("file holds %d bytes ending %q: want whole 30-byte lines", len(f.data), f.data[max(0, len(f.data)-5):])
	}
	if acked := w.Stats().Topics["hits"].Acked; acked != int64(len(f.data)/30) {
		t.Errorf("acked %d, file holds %d lines", acked, len(f.data)/30)
	}
}

// TestSnapshotCountsEveryAckWithItsLatency: a snapshot taken while acknowledgements arrive
// holds as many latencies as acknowledged messages, so a stress interval never counts records
// whose latencies went to the interval before.
func TestSnapshotCountsEveryAckWithItsLatency(t *testing.T) {
	r := newRecorder()
	tc := r.topic("hits")
	const ackers, each = 4, 20000
	var wg sync.WaitGroup
	for range ackers {
		wg.Go(func() {
			for range each {
				r.ack(tc, 0, 10, time.Millisecond, false)
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for snaps := 0; ; snaps++ {
		select {
		case <-done:
			if s := r.snapshot(); s.Topics["hits"].Acked != ackers*each || s.Latency.Count() != ackers*each {
				t.Fatalf("final snapshot: %d acked, %d latencies; want %d", s.Topics["hits"].Acked, s.Latency.Count(), ackers*each)
			}
			return
		default:
		}
		s := r.snapshot()
		if acked, lats := s.Topics["hits"].Acked, s.Latency.Count(); int64(lats) != acked {
			t.Fatalf("snapshot %d: %d acked but %d latencies", snaps, acked, lats)
		}
	}
}
