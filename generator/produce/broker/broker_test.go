package broker_test

import (
	"context"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/internal/tier/kafkatest"
	"github.com/clickgen/clickgen/schema"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestStartBroker: port 0 picks a free port, the stand's topics exist with
// their partition counts, and the embedded broker takes an idempotent lz4
// producer (the sink's defaults) and gives the records back.
func TestStartBroker(t *testing.T) {
	b, err := broker.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	addrs := b.Addrs()
	if len(addrs) != 1 || !strings.HasPrefix(addrs[0], "127.0.0.1:") || strings.HasSuffix(addrs[0], ":0") {
		t.Fatalf("Addrs() = %v, want one 127.0.0.1 address with a real port", addrs)
	}

	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	details, err := kadm.NewClient(cl).ListTopics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for topic, n := range sink.DefaultTopics() {
		if d := details[topic]; d.Err != nil || len(d.Partitions) != int(n) {
			t.Errorf("topic %s: err %v, %d partitions, want %d", topic, d.Err, len(d.Partitions), n)
		}
	}

	k := kafkatest.NewKafka(t, addrs)
	msgs := kafkatest.TestMessages("hits", 2000)
	kafkatest.SendAll(t, k, msgs)
	recs := kafkatest.ConsumeAll(t, addrs, "hits")
	if len(recs) != len(msgs) {
		t.Errorf("read back %d records, want %d", len(recs), len(msgs))
	}
	for _, r := range recs {
		if want := schema.PartitionForKey(r.Key, 2); r.Partition != want {
			t.Fatalf("key %s in partition %d, want %d", r.Key, r.Partition, want)
		}
	}

	if err := b.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestStartBrokerListenAndAdvertise(t *testing.T) {
	// All interfaces: clients are told 127.0.0.1.
	b, err := broker.Start("0.0.0.0:0", broker.Topics(map[string]int32{"t": 3}))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	addr := b.Addrs()[0]
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("advertised %s for 0.0.0.0, want 127.0.0.1:port", addr)
	}
	k := kafkatest.NewKafka(t, b.Addrs())
	if w, err := k.EnsureTopics(context.Background(), false, map[string]int32{"t": 3}); err != nil || len(w) != 0 {
		t.Errorf("EnsureTopics(t/3) = %q, %v; want the seeded topic", w, err)
	}

	// An explicit advertised host.
	b2, err := broker.Start("127.0.0.1:0", broker.AdvertisedHost("localhost"))
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if a := b2.Addrs()[0]; !strings.HasPrefix(a, "localhost:") {
		t.Errorf("advertised %s, want localhost:port", a)
	}
	k2 := kafkatest.NewKafka(t, b2.Addrs(), sink.ConnectTimeout(5*time.Second))
	if err := k2.CheckConnect(context.Background()); err != nil {
		t.Errorf("CheckConnect via advertised localhost: %v", err)
	}

	// The port is taken: a clear error.
	_, port, _ := net.SplitHostPort(addr)
	if _, err := broker.Start("127.0.0.1:" + port); err == nil {
		t.Errorf("Start on busy port %s succeeded", port)
	}
	for _, bad := range []string{"nonsense", "127.0.0.1:http", "127.0.0.1:70000"} {
		if _, err := broker.Start(bad); err == nil {
			t.Errorf("Start(%q) succeeded", bad)
		}
	}
	if _, err := broker.Start("127.0.0.1:0", broker.Topics(map[string]int32{"x": 0})); err == nil {
		t.Error("Start with a 0-partition topic succeeded")
	}
}

// TestCloseStopsGoroutines: after the sink, a consumer and the broker are
// closed, no goroutine they started is left.
func TestCloseStopsGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	b, err := broker.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	k, err := sink.NewKafka(sink.SeedBrokers(b.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	kafkatest.SendAll(t, k, kafkatest.TestMessages("hits", 1000))
	kafkatest.ConsumeAll(t, b.Addrs(), "hits")
	k.Close()
	b.Close()

	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines after Close, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
