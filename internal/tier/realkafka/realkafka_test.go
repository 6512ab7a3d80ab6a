package realkafka_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/clickgen/clickgen/internal/tier/realkafka"
)

// TestStartProduceKillRestart starts the stand-like node, creates a topic, produces one
// record, kills the node, restarts it on its data and reads the record back.
func TestStartProduceKillRestart(t *testing.T) {
	c := realkafka.Start(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 2, 1, nil, "t"); err != nil {
		t.Fatalf("create topic: %v", err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Key: []byte("k"), Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatalf("produce: %v", err)
	}
	c.Kill(0)
	if c.Pid(0) != 0 {
		t.Fatal("a killed node still has a pid")
	}
	c.Restart(0)
	ends, err := adm.ListEndOffsets(ctx, "t")
	for err != nil && ctx.Err() == nil {
		time.Sleep(200 * time.Millisecond)
		ends, err = adm.ListEndOffsets(ctx, "t")
	}
	if err != nil {
		t.Fatalf("end offsets after restart: %v", err)
	}
	var total int64
	ends.Each(func(o kadm.ListedOffset) { total += o.Offset })
	if total != 1 {
		t.Fatalf("topic holds %d records after the restart, want 1", total)
	}
	out, err := c.Tool(ctx, "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", c.Bootstrap(), "--describe", "--topic", "t")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", out)
}
