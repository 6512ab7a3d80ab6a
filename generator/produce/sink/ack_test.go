package sink_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/sink"
)

// TestAckCarriesTheMessage: each acknowledgement carries the message's own key and value (a
// freshness follower reads a sampled message's key from them), equal to what was sent.
func TestAckCarriesTheMessage(t *testing.T) {
	msgs := testMessages("hits", 200)
	_, addrs := newCluster(t)
	var mu sync.Mutex
	got := map[string][]byte{}
	k := newKafka(t, addrs, sink.OnAck(func(a sink.Ack) {
		mu.Lock()
		got[string(a.Key)] = bytes.Clone(a.Value)
		mu.Unlock()
	}))
	sendAll(t, k, msgs)
	mu.Lock()
	defer mu.Unlock()
	for _, m := range msgs {
		if v, ok := got[string(m.Key)]; !ok || !bytes.Equal(v, m.Value) {
			t.Fatalf("key %q: acknowledged with value %q (heard %v), want %q", m.Key, v, ok, m.Value)
		}
	}
}
