package sink

import (
	"bytes"
	"context"
	"errors"
	"io"
	"syscall"
	"testing"
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
