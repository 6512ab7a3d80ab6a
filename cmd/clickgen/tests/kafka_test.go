package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/schema"
)

// TestKafkaRoundTrip plays a day with garbage and its snapshot into kfake (roundTrip).
func TestKafkaRoundTrip(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
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

// TestUnreachableBrokerAndMissingTopic: a broker nobody listens on fails the run (exit 1)
// naming the broker and the bound of the wait, --connect-timeout (how long that wait lasts is
// the sink's to test: sink's TestCheckConnectRefusedUntilTimeout); a missing topic
// says how to create it.
func TestUnreachableBrokerAndMissingTopic(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	_, errs, code := clickgen(t, "batch", "--day", "0", "--brokers", "127.0.0.1:1", "--topic", "hits", "--connect-timeout", "1s")
	if code != 1 || !strings.Contains(errs, "127.0.0.1:1") || !strings.Contains(errs, "within 1s") {
		t.Errorf("unreachable broker: exit %d, stderr %q; want exit 1 naming the broker and the 1s bound", code, errs)
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
