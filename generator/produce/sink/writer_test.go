package sink_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/schema"
)

// TestWriterLines: each message is its value plus "\n", tombstones and empty
// values are empty lines, and nothing reaches the writer before Flush unless
// the buffer fills.
func TestWriterLines(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, m := range []Message{
		{Topic: "hits", Key: []byte("1"), Value: []byte(`{"a":1}`)},
		{Topic: "hits", Key: []byte("2"), Value: nil},
		{Topic: "hits", Key: []byte("3"), Value: []byte{}},
		{Topic: "orders", Key: []byte("o-1"), Value: []byte(`{"order_id":"o-1"}`)},
	} {
		if err := w.Send(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("%d bytes written before Flush, want buffering", buf.Len())
	}
	if st := w.Stats().Topics["hits"]; st.Sent != 3 || st.Acked != 0 {
		t.Errorf("before Flush: sent %d acked %d, want 3 0 (acked means written)", st.Sent, st.Acked)
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "{\"a\":1}\n\n\n{\"order_id\":\"o-1\"}\n"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
	st := w.Stats()
	hits, orders := st.Topics["hits"], st.Topics["orders"]
	if hits.Acked != 3 || hits.Bytes != 7 || orders.Acked != 1 || orders.Bytes != 18 {
		t.Errorf("hits acked %d bytes %d, orders acked %d bytes %d; want 3 7 1 18", hits.Acked, hits.Bytes, orders.Acked, orders.Bytes)
	}
	wantHits := map[int32]int64{}
	for _, k := range []string{"1", "2", "3"} {
		wantHits[schema.PartitionForKey([]byte(k), 2)]++
	}
	if !maps.Equal(hits.Partitions, wantHits) || !maps.Equal(orders.Partitions, map[int32]int64{0: 1}) {
		t.Errorf("partitions hits %v orders %v, want %v and map[0:1]", hits.Partitions, orders.Partitions, wantHits)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Send(ctx, Message{Topic: "hits"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after Close = %v, want ErrClosed", err)
	}
}

func TestWriterPartitionOptions(t *testing.T) {
	m := Message{Topic: "hits", Key: []byte("42"), Value: []byte("x")}
	for _, tc := range []struct {
		name  string
		parts map[string]int32
		want  map[int32]int64
	}{
		{"default", nil, map[int32]int64{schema.PartitionForKey([]byte("42"), 2): 1}},
		{"disabled", map[string]int32{}, map[int32]int64{}},
		{"custom", map[string]int32{"hits": 7}, map[int32]int64{schema.PartitionForKey([]byte("42"), 7): 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := NewWriter(io.Discard, WriterOptions{Partitions: tc.parts})
			if err != nil {
				t.Fatal(err)
			}
			sendAll(t, w, []Message{m, {Topic: "hits", Value: []byte("no key")}})
			if got := w.Stats().Topics["hits"].Partitions; !maps.Equal(got, tc.want) {
				t.Errorf("partitions %v, want %v", got, tc.want)
			}
		})
	}
	if _, err := NewWriter(io.Discard, WriterOptions{Partitions: map[string]int32{"hits": 0}}); err == nil {
		t.Error("NewWriter accepted a topic with 0 partitions")
	}
	if _, err := NewWriter(io.Discard, WriterOptions{BufferSize: -1}); err == nil {
		t.Error("NewWriter accepted a negative buffer size")
	}
}

// failingWriter accepts limit bytes in total, then fails.
type failingWriter struct {
	buf   bytes.Buffer
	limit int
}

var errDiskFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	room := f.limit - f.buf.Len()
	if len(p) <= room {
		return f.buf.Write(p)
	}
	f.buf.Write(p[:room])
	return room, errDiskFull
}

// TestWriterWriteError: lines written in full are acked, the rest fail with
// the write error, which is sticky.
func TestWriterWriteError(t *testing.T) {
	fw := &failingWriter{limit: 25}
	w, err := NewWriter(fw, WriterOptions{BufferSize: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 5 {
		// 10-byte lines: two fit in 25 bytes, the third is cut.
		if err := w.Send(ctx, Message{Topic: "hits", Value: []byte("123456789"), Tag: uint32(i)}); err != nil {
			t.Fatal(err)
		}
	}
	err = w.Flush(ctx)
	var de *DeliveryError
	if !errors.As(err, &de) || !errors.Is(err, errDiskFull) {
		t.Fatalf("Flush = %v, want a DeliveryError wrapping the write error", err)
	}
	st := w.Stats().Topics["hits"]
	if st.Acked != 2 || st.Failed != 3 || st.Bytes != 18 {
		t.Errorf("acked %d failed %d bytes %d, want 2 3 18", st.Acked, st.Failed, st.Bytes)
	}
	if !equalU32(st.FailedTags, []uint32{2, 3, 4}) || de.Tag != 2 {
		t.Errorf("failed tags %v, first %d; want [2 3 4], first 2", st.FailedTags, de.Tag)
	}
	if err := w.Send(ctx, Message{Topic: "hits", Value: []byte("x")}); !errors.As(err, &de) {
		t.Errorf("Send after a write error = %v, want the DeliveryError", err)
	}
}

func TestWriterBufferFullWrites(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WriterOptions{BufferSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	val := bytes.Repeat([]byte("a"), 49) // 50-byte lines
	ctx := context.Background()
	for range 3 {
		if err := w.Send(ctx, Message{Topic: "hits", Value: val, Due: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	if buf.Len() != 100 {
		t.Errorf("%d bytes written after 3 lines with a 100-byte buffer, want 100", buf.Len())
	}
	if st := w.Stats(); st.Topics["hits"].Acked != 2 || st.Latency.Count() != 2 {
		t.Errorf("acked %d, latencies %d; want 2 and 2", st.Topics["hits"].Acked, st.Latency.Count())
	}
}

func TestCreateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hits.jsonl")
	if err := os.WriteFile(path, []byte("old content that must go\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := CreateFile(path, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := testMessages("hits", 3000)
	sendAll(t, w, msgs)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	for _, m := range msgs {
		want.Write(m.Value)
		want.WriteByte('\n')
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("file holds %d bytes, want exactly the %d bytes of value+newline", len(got), want.Len())
	}
	if _, err := CreateFile(filepath.Join(t.TempDir(), "no", "such", "dir"), WriterOptions{}); err == nil {
		t.Error("CreateFile in a missing directory succeeded")
	}
}

// TestWriterTimesUnpacedAfterPaced: an unpaced line that follows paced ones in the same buffer
// is timed from when it was handed over, not from a clock never read.
func TestWriterTimesUnpacedAfterPaced(t *testing.T) {
	w, err := NewWriter(io.Discard, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 10 {
		m := Message{Topic: "hits", Value: []byte("x")}
		if i < 3 {
			m.Due = time.Now()
		}
		if err := w.Send(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if h := w.Stats().Latency; h.Count() != 10 || h.Max() > time.Minute {
		t.Errorf("%d latencies, max %v; want 10, each from its line's hand-over", h.Count(), h.Max())
	}
}
