package sink_test

import (
	"context"
	"io"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/clickgen/clickgen/generator/produce/sink"
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

// The file writer copies a message in Send: it keeps no holds, and a sender flushes it.
func TestWriterKeepsNoHolds(t *testing.T) {
	w, err := sink.NewWriter(io.Discard, sink.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if sink.KeepsHolds(w) {
		t.Error("KeepsHolds(Writer) = true")
	}
}
