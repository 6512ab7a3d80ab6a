package sink_test

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	. "github.com/clickgen/clickgen/generator/produce/sink"
)

// TestWarmupCountedApart: the messages flagged Warmup are sent like the others and counted
// apart, on both kinds of sink: Stats.Warmup holds their acknowledgements, bytes and latency,
// AfterWarmup the latency of the others, exactly (the warm-up's latencies are ten seconds and
// more, the others' far less, so a single misfiled message shows in a maximum or a minimum),
// and Latency stays the whole run's. The Kafka sink's acknowledgements carry the flag.
func TestWarmupCountedApart(t *testing.T) {
	const warm, after = 300, 700
	msgs := testMessages("hits", warm+after)
	var warmBytes int64
	old := time.Now().Add(-10 * time.Second)
	for i := range msgs[:warm] {
		msgs[i].Warmup, msgs[i].Due = true, old
		warmBytes += int64(len(msgs[i].Value))
	}
	_, addrs := newCluster(t)
	var mu sync.Mutex
	acks := map[bool]int{}
	k := newKafka(t, addrs, OnAck(func(a Ack) {
		mu.Lock()
		acks[a.Warmup]++
		mu.Unlock()
	}))
	w, err := NewWriter(io.Discard, WriterOptions{BufferSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Sink{k, w} {
		sendAll(t, s, msgs)
		st := s.Stats()
		if st.Warmup.Acked != warm || st.Warmup.Latency.Count() != warm || st.Warmup.Failed != 0 || st.Warmup.Bytes != warmBytes {
			t.Errorf("%v: warm-up acked %d (latencies %d), failed %d, bytes %d; want %d, %d, 0, %d", s, st.Warmup.Acked,
				st.Warmup.Latency.Count(), st.Warmup.Failed, st.Warmup.Bytes, warm, warm, warmBytes)
		}
		if n := st.AfterWarmup.Count(); n != after || st.Latency.Count() != warm+after {
			t.Errorf("%v: %d latencies after the warm-up, %d in all; want %d, %d", s, n, st.Latency.Count(), after, warm+after)
		}
		if lo, hi := st.Warmup.Latency.Quantile(1e-9), st.AfterWarmup.Max(); lo < 9800*time.Millisecond || hi >= 5*time.Second {
			t.Errorf("%v: the warm-up's least latency %v, the others' greatest %v: want ≥ ~10s and < 5s (each in its own histogram)", s, lo, hi)
		}
		if st.Latency.Max() != st.Warmup.Latency.Max() || st.Latency.Sum() != st.Warmup.Latency.Sum()+st.AfterWarmup.Sum() {
			t.Errorf("%v: the whole run's latency (max %v, sum %v) is not the union of both parts", s, st.Latency.Max(), st.Latency.Sum())
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if acks[true] != warm || acks[false] != after {
		t.Errorf("acknowledgements heard: %d flagged Warmup, %d not; want %d, %d", acks[true], acks[false], warm, after)
	}
}

// TestWarmupFailuresCountedApart: a warm-up message that fails is counted among the warm-up's
// failures as well as its topic's.
func TestWarmupFailuresCountedApart(t *testing.T) {
	fw := &failingWriter{limit: 25}
	w, err := NewWriter(fw, WriterOptions{BufferSize: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 5 {
		// 10-byte lines: two fit in 25 bytes, the rest fail; the last two are the warm-up's.
		if err := w.Send(ctx, Message{Topic: "hits", Value: []byte("123456789"), Warmup: i < 1 || i >= 3}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(ctx); !errors.Is(err, errDiskFull) {
		t.Fatalf("Flush = %v, want the write error", err)
	}
	st := w.Stats()
	if st.Topics["hits"].Failed != 3 || st.Warmup.Failed != 2 || st.Warmup.Acked != 1 || st.Warmup.Bytes != 9 {
		t.Errorf("failed %d, warm-up failed %d acked %d bytes %d; want 3, 2, 1, 9", st.Topics["hits"].Failed, st.Warmup.Failed,
			st.Warmup.Acked, st.Warmup.Bytes)
	}
}
