package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/schema"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kfakeCluster starts an in-process broker with the stand's topics.
func kfakeCluster(t *testing.T, opts ...kfake.Opt) (*kfake.Cluster, string) {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(2, "hits"), kfake.SeedTopics(1, "orders")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, strings.Join(c.ListenAddrs(), ",")
}

func consume(t *testing.T, addr, topic string) []broker.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	recs, err := broker.Consume(ctx, []string{addr}, topic)
	if err != nil {
		t.Fatalf("consume %s: %v", topic, err)
	}
	return recs
}

type report struct {
	Topics map[string]struct {
		Sent, Acked, Failed, Bytes int64
		Partitions                 map[string]int64
	} `json:"topics"`
	Interrupted bool `json:"interrupted"`
}

func readReport(t *testing.T, path string) report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	return r
}

// TestKafkaRoundTrip plays a day with garbage and its snapshot into kfake (roundTrip).
func TestKafkaRoundTrip(t *testing.T) {
	_, addr := kfakeCluster(t)
	roundTrip(t, addr)
}

// roundTrip plays a day with redeliveries and its snapshot into the topics hits (2
// partitions) and orders (1) at addr: every message arrives once, keyed as the contract says,
// in the partition murmur2 picks, with the exact bytes the file sink writes, in the file's
// order within each partition.
func roundTrip(t *testing.T, addr string) {
	dir := t.TempDir()
	// Redeliveries repeat a clean message with its key; garbage (whose values can repeat under
	// different keys) is reconciled by the verify tests instead.
	garbage := []string{"--redeliver", "0.005"}
	for _, tc := range []struct {
		verb, topic string
		parts       int32
		args        []string
	}{
		{"batch", "hits", 2, []string{"--day", "0"}},
		{"snapshot", "orders", 1, []string{"--day", "1", "--days", "3"}},
	} {
		file := filepath.Join(dir, tc.topic+".jsonl")
		args := append(append([]string{tc.verb}, tc.args...), garbage...)
		if _, errs, code := clickgen(t, append(args, "--file", file)...); code != 0 {
			t.Fatalf("%s to a file: exit %d: %s", tc.verb, code, errs)
		}
		if _, errs, code := clickgen(t, append(args, "--brokers", addr, "--topic", tc.topic)...); code != 0 {
			t.Fatalf("%s to kafka: exit %d: %s", tc.verb, code, errs)
		}
		want, _ := os.ReadFile(file)
		lines := bytes.Split(bytes.TrimSuffix(want, []byte("\n")), []byte("\n"))
		recs := consume(t, addr, tc.topic)
		if len(recs) != len(lines) {
			t.Fatalf("%s: topic holds %d records, the file %d lines", tc.topic, len(recs), len(lines))
		}
		for _, r := range recs {
			if want := schema.PartitionForKey(r.Key, tc.parts); r.Partition != want {
				t.Fatalf("%s: key %s in partition %d, murmur2 says %d", tc.topic, r.Key, r.Partition, want)
			}
		}
		checkPartitionOrder(t, tc.topic, lines, recs, tc.parts)
	}
}

// checkPartitionOrder verifies that, partition by partition, the records are exactly the
// file's lines whose key hashes to that partition, in file order. The key of a line is
// recomputed from the records themselves (key and value travel together).
func checkPartitionOrder(t *testing.T, topic string, lines [][]byte, recs []broker.Record, parts int32) {
	t.Helper()
	keyOf := map[string][]byte{}
	for _, r := range recs {
		keyOf[string(r.Value)] = r.Key
	}
	want := map[int32][][]byte{}
	for _, l := range lines {
		k, ok := keyOf[string(l)]
		if !ok {
			t.Fatalf("%s: a line of the file never reached the topic: %.120q", topic, l)
		}
		p := schema.PartitionForKey(k, parts)
		want[p] = append(want[p], l)
	}
	got := map[int32][][]byte{}
	for _, r := range recs {
		got[r.Partition] = append(got[r.Partition], r.Value)
	}
	for p := range parts {
		if len(got[p]) != len(want[p]) {
			t.Fatalf("%s partition %d: %d records, file says %d", topic, p, len(got[p]), len(want[p]))
		}
		for i := range got[p] {
			if !bytes.Equal(got[p][i], want[p][i]) {
				t.Fatalf("%s partition %d record %d differs from the file's order", topic, p, i)
			}
		}
	}
}

