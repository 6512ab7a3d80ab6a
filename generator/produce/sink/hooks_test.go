package sink_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/clickgen/clickgen/generator/produce/sink"
)

// produceHook counts the clients it is attached to and the records they acknowledge.
type produceHook struct{ clients, acked atomic.Int64 }

func (h *produceHook) OnNewClient(*kgo.Client) { h.clients.Add(1) }

func (h *produceHook) OnProduceRecordUnbuffered(_ *kgo.Record, err error) {
	if err == nil {
		h.acked.Add(1)
	}
}

// TestKafkaHooks: hooks given with sink.Hooks see the producer client once and every record
// it acknowledges; readers built from the same options (ClientOpts) do not get them.
func TestKafkaHooks(t *testing.T) {
	_, addrs := newCluster(t)
	h := &produceHook{}
	k := newKafka(t, addrs, sink.Hooks(h))
	sendAll(t, k, testMessages("hits", 100))
	if n := h.clients.Load(); n != 1 {
		t.Errorf("OnNewClient called %d times, want 1", n)
	}
	if n, acked := h.acked.Load(), k.Stats().Topics["hits"].Acked; n != acked || n != 100 {
		t.Errorf("hook saw %d records acknowledged, sink %d, want 100", n, acked)
	}
	opts, err := sink.ClientOpts(addrs, sink.Hooks(h))
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	cl.Close()
	if n := h.clients.Load(); n != 1 {
		t.Errorf("after a reader client, OnNewClient called %d times, want still 1", n)
	}
}

// syncBuffer is a bytes.Buffer the client's goroutines may log into.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestKafkaLogger: the client logs through the slog.Logger given with sink.Logger (via
// franz-go's kslog), at the levels the logger enables.
func TestKafkaLogger(t *testing.T) {
	_, addrs := newCluster(t)
	var buf syncBuffer
	l := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	k := newKafka(t, addrs, sink.Logger(l))
	if err := k.CheckConnect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, `"level":"DEBUG"`) || !strings.Contains(out, `"msg":`) {
		t.Errorf("no debug records from the client in %.300q", out)
	}
}
