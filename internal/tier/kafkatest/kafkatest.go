// Package kafkatest holds the helpers the Kafka tests of several packages share: an
// in-process kfake cluster with the stand's topics, a sink to it, distinct test messages,
// and sending and reading back that fail the test on error.
package kafkatest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/twmb/franz-go/pkg/kfake"
)

// NewCluster starts a one-broker kfake cluster with the stand's topics
// (hits 2, orders 1) plus extra options, closed at the end of the test.
func NewCluster(t testing.TB, opts ...kfake.Opt) (*kfake.Cluster, []string) {
	t.Helper()
	opts = append([]kfake.Opt{
		kfake.NumBrokers(1),
		kfake.SeedTopics(2, "hits"),
		kfake.SeedTopics(1, "orders"),
	}, opts...)
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatalf("kfake.NewCluster: %v", err)
	}
	t.Cleanup(c.Close)
	return c, c.ListenAddrs()
}

// NewKafka returns a Kafka sink to addrs, closed at the end of the test.
func NewKafka(t testing.TB, addrs []string, opts ...sink.Opt) *sink.Kafka {
	t.Helper()
	k, err := sink.NewKafka(append([]sink.Opt{sink.SeedBrokers(addrs...)}, opts...)...)
	if err != nil {
		t.Fatalf("NewKafka: %v", err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// TestMessages returns n messages for topic with distinct decimal keys (like
// ClientIDs) and distinct JSON values carrying their index; every 1000th
// message (from index 7) is a tombstone and every 1000th (from 8) an empty
// value. Tag is the index / 1000 (a "day").
func TestMessages(topic string, n int) []sink.Message {
	rng := rand.New(rand.NewPCG(11, 12))
	seen := make(map[uint64]bool, n)
	msgs := make([]sink.Message, n)
	for i := range msgs {
		id := rng.Uint64()
		for seen[id] {
			id = rng.Uint64()
		}
		seen[id] = true
		m := sink.Message{Topic: topic, Key: strconv.AppendUint(nil, id, 10), Tag: uint32(i / 1000)}
		switch i % 1000 {
		case 7:
			m.Value = nil
		case 8:
			m.Value = []byte{}
		default:
			m.Value = fmt.Appendf(nil, `{"i":%d,"ClientID":%d,"URL":"https://shop.example/p/%d"}`, i, id, rng.IntN(180))
		}
		msgs[i] = m
	}
	return msgs
}

// SendAll sends msgs and flushes, failing the test on any error.
func SendAll(t testing.TB, s sink.Sink, msgs []sink.Message) {
	t.Helper()
	ctx := context.Background()
	for i, m := range msgs {
		if err := s.Send(ctx, m); err != nil {
			t.Fatalf("Send #%d: %v", i, err)
		}
	}
	fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.Flush(fctx); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

// ConsumeAll reads topic back, failing the test on error (within a minute: a loaded machine reads slowly).
func ConsumeAll(t testing.TB, addrs []string, topic string, opts ...sink.Opt) []broker.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	recs, err := broker.Consume(ctx, addrs, topic, opts...)
	if err != nil {
		t.Fatalf("broker.Consume(%s): %v", topic, err)
	}
	return recs
}
