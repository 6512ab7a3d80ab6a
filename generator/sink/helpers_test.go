package sink

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// newCluster starts a one-broker kfake cluster with the stand's topics
// (hits 2, orders 1) plus extra options, closed at the end of the test.
func newCluster(t testing.TB, opts ...kfake.Opt) (*kfake.Cluster, []string) {
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

// newKafka returns a Kafka sink to addrs, closed at the end of the test.
func newKafka(t testing.TB, addrs []string, opts ...Opt) *Kafka {
	t.Helper()
	k, err := NewKafka(append([]Opt{SeedBrokers(addrs...)}, opts...)...)
	if err != nil {
		t.Fatalf("NewKafka: %v", err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// testMessages returns n messages for topic with distinct decimal keys (like
// ClientIDs) and distinct JSON values carrying their index; every 1000th
// message (from index 7) is a tombstone and every 1000th (from 8) an empty
// value. Tag is the index / 1000 (a "day").
func testMessages(topic string, n int) []Message {
	rng := rand.New(rand.NewPCG(11, 12))
	seen := make(map[uint64]bool, n)
	msgs := make([]Message, n)
	for i := range msgs {
		id := rng.Uint64()
		for seen[id] {
			id = rng.Uint64()
		}
		seen[id] = true
		m := Message{Topic: topic, Key: strconv.AppendUint(nil, id, 10), Tag: uint32(i / 1000)}
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

// sendAll sends msgs and flushes, failing the test on any error.
func sendAll(t testing.TB, s Sink, msgs []Message) {
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

// consumeAll reads topic back, failing the test on error.
func consumeAll(t testing.TB, addrs []string, topic string, opts ...Opt) []Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	recs, err := Consume(ctx, addrs, topic, opts...)
	if err != nil {
		t.Fatalf("Consume(%s): %v", topic, err)
	}
	return recs
}

// failProduce makes the cluster answer every produce request after the
// first `pass` ones with code for every partition, without storing
// anything. It returns the number of produce requests seen.
func failProduce(c *kfake.Cluster, pass int64, code int16) *atomic.Int64 {
	var seen atomic.Int64
	c.ControlKey(int16(kmsg.Produce), func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if seen.Add(1) <= pass {
			return nil, nil, false // handled normally: stored and acked
		}
		req := kreq.(*kmsg.ProduceRequest)
		resp := req.ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range req.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition = rp.Partition
				sp.ErrorCode = code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	return &seen
}
