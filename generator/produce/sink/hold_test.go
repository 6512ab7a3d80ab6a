package sink_test

import (
	"bytes"
	"context"
	"maps"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/schema"
)

// TestKafkaKeepsHolds: the Kafka sink counts Message.Hold for every message it queues and
// releases it when the message is acknowledged, or when it fails; a message Send refuses is
// never counted. A sender reuses a batch's memory when its hold is done, so a hold released
// early corrupts messages in flight, and one never released stalls the sender's memory.
func TestKafkaKeepsHolds(t *testing.T) {
	ctx := context.Background()
	t.Run("acknowledged", func(t *testing.T) {
		_, addrs := newCluster(t)
		k := newKafka(t, addrs)
		if !sink.KeepsHolds(k) {
			t.Fatal("KeepsHolds(Kafka) = false")
		}
		var hold sink.Hold
		for _, m := range testMessages("hits", 500) {
			m.Hold = &hold
			if err := k.Send(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		if err := k.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if !hold.Done() {
			t.Error("hold not done after every message was acknowledged")
		}
		if got := k.Stats().Topics["hits"].Acked; got != 500 {
			t.Errorf("acked %d, want 500", got)
		}
	})
	t.Run("failed", func(t *testing.T) {
		c, addrs := newCluster(t)
		failProduce(c, 0, kerr.TopicAuthorizationFailed.Code)
		k := newKafka(t, addrs)
		var hold sink.Hold
		for _, m := range testMessages("hits", 50) {
			m.Hold = &hold
			if err := k.Send(ctx, m); err != nil {
				break // the sticky failure refuses the rest
			}
		}
		if err := k.Flush(ctx); err == nil {
			t.Fatal("Flush: nil error, want the delivery failure")
		}
		if !hold.Done() {
			t.Error("hold not done after the messages failed")
		}
	})
	t.Run("refused", func(t *testing.T) {
		_, addrs := newCluster(t)
		k := newKafka(t, addrs)
		k.Close()
		var hold sink.Hold
		m := testMessages("hits", 1)[0]
		m.Hold = &hold
		if err := k.Send(ctx, m); err == nil {
			t.Fatal("Send on a closed sink: nil error")
		}
		if !hold.Done() {
			t.Error("a refused message is counted in its hold")
		}
	})
}

// TestWriterKeepsNoBytes: the writer keeps holds trivially: a message sent with a hold leaves
// it done, and bytes overwritten once Send returned (a batch recycled by the run) change
// nothing written, key and partition included.
func TestWriterKeepsNoBytes(t *testing.T) {
	var buf bytes.Buffer
	w, err := sink.NewWriter(&buf, sink.WriterOptions{Partitions: map[string]int32{"hits": 2}})
	if err != nil {
		t.Fatal(err)
	}
	if !sink.KeepsHolds(w) {
		t.Fatal("the writer does not say it keeps holds: a run holds its batches to flushes")
	}
	ctx := context.Background()
	var h sink.Hold
	key, value := []byte("123456789"), []byte(`{"a":1}`)
	if err := w.Send(ctx, sink.Message{Topic: "hits", Key: key, Value: value, Hold: &h}); err != nil {
		t.Fatal(err)
	}
	if !h.Done() {
		t.Error("the writer counts a message in its hold after Send returned")
	}
	copy(key, "987654321")
	copy(value, `{"b":2}`)
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "{\"a\":1}\n" {
		t.Errorf("wrote %q, want the bytes as they were sent", got)
	}
	want := map[int32]int64{schema.PartitionForKey([]byte("123456789"), 2): 1}
	if got := w.Stats().Topics["hits"].Partitions; !maps.Equal(got, want) {
		t.Errorf("partitions %v, want %v: the key as it was sent", got, want)
	}
}
