package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	runreport "github.com/clickgen/clickgen/generator/measure/report"
	"github.com/clickgen/clickgen/internal/tier/realkafka"
	"github.com/clickgen/clickgen/schema"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// standTopics are the topics the stand's DAG creates.
var standTopics = map[string]int32{"hits": 2, "orders": 1}

// admin runs f with a fresh admin client of addr: a new client has no cached metadata, so a
// topic deleted or created a moment ago is seen as it is.
func admin(t *testing.T, addr string, f func(*kadm.Client) error) error {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(addr, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	return f(kadm.NewClient(cl))
}

// waitFor calls cond until it returns nil, failing t with its last error when ctx ends.
func waitFor(t *testing.T, ctx context.Context, what string, cond func() error) {
	t.Helper()
	for {
		err := cond()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v (gave up: %v)", what, err, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// resetTopics deletes every topic at addr and creates topics (name → partitions, the
// brokers' default replication factor), waiting until the deletions are done and every new
// partition has a leader: each subtest starts on topics that hold nothing.
func resetTopics(t *testing.T, addr string, topics map[string]int32) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var names []string
	if err := admin(t, addr, func(adm *kadm.Client) error {
		l, err := adm.ListTopics(ctx)
		names = l.Names()
		return err
	}); err != nil {
		t.Fatalf("list topics: %v", err)
	}
	if len(names) > 0 {
		if err := admin(t, addr, func(adm *kadm.Client) error {
			resp, err := adm.DeleteTopics(ctx, names...)
			if err != nil {
				return err
			}
			return resp.Error()
		}); err != nil {
			t.Fatalf("delete topics %v: %v", names, err)
		}
	}
	waitFor(t, ctx, "deleted topics still listed", func() error {
		return admin(t, addr, func(adm *kadm.Client) error {
			l, err := adm.ListTopics(ctx)
			if err == nil && len(l) > 0 {
				err = fmt.Errorf("topics %v", l.Names())
			}
			return err
		})
	})
	for _, name := range slices.Sorted(maps.Keys(topics)) {
		waitFor(t, ctx, "create topic "+name, func() error {
			return admin(t, addr, func(adm *kadm.Client) error {
				_, err := adm.CreateTopic(ctx, topics[name], -1, nil, name)
				return err
			})
		})
	}
	waitFor(t, ctx, "partition leaders", func() error {
		return admin(t, addr, func(adm *kadm.Client) error {
			l, err := adm.ListTopics(ctx, slices.Collect(maps.Keys(topics))...)
			if err != nil {
				return err
			}
			for name, n := range topics {
				d := l[name]
				if d.Err != nil || int32(len(d.Partitions)) != n {
					return fmt.Errorf("topic %s: %v, %d partitions", name, d.Err, len(d.Partitions))
				}
				for _, p := range d.Partitions {
					if p.Leader < 0 || p.Err != nil {
						return fmt.Errorf("topic %s partition %d: leader %d, %v", name, p.Partition, p.Leader, p.Err)
					}
				}
			}
			return nil
		})
	})
}

// javaRead reads the first n messages of topic with Kafka's own console consumer (the Java
// client, in a consumer group of its own) and returns their partitions and offsets. It stops
// at n, so it cannot see more than n: kcatRead and the end offsets show that.
func javaRead(t *testing.T, c *realkafka.Cluster, topic string, n int64) []kcatRecord {
	t.Helper()
	if n == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := c.Tool(ctx, "org.apache.kafka.tools.consumer.ConsoleConsumer", "--bootstrap-server", c.Bootstrap(),
		"--topic", topic, "--from-beginning", "--max-messages", strconv.FormatInt(n, 10), "--timeout-ms", "60000",
		"--formatter-property", "print.partition=true", "--formatter-property", "print.offset=true",
		"--formatter-property", "print.value=false")
	if err != nil {
		t.Fatalf("ConsoleConsumer %s: %v", topic, err)
	}
	line := regexp.MustCompile(`^Partition:(\d+)\tOffset:(\d+)$`)
	var recs []kcatRecord
	for l := range strings.SplitSeq(strings.TrimSuffix(string(out), "\n"), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("ConsoleConsumer %s printed %q", topic, l)
		}
		p, _ := strconv.Atoi(m[1])
		o, _ := strconv.ParseInt(m[2], 10, 64)
		recs = append(recs, kcatRecord{partition: int32(p), offset: o})
	}
	return recs
}

// endOffsets are topic's end offsets per partition: what it holds, as the broker says.
func endOffsets(t *testing.T, addr, topic string) map[int32]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ends := map[int32]int64{}
	if err := admin(t, addr, func(adm *kadm.Client) error {
		l, err := adm.ListEndOffsets(ctx, topic)
		if err != nil {
			return err
		}
		l.Each(func(o kadm.ListedOffset) { ends[o.Partition] = o.Offset })
		return l.Error()
	}); err != nil {
		t.Fatalf("end offsets of %s: %v", topic, err)
	}
	return ends
}

