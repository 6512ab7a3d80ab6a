package tests

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clickgen/clickgen/internal/testenv"
	"github.com/clickgen/clickgen/schema"
)

// TestKcatReadsWhatInventorySays is test tier 3: a separate `clickgen broker` process, day 0
// and its snapshot played by separate `clickgen` processes, and both topics read back by kcat
// (librdkafka, the client ClickHouse's Kafka engine uses). Counts, keys, partitions (murmur2)
// and values must be what the inventory and the file sink say.
func TestKcatReadsWhatInventorySays(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	kcat := kcatPath(t)
	bin := buildClickgen(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	broker := exec.CommandContext(ctx, bin, "broker", "--listen", "127.0.0.1:0")
	stdout, _ := broker.StdoutPipe()
	var brokerErr bytes.Buffer
	broker.Stderr = &brokerErr
	if err := broker.Start(); err != nil {
		t.Fatal(err)
	}
	defer broker.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, "listening on ") {
		t.Fatalf("broker said %q (%v)", line, err)
	}
	addr := strings.Fields(strings.SplitAfter(line, "listening on ")[1])[0]
	go func() { bufio.NewScanner(stdout).Scan() }()

	kcatReadsWhatInventorySays(t, ctx, bin, kcat, addr)

	broker.Process.Signal(syscall.SIGINT)
	if err := broker.Wait(); err != nil || !strings.Contains(brokerErr.String(), "broker stopped") {
		t.Errorf("broker after Ctrl-C: %v, stderr %q; want a clean stop", err, brokerErr.String())
	}
}

// kcatReadsWhatInventorySays plays day 0 and its snapshot with the command bin into the empty
// topics hits (2 partitions) and orders (1) at addr and reads them back with kcat: counts,
// keys, partitions (murmur2) and values are what the inventory and the file sink say.
func kcatReadsWhatInventorySays(t *testing.T, ctx context.Context, bin, kcat, addr string) {
	dir := t.TempDir()
	play := func(args ...string) {
		t.Helper()
		out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("clickgen %v: %v\n%s", args, err, out)
		}
	}
	play("batch", "--day", "0", "--brokers", addr, "--topic", "hits")
	play("snapshot", "--day", "1", "--brokers", addr, "--topic", "orders")
	play("batch", "--day", "0", "--file", filepath.Join(dir, "hits.jsonl"))
	play("snapshot", "--day", "1", "--file", filepath.Join(dir, "orders.jsonl"))
	inv := inventoryOf(t, "--day", "0", "--days", "2")

	for _, tc := range []struct {
		topic string
		parts int32
		want  int
	}{{"hits", 2, inv.Days[0].Events}, {"orders", 1, inv.Snapshots[0].Rows}} {
		// %p partition, %k key, %s value; values are compact JSON without tabs or newlines.
		out, err := exec.CommandContext(ctx, kcat, "-C", "-b", addr, "-t", tc.topic, "-e", "-q", "-f", "%p\t%k\t%s\n").Output()
		if err != nil {
			t.Fatalf("kcat %s: %v", tc.topic, err)
		}
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if len(lines) != tc.want {
			t.Fatalf("kcat read %d %s messages, inventory says %d", len(lines), tc.topic, tc.want)
		}
		var values []string
		perPart := map[int32]int{}
		for _, l := range lines {
			f := strings.SplitN(l, "\t", 3)
			p, _ := strconv.Atoi(f[0])
			if want := schema.PartitionForKey([]byte(f[1]), tc.parts); int32(p) != want {
				t.Fatalf("%s: key %s in partition %d, murmur2 says %d", tc.topic, f[1], p, want)
			}
			if !strings.Contains(f[2], keyField(tc.topic, f[1])) {
				t.Fatalf("%s: key %s does not match its message %.100s", tc.topic, f[1], f[2])
			}
			perPart[int32(p)]++
			values = append(values, f[2])
		}
		file, _ := os.ReadFile(filepath.Join(dir, tc.topic+".jsonl"))
		want := strings.Split(strings.TrimSuffix(string(file), "\n"), "\n")
		slices.Sort(values)
		slices.Sort(want)
		if !slices.Equal(values, want) {
			t.Errorf("%s: kcat's values differ from the file sink's bytes", tc.topic)
		}
		t.Logf("%s: %d messages, per partition %v", tc.topic, len(lines), perPart)
	}
}

// kcatPath finds kcat where the kcat tier runs.
func kcatPath(t *testing.T) string {
	t.Helper()
	p, missing := testenv.MustHaveCommand("apt-get install -y kcat", "kcat")
	testenv.Need(t, testenv.Kcat, missing)
	return p
}

// kcatRecord is one message of a topic as kcat (librdkafka) reads it.
type kcatRecord struct {
	partition int32
	offset    int64
	key       string
}

// kcatRead reads topic at addr from the start of every partition to its end with kcat:
// partition, offset and key of every message (values are not printed, so any bytes do).
func kcatRead(t *testing.T, ctx context.Context, addr, topic string) []kcatRecord {
	t.Helper()
	out, err := exec.CommandContext(ctx, kcatPath(t), "-C", "-b", addr, "-t", topic, "-e", "-q", "-f", "%p\t%o\t%k\n").Output()
	if err != nil {
		t.Fatalf("kcat %s: %v", topic, err)
	}
	var recs []kcatRecord
	for l := range strings.SplitSeq(strings.TrimSuffix(string(out), "\n"), "\n") {
		if l == "" {
			continue
		}
		f := strings.SplitN(l, "\t", 3)
		p, _ := strconv.Atoi(f[0])
		o, _ := strconv.ParseInt(f[1], 10, 64)
		recs = append(recs, kcatRecord{partition: int32(p), offset: o, key: f[2]})
	}
	return recs
}

// keyField is how the key appears inside its message.
func keyField(topic, key string) string {
	if topic == "hits" {
		return `"ClientID":` + key + ","
	}
	return `"order_id":"` + key + `"`
}