// TestBrokerRejectsProduces: a broker that starts refusing produce requests makes the run
// fail with exit 1, name the incomplete day, and report exactly what was acknowledged.
func TestBrokerRejectsProduces(t *testing.T) {
	c, addr := kfakeCluster(t)
	refuseProducesAfter(c, 2000)
	rep := filepath.Join(t.TempDir(), "report.json")
	_, errs, code := clickgen(t, "batch", "--day", "0", "--days", "2", "--brokers", addr, "--topic", "hits", "--report", rep)
	if code != 1 || !strings.Contains(errs, "day 0 (2026-06-01) is incomplete") {
		t.Fatalf("exit %d, stderr %q; want exit 1 naming day 0 as incomplete", code, errs)
	}
	r := readReport(t, rep)
	held := len(consume(t, addr, "hits"))
	h := r.Topics["hits"]
	if h.Failed == 0 || h.Acked != int64(held) || h.Acked+h.Failed != h.Sent {
		t.Errorf("report sent %d acked %d failed %d; topic holds %d", h.Sent, h.Acked, h.Failed, held)
	}
}

// TestInterruptLeavesHonestReport cancels a multi-day run in the middle (Ctrl-C): the run
// exits non-zero, the report says interrupted, and acked equals what the topic holds.
func TestInterruptLeavesHonestReport(t *testing.T) {
	c, addr := kfakeCluster(t)
	var produces atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	c.ControlKey(int16(kmsg.Produce), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if produces.Add(1) == 40 {
			cancel() // Ctrl-C while records are in flight
		}
		return nil, nil, false
	})
	rep := filepath.Join(t.TempDir(), "report.json")
	var out, errb bytes.Buffer
	err := run(ctx, []string{"batch", "--day", "0", "--days", "4", "--brokers", addr, "--topic", "hits", "--report", rep}, &out, &errb)
	if !errors.Is(err, context.Canceled) || exitCode(err, &errb) == 0 {
		t.Fatalf("interrupted run returned %v (exit %d), want an interruption", err, exitCode(err, &errb))
	}
	r := readReport(t, rep)
	held := len(consume(t, addr, "hits"))
	h := r.Topics["hits"]
	if !r.Interrupted || h.Acked != int64(held) || h.Failed != 0 || held == 0 || held >= 4*48000 {
		t.Errorf("report interrupted=%v sent %d acked %d failed %d; topic holds %d", r.Interrupted, h.Sent, h.Acked, h.Failed, held)
	}
}

func TestUnreachableBrokerAndMissingTopic(t *testing.T) {
	start := time.Now()
	_, errs, code := clickgen(t, "batch", "--day", "0", "--brokers", "127.0.0.1:1", "--topic", "hits", "--connect-timeout", "1s")
	if code != 1 || time.Since(start) > 10*time.Second || !strings.Contains(errs, "127.0.0.1:1") {
		t.Errorf("unreachable broker: exit %d after %v, stderr %q; want exit 1 within seconds naming the broker", code, time.Since(start), errs)
	}
	_, addr := kfakeCluster(t)
	missingTopic(t, addr)
}

// missingTopic: a topic that does not exist at addr is refused, suggesting --create-topics,
// which then creates it and says so (issue 31), with its partitions and replication factor.
func missingTopic(t *testing.T, addr string) {
	_, errs, code := clickgen(t, "batch", "--day", "0", "--limit", "10", "--brokers", addr, "--topic", "clicks")
	if code != 1 || !strings.Contains(errs, "--create-topics") {
		t.Errorf("missing topic: exit %d, stderr %q; want exit 1 suggesting --create-topics", code, errs)
	}
	_, errs, code = clickgen(t, "batch", "--day", "0", "--limit", "10", "--brokers", addr, "--topic", "clicks", "--create-topics")
	if code != 0 || len(consume(t, addr, "clicks")) != 10 {
		t.Errorf("--create-topics: exit %d, stderr %q", code, errs)
	}
	if !strings.Contains(errs, "clickgen: created topic clicks (2 partitions, replication factor ") {
		t.Errorf("--create-topics said %q; want the topic it created, its partitions and replication factor", errs)
	}
}