// perPartition checks that recs are offsets 0…n−1 of each partition exactly once and returns
// n per partition.
func perPartition(t *testing.T, who, topic string, recs []kcatRecord) map[int32]int64 {
	t.Helper()
	seen := map[[2]int64]bool{}
	n := map[int32]int64{}
	for _, r := range recs {
		id := [2]int64{int64(r.partition), r.offset}
		if seen[id] {
			t.Errorf("%s read %s partition %d offset %d twice", who, topic, r.partition, r.offset)
		}
		seen[id] = true
		n[r.partition]++
	}
	for _, r := range recs {
		if r.offset >= n[r.partition] {
			t.Errorf("%s read %s partition %d offset %d of %d messages: a gap", who, topic, r.partition, r.offset, n[r.partition])
			break
		}
	}
	return n
}

// topicHoldsReport: topic holds exactly what the report says was acknowledged, per
// partition, as the broker's end offsets, kcat and Kafka's Java consumer each see it.
func topicHoldsReport(t *testing.T, c *realkafka.Cluster, topic string, r runreport.Topic) {
	t.Helper()
	want := map[int32]int64{}
	for p, n := range r.Partitions {
		if n > 0 {
			want[p] = n
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ends := endOffsets(t, c.Bootstrap(), topic)
	maps.DeleteFunc(ends, func(_ int32, n int64) bool { return n == 0 })
	kc := perPartition(t, "kcat", topic, kcatRead(t, ctx, c.Bootstrap(), topic))
	java := perPartition(t, "ConsoleConsumer", topic, javaRead(t, c, topic, r.Acked))
	t.Logf("%s: report sent %d acked %d failed %d unaccounted %d, per partition %v; end offsets %v, kcat %v, Kafka's consumer %v",
		topic, r.Sent, r.Acked, r.Failed, r.Unaccounted, want, ends, kc, java)
	for who, got := range map[string]map[int32]int64{"end offsets": ends, "kcat": kc, "Kafka's ConsoleConsumer": java} {
		if !maps.Equal(got, want) {
			t.Errorf("%s: %s say %v per partition, the report acknowledged %v", topic, who, got, want)
		}
	}
	if r.Sent != r.Acked+r.Failed+r.Unaccounted {
		t.Errorf("%s: report sent %d ≠ acked %d + failed %d + unaccounted %d", topic, r.Sent, r.Acked, r.Failed, r.Unaccounted)
	}
}

func readSinkReport(t *testing.T, path string) runreport.Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	var r runreport.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	return r
}

// mustRun runs clickgen with args and fails t unless it exits 0; it returns stdout and stderr.
func mustRun(t *testing.T, args ...string) (string, string) {
	t.Helper()
	out, errs, code := clickgen(t, args...)
	if code != 0 {
		t.Fatalf("clickgen %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errs)
	}
	return out, errs
}

// TestRealKafka is the real-Kafka tier on one stand-like node (Apache Kafka 4.3.1, KRaft,
// hits with 2 partitions and orders with 1, recreated empty for every subtest). Every verb
// runs as a separate process of the built command.
func TestRealKafka(t *testing.T) {
	t.Parallel() // its own servers: it waits on them beside the other real tiers
	start := time.Now()
	c := realkafka.Start(t, 1)
	t.Logf("one node up in %v", time.Since(start).Round(time.Millisecond))
	kcatPath(t)
	addr := c.Bootstrap()
	dir := t.TempDir()

	for _, tc := range []struct {
		name   string
		topics map[string]int32
		test   func(t *testing.T)
	}{
		// The kfake tests, on the real broker.
		{"RoundTrip", standTopics, func(t *testing.T) { roundTrip(t, addr) }},
		{"KcatReadsWhatInventorySays", standTopics, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			kcatReadsWhatInventorySays(t, ctx, buildClickgen(t), kcatPath(t), addr)
		}},
		{"VerifyGarbageRedeliveryInject", standTopics, func(t *testing.T) { verifyAfterBatchAndSnapshot(t, addr) }},
		{"VerifyMissingDay", standTopics, func(t *testing.T) { verifyMissingDay(t, addr) }},
		{"InjectEveryClass", standTopics, func(t *testing.T) { injectEveryClass(t, addr) }},
		{"VerifySegment", standTopics, func(t *testing.T) { verifySegment(t, addr) }},
		{"SegmentsUnion", standTopics, func(t *testing.T) { segmentsUnion(t, addr) }},
		{"RunSmoke", standTopics, func(t *testing.T) {
			runIntoBrokers(t, addr)
			mustRun(t, "verify", "--brokers", addr, "--day", "1", "--days", "2", "--scale", "0.02")
		}},
		{"StressIntoBrokers", standTopics, func(t *testing.T) { stressIntoBrokers(t, addr) }},
		{"Verdict", standTopics, func(t *testing.T) { verdictOnBroker(t, addr) }},
		{"MissingTopic", standTopics, func(t *testing.T) { missingTopic(t, addr) }},
		// The broker creates topics a client asks for (auto.create.topics.enable, Kafka's
		// default and the stand's): reading must not create orders.
		{"VerifyMissingTopicThatGetsNothing", map[string]int32{"hits": 2}, func(t *testing.T) {
			verifyMissingTopicThatGetsNothing(t, addr)
			if err := admin(t, addr, func(adm *kadm.Client) error {
				l, err := adm.ListTopics(context.Background())
				if err == nil && l.Has("orders") {
					err = errors.New("verify created topic orders")
				}
				return err
			}); err != nil {
				t.Error(err)
			}
		}},
		{"PartitionCountMismatch", map[string]int32{"hits": 3, "orders": 1}, func(t *testing.T) { partitionCountMismatch(t, addr) }},

		// Every profile of run, then verify of what the topics hold.
		{"RunFill", standTopics, func(t *testing.T) {
			mustRun(t, "run", "fill", "--brokers", addr, "--scale", "0.05")
			mustRun(t, "verify", "--brokers", addr, "--day", "0", "--days", "8", "--scale", "0.05")
		}},
		{"RunGarbage", standTopics, func(t *testing.T) {
			mustRun(t, "run", "garbage", "--brokers", addr, "--scale", "0.3")
			out, _ := mustRun(t, "verify", "--brokers", addr, "--day", "1", "--scale", "0.3", "--garbage", "0.05", "--redeliver", "0.01", "--garbage-mix",
				"not_an_object=1,keyset_mismatch=1,key_field_unparsed=1,accepted_bad=1,vanishing=1,field_invalid=1")
			if !strings.Contains(out, "OK: every message") {
				t.Errorf("verify of run garbage:\n%s", out)
			}
		}},
		{"RunLive", standTopics, func(t *testing.T) {
			// Day 8 at scale 0.02 and 20 000 model seconds a second: about 4 s of pacing.
			start := time.Now()
			mustRun(t, "run", "live", "--brokers", addr, "--scale", "0.02", "--speed", "20000")
			if took := time.Since(start); took < 3*time.Second {
				t.Errorf("run live at speed 20000 took %v, want the ~4.3 s its pacing asks", took)
			}
			mustRun(t, "verify", "--brokers", addr, "--day", "8", "--scale", "0.02")
		}},
		{"LiveVerb", standTopics, func(t *testing.T) {
			mustRun(t, "live", "--day", "8", "--scale", "0.02", "--speed", "20000", "--brokers", addr, "--topic", "hits")
			mustRun(t, "snapshot", "--day", "8", "--scale", "0.02", "--brokers", addr, "--topic", "orders")
			mustRun(t, "verify", "--brokers", addr, "--day", "8", "--scale", "0.02")
		}},
		{"RunStressRamp", standTopics, func(t *testing.T) { stressRamp(t, c, filepath.Join(dir, "stress.json")) }},

		// What only a real broker can show.
		{"ReportEqualsTopic", standTopics, func(t *testing.T) { reportEqualsTopic(t, c, dir) }},
		{"SIGINT", standTopics, func(t *testing.T) { interruptedProcess(t, c, syscall.SIGINT, filepath.Join(dir, "int.json")) }},
		{"SIGTERM", standTopics, func(t *testing.T) { interruptedProcess(t, c, syscall.SIGTERM, filepath.Join(dir, "term.json")) }},
		{"CreateTopics", nil, func(t *testing.T) { createTopics(t, c) }},
		{"K8sFillJob", nil, func(t *testing.T) {
			// The fill Job's four pods at once on a broker without topics: each asks
			// --create-topics, one creates them, the others find them being created.
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			runPods(t, ctx, buildClickgen(t), addr, loadJob(t, "fill-job.yaml"), "--scale", "0.1")
			mustRun(t, "verify", "--brokers", addr, "--day", "0", "--days", "8", "--scale", "0.1")
		}},
		{"JavaPartitioner", standTopics, func(t *testing.T) { javaPartitioner(t, c, dir) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			resetTopics(t, addr, tc.topics)
			tc.test(t)
			t.Logf("%s: %v", tc.name, time.Since(start).Round(time.Millisecond))
		})
	}
}

// segmentsUnion: three segments of a run with garbage, each sent by its own process into the
// same topics, verify as the whole run; their reports' acknowledgements add up to what
// the topics hold.
func segmentsUnion(t *testing.T, addr string) {
	run := concatArgs([]string{"--day", "1", "--days", "2"}, smallWorld, allGarbage)
	for _, verb := range []struct{ name, topic string }{{"batch", "hits"}, {"snapshot", "orders"}} {
		for _, seg := range []string{"0/3", "1/3", "2/3"} {
			mustRun(t, concatArgs([]string{verb.name}, run, []string{"--brokers", addr, "--topic", verb.topic, "--segment", seg})...)
		}
	}
	out, _ := mustRun(t, concatArgs([]string{"verify", "--brokers", addr}, run)...)
	if !strings.Contains(out, "OK: every message") {
		t.Errorf("verify of the union of 3 segments:\n%s", out)
	}
}

// TestSegmentsUnion is segmentsUnion on kfake.
func TestSegmentsUnion(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	_, addr := kfakeCluster(t)
	segmentsUnion(t, addr)
}

// stressRamp: run stress with a ramp sends what the shape releases; the report's intervals
// follow the ramp, and the topic holds exactly what was acknowledged.
func stressRamp(t *testing.T, c *realkafka.Cluster, rep string) {
	mustRun(t, "run", "stress", "--brokers", c.Bootstrap(), "--rate", "ramp:2000/s-10000/s:2s", "--duration", "3s",
		"--interval", "500ms", "--report", rep)
	d := readStress(t, rep)
	h := d.Topics["hits"]
	// 2 s from 2000/s to 10000/s (12 000), then 1 s at 10000/s.
	if h.Acked != int64(d.Stress.Released) || h.Failed != 0 || h.Acked < 21000 || h.Acked > 22001 || d.Stress.Stopped != "duration" {
		t.Errorf("ramp: released %d, acked %d, failed %d, stopped %q; want the ramp's ~22000 released and acknowledged",
			d.Stress.Released, h.Acked, h.Failed, d.Stress.Stopped)
	}
	iv := d.Stress.Intervals
	if len(iv) < 4 || !(iv[0].TargetPerS < iv[1].TargetPerS && iv[1].TargetPerS < iv[2].TargetPerS) || iv[len(iv)-1].TargetPerS < 9900 {
		t.Errorf("interval targets do not follow the ramp: %+v", iv)
	}
	r := readSinkReport(t, rep)
	topicHoldsReport(t, c, "hits", r.Topics["hits"])
}

// reportEqualsTopic: batch and snapshot of two days with every garbage class and redeliveries
// report what the topics then hold, partition by partition, read by kcat and by Kafka's
// consumer.
func reportEqualsTopic(t *testing.T, c *realkafka.Cluster, dir string) {
	run := concatArgs([]string{"--day", "1", "--days", "2"}, smallWorld, allGarbage)
	for _, verb := range []struct{ name, topic string }{{"batch", "hits"}, {"snapshot", "orders"}} {
		rep := filepath.Join(dir, verb.name+".json")
		mustRun(t, concatArgs([]string{verb.name}, run, []string{"--brokers", c.Bootstrap(), "--topic", verb.topic, "--report", rep})...)
		r := readSinkReport(t, rep).Topics[verb.topic]
		if r.Acked == 0 || r.Acked != r.Sent || r.Failed != 0 || r.Unaccounted != 0 {
			t.Errorf("%s: sent %d acked %d failed %d unaccounted %d, want everything acknowledged", verb.name, r.Sent, r.Acked, r.Failed, r.Unaccounted)
		}
		topicHoldsReport(t, c, verb.topic, r)
	}
}

// interruptedProcess: a batch process signalled (SIGINT, as Ctrl-C, or SIGTERM, as docker
// stop and Kubernetes send it) in the middle of day 1, once the topic holds more than day 0,
// stops with exit 130, says so, and leaves a report marked interrupted whose
// acknowledgements are exactly what the topic holds: the records in flight at the signal
// are flushed and counted, none lost and none twice.
func interruptedProcess(t *testing.T, c *realkafka.Cluster, sig syscall.Signal, rep string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	day0 := int64(inventoryOf(t, "--day", "0").Days[0].Messages)
	cmd := exec.CommandContext(ctx, buildClickgen(t), "batch", "--day", "0", "--days", "8", "--brokers", c.Bootstrap(), "--topic", "hits", "--report", rep)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	signalled := make(chan int64, 1) // what the topic held when the signal was sent
	watch := func() {
		// Day 0 is acknowledged: signal as soon as day 1's first records are in the topic.
		for ctx.Err() == nil {
			if n, err := held(ctx, c.Bootstrap(), "hits"); err == nil && n > day0 {
				cmd.Process.Signal(sig)
				signalled <- n
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	var lines []string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "clickgen: day 0 (") {
			go watch()
		}
		lines = append(lines, sc.Text())
	}
	err = cmd.Wait()
	cancel()
	out := strings.Join(lines, "\n")
	var at int64
	select {
	case at = <-signalled:
	default:
		t.Fatalf("batch ended before the topic held more than day 0's %d messages: %v\n%s", day0, err, out)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("batch signalled %v: %v, want exit 130\n%s", sig, err, out)
	}
	if !strings.Contains(out, "interrupted: the summary above says exactly what was acknowledged") {
		t.Errorf("stderr does not say the run was interrupted:\n%s", out)
	}
	t.Logf("%v when the topic held %d messages (day 0: %d); exit 130; stderr ends:\n%s", sig, at, day0, strings.Join(lines[max(0, len(lines)-4):], "\n"))
	r := readSinkReport(t, rep)
	h := r.Topics["hits"]
	if !r.Interrupted || h.Acked < at || h.Acked >= 8*day0 {
		t.Errorf("report interrupted %v, acked %d; want interrupted, at least the %d held at the signal acknowledged and not all 8 days",
			r.Interrupted, h.Acked, at)
	}
	topicHoldsReport(t, c, "hits", h)
}

// held is how many messages topic at addr holds (the sum of its end offsets), asked with a
// fresh client; it is safe to call from any goroutine.
func held(ctx context.Context, addr, topic string) (int64, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(addr, ",")...))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		return 0, err
	}
	var n int64
	ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
	return n, ends.Error()
}

// describeTopic is Kafka's own TopicCommand --describe of topic: its partition count and
// replication factor.
func describeTopic(t *testing.T, c *realkafka.Cluster, topic string) (partitions, replication int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := c.Tool(ctx, "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", c.Bootstrap(), "--describe", "--topic", topic)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`PartitionCount: (\d+)\s+ReplicationFactor: (\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("TopicCommand --describe %s:\n%s", topic, out)
	}
	partitions, _ = strconv.Atoi(string(m[1]))
	replication, _ = strconv.Atoi(string(m[2]))
	return partitions, replication
}

// createTopics: on a broker without topics, batch and snapshot refuse to send until told
// --create-topics, which creates hits with 2 partitions and orders with 1 (replication factor
// the broker's default: 1 on the stand's node); a second run finds them and creates nothing.
func createTopics(t *testing.T, c *realkafka.Cluster) {
	addr := c.Bootstrap()
	for _, verb := range []struct{ name, topic string }{{"batch", "hits"}, {"snapshot", "orders"}} {
		args := []string{verb.name, "--day", "1", "--scale", "0.3", "--brokers", addr, "--topic", verb.topic}
		if _, errs, code := clickgen(t, args...); code != 1 || !strings.Contains(errs, "--create-topics") {
			t.Errorf("%s into a missing topic: exit %d, stderr %q; want exit 1 suggesting --create-topics", verb.name, code, errs)
		}
		_, errs := mustRun(t, append(args, "--create-topics")...)
		if strings.Contains(errs, "warning") {
			t.Errorf("%s --create-topics warned: %s", verb.name, errs)
		}
	}
	for topic, want := range standTopics {
		if p, rf := describeTopic(t, c, topic); p != int(want) || rf != 1 {
			t.Errorf("--create-topics made %s with %d partitions, replication factor %d; want %d and 1", topic, p, rf, want)
		}
	}
	// A second day into the topics that now exist: nothing to create, nothing to warn about.
	if _, errs := mustRun(t, "batch", "--day", "2", "--scale", "0.3", "--brokers", addr, "--topic", "hits", "--create-topics"); strings.Contains(errs, "warning") {
		t.Errorf("batch --create-topics into existing topics warned: %s", errs)
	}
	mustRun(t, "snapshot", "--day", "2", "--scale", "0.3", "--brokers", addr, "--topic", "orders")
	mustRun(t, "verify", "--brokers", addr, "--day", "1", "--days", "2", "--scale", "0.3")
}

// javaPartitioner: the partition Kafka's Java producer (ConsoleProducer, the default
// partitioner: murmur2 of the key) chooses for clickgen's own keys is the one clickgen chose,
// on the stand's 2 partitions and on 7.
func javaPartitioner(t *testing.T, c *realkafka.Cluster, dir string) {
	addr := c.Bootstrap()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	mustRun(t, "batch", "--day", "0", "--scale", "0.1", "--brokers", addr, "--topic", "hits")
	mustRun(t, "snapshot", "--day", "3", "--scale", "0.1", "--brokers", addr, "--topic", "orders")
	placed := map[string]int32{} // key → the partition of hits clickgen put it in
	var keys []string
	for _, r := range kcatRead(t, ctx, addr, "hits") {
		if _, ok := placed[r.key]; !ok {
			keys = append(keys, r.key)
		}
		placed[r.key] = r.partition
	}
	for _, r := range kcatRead(t, ctx, addr, "orders") {
		keys = append(keys, r.key)
	}
	keys = append(keys, "ключ", "0", "-1", strings.Repeat("k", 300))
	var in strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&in, "%s\tv\n", k)
	}
	input := filepath.Join(dir, "keys.tsv")
	if err := os.WriteFile(input, []byte(in.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, parts := range []int32{2, 7} {
		topic := "java-" + strconv.Itoa(int(parts))
		if err := admin(t, addr, func(adm *kadm.Client) error {
			_, err := adm.CreateTopic(ctx, parts, -1, nil, topic)
			if errors.Is(err, kerr.TopicAlreadyExists) {
				err = nil
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		// The tool reads its records from stdin; the script's run passes it through.
		cmd := exec.CommandContext(ctx, "sh", "-c", `exec "$0" run org.apache.kafka.tools.ConsoleProducer "$@" < "`+input+`"`, mustScript(t),
			"--bootstrap-server", addr, "--topic", topic, "--reader-property", "parse.key=true", "--reader-property", "key.separator=\t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ConsoleProducer: %v\n%s", err, out)
		}
		got := kcatRead(t, ctx, addr, topic)
		if len(got) != len(keys) {
			t.Fatalf("%s holds %d messages, the Java producer was given %d", topic, len(got), len(keys))
		}
		differ := 0
		for _, r := range got {
			want := schema.PartitionForKey([]byte(r.key), parts)
			if p, ok := placed[r.key]; ok && parts == 2 && p != r.partition {
				want = p
			}
			if r.partition != want && differ < 10 {
				differ++
				t.Errorf("key %q: the Java producer chose partition %d of %d, clickgen %d", r.key, r.partition, parts, want)
			}
		}
		t.Logf("%s: %d keys (%d of hits), each in the partition clickgen's murmur2 gives", topic, len(got), len(placed))
	}
}

// mustScript is the path of .ci/kafka/kafka.
func mustScript(t *testing.T) string {
	t.Helper()
	p, _, err := realkafka.Script()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRealKafkaReplicated: on three replicated nodes (default replication factor 3),
// --create-topics creates topics with the cluster's replication factor, or the one
// --replication-factor asks for; it used to ask for 1, leaving hits unreplicated on a cluster
// built to survive a broker's death.
func TestRealKafkaReplicated(t *testing.T) {
	t.Parallel() // its own servers: it waits on them beside the other real tiers
	start := time.Now()
	c := realkafka.Start(t, 3)
	t.Logf("three nodes up in %v", time.Since(start).Round(time.Millisecond))
	addr := c.Bootstrap()
	rep := filepath.Join(t.TempDir(), "r.json")
	mustRun(t, "batch", "--day", "1", "--scale", "0.1", "--brokers", addr, "--topic", "hits", "--create-topics", "--report", rep)
	mustRun(t, "snapshot", "--day", "1", "--scale", "0.1", "--brokers", addr, "--topic", "orders", "--create-topics", "--replication-factor", "2")
	for topic, want := range map[string][2]int{"hits": {2, 3}, "orders": {1, 2}} {
		if p, rf := describeTopic(t, c, topic); p != want[0] || rf != want[1] {
			t.Errorf("--create-topics made %s with %d partitions, replication factor %d; want %d and %d", topic, p, rf, want[0], want[1])
		}
	}
	kcatPath(t)
	topicHoldsReport(t, c, "hits", readSinkReport(t, rep).Topics["hits"])
	mustRun(t, "verify", "--brokers", addr, "--day", "1", "--scale", "0.1")

	// Issue 29 N6 and issue 31: --create-topics says what it created and waits until every
	// broker knows a leader of each partition before sending (a run straight after creation
	// failed a whole batch with UNKNOWN_TOPIC_OR_PARTITION once in eleven). Fresh topics, each
	// produced to at once, with the Kafka client's warnings logged: none may say the topic
	// was unknown, and every message is acknowledged.
	for i := range 6 {
		topic := fmt.Sprintf("fresh-%d", i)
		rep := filepath.Join(t.TempDir(), "r.json")
		_, errs := mustRun(t, "--log-format", "json", "batch", "--day", "0", "--scale", "0.05", "--limit", "2000",
			"--brokers", addr, "--topic", topic, "--create-topics", "--report", rep)
		if !strings.Contains(errs, "created topic "+topic+" (2 partitions, replication factor 3)") ||
			strings.Contains(errs, "UNKNOWN_TOPIC_OR_PARTITION") || strings.Contains(errs, "unknown topic") {
			t.Errorf("batch --create-topics --topic %s said:\n%s\nwant the topic announced and never unknown", topic, errs)
		}
		for _, line := range strings.Split(errs, "\n") {
			if strings.Contains(line, "created topic") || strings.Contains(line, "waiting until") {
				t.Logf("%s", line)
			}
		}
		if h := readSinkReport(t, rep).Topics[topic]; h.Acked != 2000 || h.Failed != 0 {
			t.Errorf("--topic %s: %d acked, %d failed; want 2000 and none", topic, h.Acked, h.Failed)
		}
	}
}
