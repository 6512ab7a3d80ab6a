package tests

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/internal/tier/realkafka"
	"github.com/clickgen/clickgen/schema"
)

// faultTestTimeout bounds the whole test; every wait inside is bounded by it.
const faultTestTimeout = 12 * time.Minute

type faultCluster struct {
	c      *realkafka.Cluster
	bin    string
	ctx    context.Context
	cl     *kgo.Client
	adm    *kadm.Client
	mu     sync.Mutex
	orders map[int]string // days -> an orders topic holding `snapshot --day 0 --days N`
	rows   []string
}

func TestRealKafkaFaults(t *testing.T) {
	t.Parallel() // its own three nodes: it waits on their faults beside the other real tiers
	c := realkafka.Start(t, 3)
	bin := buildClickgen(t)
	ctx, cancel := context.WithTimeout(context.Background(), faultTestTimeout)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	f := &faultCluster{c: c, bin: bin, ctx: ctx, cl: cl, adm: kadm.NewClient(cl), orders: map[int]string{}}

	t.Run("LeaderKilledMidBatch", f.leaderKilledMidBatch)
	t.Run("LeaderKilledMidStress", f.leaderKilledMidStress)
	t.Run("TwoOfThreeKilled", f.twoOfThreeKilled)
	t.Run("NotEnoughReplicas", f.notEnoughReplicas)
	t.Run("BrokerPaused", f.brokerPaused)
	t.Run("BrokerRestartedWithItsData", f.brokerRestarted)
	t.Run("LeaderElectionMidRun", f.leaderElection)
	t.Run("MaxMessageBytesBelowABatch", f.maxMessageBytes)
	t.Run("ProduceQuota", f.produceQuota)

	t.Logf("fault table (fault | exit | time to exit | sent | acked | failed | unaccounted | in topic by offsets | by Kafka's ConsumerPerformance):\n%s",
		strings.Join(f.rows, "\n"))
}

// row records one line of the fault table.
func (f *faultCluster) row(t *testing.T, p *clickgenProc, r topicCounts, offsets, java int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	line := fmt.Sprintf("%s | %d | %v | %d | %d | %d | %d | %d | %d", t.Name(), p.code(), p.sinceFault().Round(100*time.Millisecond),
		r.Sent, r.Acked, r.Failed, r.Unaccounted, offsets, java)
	t.Log(line)
	f.rows = append(f.rows, line)
}

// topic (re)creates topic with parts partitions, replication factor 3, min.insync.replicas=2
// unless configs say otherwise, and waits until every partition has a leader and three
// replicas in sync.
func (f *faultCluster) topic(t *testing.T, topic string, parts int32, configs map[string]string) {
	t.Helper()
	cfg := map[string]*string{"min.insync.replicas": new("2")}
	for k, v := range configs {
		cfg[k] = &v
	}
	f.adm.DeleteTopics(f.ctx, topic) // absent is fine
	for {
		_, err := f.adm.CreateTopic(f.ctx, parts, 3, cfg, topic)
		if err == nil {
			break
		}
		if f.ctx.Err() != nil {
			t.Fatalf("create %s: %v", topic, err)
		}
		time.Sleep(200 * time.Millisecond) // the deletion of the old one is still going on
	}
	f.waitInSync(t, topic, parts)
}

// waitInSync waits until every one of topic's parts partitions has a leader and all three
// replicas in sync (a restarted broker has caught up).
func (f *faultCluster) waitInSync(t *testing.T, topic string, parts int32) {
	t.Helper()
	for {
		md, err := f.adm.Metadata(f.ctx, topic)
		if err == nil {
			td := md.Topics[topic]
			ok := td.Err == nil && int32(len(td.Partitions)) == parts
			for _, p := range td.Partitions {
				ok = ok && p.Err == nil && p.Leader >= 0 && len(p.ISR) == 3
			}
			if ok && f.everyNodeKnows(topic, parts) {
				return
			}
		}
		if f.ctx.Err() != nil {
			t.Fatalf("%s: partitions never all in sync on every node: %v", topic, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// everyNodeKnows reports whether each of the three nodes, asked itself, has topic with parts
// partitions, each with a leader. A node learns of a new topic (or catches up after a restart)
// on its own schedule: a clickgen run that asked a node which had not yet done so was told
// the topic was missing.
func (f *faultCluster) everyNodeKnows(topic string, parts int32) bool {
	for id := int32(1); id <= 3; id++ {
		req := kmsg.NewPtrMetadataRequest()
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(topic)
		req.Topics = append(req.Topics, rt)
		resp, err := f.cl.Broker(int(id)).Request(f.ctx, req)
		if err != nil {
			return false
		}
		md := resp.(*kmsg.MetadataResponse)
		if len(md.Topics) != 1 || md.Topics[0].ErrorCode != 0 || int32(len(md.Topics[0].Partitions)) != parts {
			return false
		}
		for _, p := range md.Topics[0].Partitions {
			if p.ErrorCode != 0 || p.Leader < 0 {
				return false
			}
		}
	}
	return true
}

// leader returns the node index (0-based) of the leader of topic's partition p.
func (f *faultCluster) leader(t *testing.T, topic string, p int32) int {
	t.Helper()
	md, err := f.adm.Metadata(f.ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	return int(md.Topics[topic].Partitions[p].Leader) - 1
}

// ordersTopic returns a topic holding `snapshot --day 0 --days days`, for verify.
func (f *faultCluster) ordersTopic(t *testing.T, days int) string {
	t.Helper()
	f.mu.Lock()
	name, ok := f.orders[days]
	f.mu.Unlock()
	if ok {
		return name
	}
	name = "orders-" + strconv.Itoa(days)
	f.topic(t, name, 1, nil)
	p := f.start(t, "snapshot", "--day", "0", "--days", strconv.Itoa(days), "--brokers", f.c.Bootstrap(), "--topic", name)
	if code := p.wait(); code != 0 {
		t.Fatalf("snapshot into %s: exit %d\n%s", name, code, p.stderr)
	}
	f.mu.Lock()
	f.orders[days] = name
	f.mu.Unlock()
	return name
}

// offsets is what topic holds by its end offsets (kadm): a fresh topic written by an
// idempotent, non-transactional producer has exactly one offset per record.
func (f *faultCluster) offsets(t *testing.T, topic string) int64 {
	t.Helper()
	ends, err := f.adm.ListEndOffsets(f.ctx, topic)
	if err != nil || ends.Error() != nil {
		t.Fatalf("end offsets of %s: %v %v", topic, err, ends.Error())
	}
	var n int64
	ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
	return n
}

var perfConsumed = regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d [\d:]+, \d{4}-\d\d-\d\d [\d:]+, [\d.]+, [\d.]+, (\d+),`)

// javaCount is what Kafka's own consumer (ConsumerPerformance, in a group of its own) reads of
// topic: it stops at upTo records (the end offsets, which bound what a topic can hold) or
// after 20 s without one.
func (f *faultCluster) javaCount(t *testing.T, topic string, upTo int64) int64 {
	t.Helper()
	if upTo == 0 {
		upTo = 1 // ConsumerPerformance wants a positive count; it then waits the 20 s
	}
	out, err := f.c.Tool(f.ctx, "org.apache.kafka.tools.ConsumerPerformance", "--bootstrap-server", f.c.Bootstrap(),
		"--topic", topic, "--messages", strconv.FormatInt(upTo, 10), "--timeout", "20000", "--group", "faults-"+topic+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	m := perfConsumed.FindSubmatch(out)
	if m == nil {
		t.Fatalf("ConsumerPerformance on %s: %v\n%s", topic, err, out)
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n
}

// clickgenProc is a clickgen process whose stderr lines a test can wait for.
type clickgenProc struct {
	cmd    *exec.Cmd
	stderr *lineWatch
	stdout bytes.Buffer
	done   chan struct{}
	err    error
	exitAt time.Time
	fault  time.Time // when the test injected its fault
}

func (f *faultCluster) start(t *testing.T, args ...string) *clickgenProc {
	t.Helper()
	p := &clickgenProc{stderr: newLineWatch(), done: make(chan struct{})}
	p.cmd = exec.CommandContext(f.ctx, f.bin, args...)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		p.exitAt = time.Now()
		p.stderr.Close()
		close(p.done)
	}()
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.done })
	return p
}

// await waits for a stderr line with prefix; it fails the test when clickgen exits first.
func (p *clickgenProc) await(t *testing.T, prefix string) {
	t.Helper()
	if _, i := p.stderr.Await(0, func(l string) bool { return strings.HasPrefix(l, prefix) }); i < 0 {
		t.Fatalf("clickgen exited (%v) before printing %q:\n%s", p.err, prefix, p.stderr)
	}
}

// injected notes the time of the fault: time to exit is measured from it.
func (p *clickgenProc) injected() { p.fault = time.Now() }

func (p *clickgenProc) wait() int { <-p.done; return p.code() }

func (p *clickgenProc) code() int {
	<-p.done
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &ee):
		return ee.ExitCode()
	}
	return -1
}

func (p *clickgenProc) sinceFault() time.Duration {
	<-p.done
	if p.fault.IsZero() {
		return 0
	}
	return p.exitAt.Sub(p.fault)
}

// topicCounts are a report's counters of one topic.
type topicCounts struct{ Sent, Acked, Failed, Unaccounted int64 }

// runReport is the part of a batch or stress report the fault tests read.
type runReport struct {
	Topics    map[string]topicCounts `json:"topics"`
	LatencyMS map[string]float64     `json:"latency_ms"`
	Rate      struct {
		TargetPerS   float64 `json:"target_per_s"`
		AchievedPerS float64 `json:"achieved_per_s"`
	} `json:"rate"`
	Stress struct {
		Intervals []struct {
			AtS          float64 `json:"at_s"`
			MaxLatencyMS float64 `json:"max_latency_ms"`
		} `json:"intervals"`
	} `json:"stress"`
}

func readRunReport(t *testing.T, path string) runReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	var r runReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	return r
}

// verifyResult is the part of verify's report the fault tests read.
type verifyResult struct {
	OK          bool             `json:"ok"`
	Differences map[string]int64 `json:"differences"`
}

// verify runs `clickgen verify --day 0 --days days` over hits and the matching orders topic.
func (f *faultCluster) verify(t *testing.T, hits string, days int) (int, verifyResult, string) {
	t.Helper()
	return f.verifyTopics(t, hits, f.ordersTopic(t, days), days)
}

// verifyTopics runs `clickgen verify --day 0 --days days` over topics hits and orders.
func (f *faultCluster) verifyTopics(t *testing.T, hits, orders string, days int) (int, verifyResult, string) {
	t.Helper()
	rep := filepath.Join(t.TempDir(), "verify.json")
	p := f.start(t, "verify", "--brokers", f.c.Bootstrap(), "--day", "0", "--days", strconv.Itoa(days),
		"--hits-topic", hits, "--orders-topic", orders, "--report", rep)
	code := p.wait()
	var v verifyResult
	if b, err := os.ReadFile(rep); err == nil {
		json.Unmarshal(b, &v)
	}
	return code, v, p.stdout.String() + p.stderr.String()
}

// hitsOf is how many hits `batch --day 0 --days days` sends.
func hitsOf(t *testing.T, days int) int64 {
	inv := inventoryOf(t, "--day", "0", "--days", strconv.Itoa(days))
	var n int64
	for _, d := range inv.Days {
		n += int64(d.Events)
	}
	return n
}

// exactlyOnce reads topic with franz-go and checks that no value arrived twice and that every
// keyed record is in the partition murmur2 of its key picks; it returns the records read.
func (f *faultCluster) exactlyOnce(t *testing.T, topic string, parts int32) int64 {
	t.Helper()
	seen := map[[32]byte]bool{}
	var n, dup, misplaced int64
	err := broker.ConsumeFunc(f.ctx, f.c.Addrs(), topic, func(r broker.Record) error {
		n++
		h := sha256.Sum256(r.Value)
		if seen[h] {
			dup++
		}
		seen[h] = true
		if r.Key != nil && schema.PartitionForKey(r.Key, parts) != r.Partition {
			misplaced++
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read %s back: %v", topic, err)
	}
	if dup != 0 || misplaced != 0 {
		t.Errorf("%s: %d records, %d of them a second copy of a value, %d in another partition than murmur2 of the key; want 0 and 0", topic, n, dup, misplaced)
	}
	return n
}

// leaderKilledMidBatch: kill -9 the leader of hits partition 0 once day 0 of `batch --days 3`
// is acknowledged. The run must finish with exit 0 (the idempotent producer retries on the
// new leader), the report must equal the topic, and verify must find every message exactly
// once, keys and partitions as planned. Two days after the kill are enough to be sent
// through the failover (the controller fences the dead node after 9 s); the whole world
// (BrokerRestartedWithItsData plays it) would only triple what three nodes replicate.
func (f *faultCluster) leaderKilledMidBatch(t *testing.T) {
	const topic, days = "hits-leader-killed", 3
	f.topic(t, topic, 2, nil)
	f.ordersTopic(t, days)
	victim := f.leader(t, topic, 0)
	rep := filepath.Join(t.TempDir(), "r.json")
	p := f.start(t, "batch", "--day", "0", "--days", strconv.Itoa(days), "--brokers", f.c.Bootstrap(), "--topic", topic, "--report", rep)
	p.await(t, "clickgen: day 0 (")
	f.c.Kill(victim)
	p.injected()
	code := p.wait()
	f.c.Restart(victim)
	if code != 0 {
		t.Fatalf("batch with the leader of partition 0 killed: exit %d, want 0\n%s", code, p.stderr)
	}
	r := readRunReport(t, rep).Topics[topic]
	want := hitsOf(t, days)
	f.waitInSync(t, topic, 2)
	offsets := f.offsets(t, topic)
	java := f.javaCount(t, topic, offsets)
	f.row(t, p, r, offsets, java)
	if r.Sent != want || r.Acked != want || r.Failed != 0 || r.Unaccounted != 0 {
		t.Errorf("report sent %d acked %d failed %d unaccounted %d, want %d sent and acked", r.Sent, r.Acked, r.Failed, r.Unaccounted, want)
	}
	if offsets != r.Acked || java != r.Acked {
		t.Errorf("topic holds %d by its offsets and %d by Kafka's consumer, the report %d acked", offsets, java, r.Acked)
	}
	if code, v, out := f.verify(t, topic, days); code != 0 || !v.OK {
		t.Errorf("verify after the leader was killed: exit %d, differences %v\n%s", code, v.Differences, out)
	}
}

// leaderKilledMidStress: the same kill during `run stress`: exit 0, the topic holds exactly
// what was acknowledged, each value once in the partition of its key, and the latency,
// measured from the intended send time, shows the failover.
func (f *faultCluster) leaderKilledMidStress(t *testing.T) {
	f.topic(t, "hits", 2, nil)
	victim := f.leader(t, "hits", 0)
	rep := filepath.Join(t.TempDir(), "r.json")
	p := f.start(t, "run", "stress", "--brokers", f.c.Bootstrap(), "--rate", "8000/s", "--duration", "16s", "--interval", "2s", "--report", rep)
	p.await(t, "clickgen: stress ")
	f.c.Kill(victim)
	p.injected()
	code := p.wait()
	f.c.Restart(victim)
	if code != 0 {
		t.Fatalf("stress with the leader of partition 0 killed: exit %d, want 0\n%s", code, p.stderr)
	}
	rr := readRunReport(t, rep)
	r := rr.Topics["hits"]
	f.waitInSync(t, "hits", 2)
	offsets := f.offsets(t, "hits")
	java := f.javaCount(t, "hits", offsets)
	f.row(t, p, r, offsets, java)
	t.Logf("latency ms %v; achieved %.0f/s of %.0f/s", rr.LatencyMS, rr.Rate.AchievedPerS, rr.Rate.TargetPerS)
	if r.Acked == 0 || r.Acked != r.Sent || r.Failed != 0 || offsets != r.Acked || java != r.Acked {
		t.Errorf("report sent %d acked %d failed %d, topic %d by offsets and %d by Kafka's consumer: want all equal", r.Sent, r.Acked, r.Failed, offsets, java)
	}
	if n := f.exactlyOnce(t, "hits", 2); n != r.Acked {
		t.Errorf("franz-go read %d records, the report %d acked", n, r.Acked)
	}
	if rr.LatencyMS["max"] < 1000 {
		t.Errorf("max latency %.0f ms: a killed leader's partition waits for a new leader, want the stall (≥ 1 s) in it", rr.LatencyMS["max"])
	}
}

// twoOfThreeKilled: kill -9 two of the three nodes once day 0 is acknowledged. With three
// combined broker+controller voters that also loses the controller quorum: no leader moves
// and no ISR shrinks, so the surviving leader holds acks=all produce requests it cannot
// complete. The run must exit 1 within about --delivery-timeout, name day 1 as incomplete and
// claim no more than the topic holds; after the nodes come back, the DAG's retry of day 1
// leaves the topic holding part of day 1 twice, and verify says so.
func (f *faultCluster) twoOfThreeKilled(t *testing.T) {
	const topic, days, timeout = "hits-two-killed", 2, 10 * time.Second
	f.topic(t, topic, 2, nil)
	f.ordersTopic(t, days)
	rep := filepath.Join(t.TempDir(), "r.json")
	p := f.start(t, "batch", "--day", "0", "--days", strconv.Itoa(days), "--brokers", f.c.Bootstrap(), "--topic", topic, "--report", rep,
		"--delivery-timeout", timeout.String(), "--flush-timeout", timeout.String())
	p.await(t, "clickgen: day 0 (")
	f.c.Kill(1)
	f.c.Kill(2)
	p.injected()
	code := p.wait()
	f.c.Restart(1)
	f.c.Restart(2)
	errs := p.stderr.String()
	if code != 1 {
		t.Fatalf("batch with two of three nodes killed: exit %d, want 1\n%s", code, errs)
	}
	if n := strings.Count(errs, "day 1 (2026-06-02) is incomplete"); n != 1 {
		t.Errorf("stderr names day 1 as incomplete %d times, want once:\n%s", n, errs)
	}
	t.Logf("exit %v after the kill (delivery timeout %v)", p.sinceFault(), timeout)
	r := readRunReport(t, rep).Topics[topic]
	f.waitInSync(t, topic, 2)
	offsets := f.offsets(t, topic)
	java := f.javaCount(t, topic, offsets)
	f.row(t, p, r, offsets, java)
	day0 := hitsOf(t, 1)
	if r.Acked < day0 || r.Acked > offsets || offsets > r.Sent || java != offsets || r.Sent != r.Acked+r.Failed+r.Unaccounted {
		t.Errorf("report sent %d acked %d failed %d unaccounted %d, topic %d by offsets and %d by Kafka's consumer: want day 0's %d ≤ acked ≤ topic ≤ sent",
			r.Sent, r.Acked, r.Failed, r.Unaccounted, offsets, java, day0)
	}
	// The DAG's retry of the incomplete day.
	retry := f.start(t, "batch", "--day", "1", "--brokers", f.c.Bootstrap(), "--topic", topic)
	if code := retry.wait(); code != 0 {
		t.Fatalf("retry of day 1: exit %d\n%s", code, retry.stderr)
	}
	code, v, out := f.verify(t, topic, days)
	firstRun := offsets - day0 // day 1's messages the failed run left in the topic
	if code != 1 || v.OK || v.Differences["unexpected"] != firstRun || v.Differences["missing"] != 0 || v.Differences["wrong_partition"] != 0 {
		t.Errorf("verify after the retry: exit %d, differences %v; want exit 1, %d unexpected (day 1's second copy), nothing missing\n%s",
			code, v.Differences, firstRun, out)
	}
	t.Logf("verify after the retry: %v (day 1's messages from the failed run: %d)", v.Differences, firstRun)
}

// notEnoughReplicas: a topic with min.insync.replicas=3 and one of its replicas killed once
// day 0 is acknowledged. Once the controller fences the dead broker (broker.session.timeout.ms,
// 9 s) the ISR is 2 < 3 and the leader refuses produce requests with NOT_ENOUGH_REPLICAS (a
// probe of our own shows it); before that, acks=all requests wait for the dead replica and
// time out. (Two of three killed cannot show NOT_ENOUGH_REPLICAS on three combined voters:
// the quorum that would shrink the ISR is gone with them.) franz-go retries both errors and,
// the idempotent producer being unsure whether a timed-out request was written, never fails
// those records: clickgen's run exits 1 on its delivery timeout naming day 1, the waiting
// messages unaccounted, acked ≤ topic ≤ sent.
func (f *faultCluster) notEnoughReplicas(t *testing.T) {
	const topic, timeout = "hits-not-enough-replicas", 10 * time.Second
	f.topic(t, topic, 2, map[string]string{"min.insync.replicas": "3"})
	rep := filepath.Join(t.TempDir(), "r.json")
	p := f.start(t, "batch", "--day", "0", "--days", "2", "--brokers", f.c.Bootstrap(), "--topic", topic, "--report", rep,
		"--delivery-timeout", timeout.String(), "--flush-timeout", timeout.String())
	p.await(t, "clickgen: day 0 (")
	f.c.Kill(2)
	p.injected()
	code := p.wait()
	probe := f.probe(topic)
	f.c.Restart(2)
	errs := p.stderr.String()
	if code != 1 || strings.Count(errs, "day 1 (2026-06-02) is incomplete") != 1 {
		t.Errorf("batch with min.insync.replicas=3 and a replica dead: exit %d, want 1 naming day 1 once\n%s", code, errs)
	}
	if !errors.Is(probe, kerr.NotEnoughReplicas) {
		t.Errorf("a produce to the topic with a replica fenced: %v, want NOT_ENOUGH_REPLICAS", probe)
	}
	t.Logf("what the leader said to a produce of our own meanwhile: %v", probe)
	r := readRunReport(t, rep).Topics[topic]
	f.waitInSync(t, topic, 2)
	offsets := f.offsets(t, topic)
	java := f.javaCount(t, topic, offsets)
	f.row(t, p, r, offsets, java)
	if r.Acked < hitsOf(t, 1) || r.Acked > offsets || offsets > r.Sent || java != offsets || r.Sent != r.Acked+r.Failed+r.Unaccounted {
		t.Errorf("report sent %d acked %d failed %d unaccounted %d, topic %d by offsets and %d by Kafka's consumer: want day 0 ≤ acked ≤ topic ≤ sent",
			r.Sent, r.Acked, r.Failed, r.Unaccounted, offsets, java)
	}
}

// probe produces one record to topic's partition 0 with a client of its own (acks=all, not
// idempotent and tried once, so the leader's error comes back as it is) and returns it.
func (f *faultCluster) probe(topic string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(f.c.Addrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.DisableIdempotentWrite(), kgo.RecordRetries(1),
		kgo.RecordDeliveryTimeout(10*time.Second), kgo.ProduceRequestTimeout(3*time.Second))
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(f.ctx, 20*time.Second)
	defer cancel()
	return cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: 0, Value: []byte("probe")}).FirstErr()
}

// brokerPaused: SIGSTOP the leader of partition 0 during a stress run until the controller
// has fenced it and moved its leadership (about broker.session.timeout.ms, 9 s: a 30 s pause
// behaves the same, the frozen node is fenced either way, and costs 20 s more), then SIGCONT.
// Exit 0, the topic holds exactly what was acknowledged, once each, and the latency from
// the intended send time shows the stall.
func (f *faultCluster) brokerPaused(t *testing.T) {
	f.topic(t, "hits", 2, nil)
	victim := f.leader(t, "hits", 0)
	rep := filepath.Join(t.TempDir(), "r.json")
	p := f.start(t, "run", "stress", "--brokers", f.c.Bootstrap(), "--rate", "5000/s", "--duration", "24s", "--interval", "2s", "--report", rep)
	p.await(t, "clickgen: stress ")
	f.c.Pause(victim)
	p.injected()
	paused := time.Now()
	for f.leader(t, "hits", 0) == victim && f.ctx.Err() == nil {
		time.Sleep(200 * time.Millisecond)
	}
	f.c.Resume(victim)
	t.Logf("node %d paused for %v until its leadership moved", victim+1, time.Since(paused).Round(100*time.Millisecond))
	code := p.wait()
	if code != 0 {
		t.Fatalf("stress with a paused broker: exit %d, want 0\n%s", code, p.stderr)
	}
	rr := readRunReport(t, rep)
	r := rr.Topics["hits"]
	f.waitInSync(t, "hits", 2)
	offsets := f.offsets(t, "hits")
	java := f.javaCount(t, "hits", offsets)
	f.row(t, p, r, offsets, java)
	t.Logf("latency ms %v; achieved %.0f/s of %.0f/s", rr.LatencyMS, rr.Rate.AchievedPerS, rr.Rate.TargetPerS)
	if r.Acked == 0 || r.Acked != r.Sent || offsets != r.Acked || java != r.Acked {
		t.Errorf("report sent %d acked %d failed %d, topic %d by offsets and %d by Kafka's consumer: want all equal", r.Sent, r.Acked, r.Failed, offsets, java)
	}
	if n := f.exactlyOnce(t, "hits", 2); n != r.Acked {
		t.Errorf("franz-go read %d records, the report %d acked", n, r.Acked)
	}
	if rr.LatencyMS["max"] < 3000 {
		t.Errorf("max latency %.0f ms, want the pause (several seconds) in it", rr.LatencyMS["max"])
	}
}

// brokerRestarted: stop the leader of hits partition 0 (SIGTERM, a controlled shutdown) once
// day 0 of `run fill` is acknowledged and start it again on the same port with its data while
// the run goes on (--max-rate 12000/s keeps the run longer than the restart). Exit 0, verify
// clean over hits and orders, report = topic.
func (f *faultCluster) brokerRestarted(t *testing.T) {
	const days = 8
	f.topic(t, "hits", 2, nil)
	f.topic(t, "orders", 1, nil)
	victim := f.leader(t, "hits", 0)
	rep := filepath.Join(t.TempDir(), "r.json")
	p := f.start(t, "run", "fill", "--brokers", f.c.Bootstrap(), "--max-rate", "12000/s", "--report", rep)
	p.await(t, "clickgen: day 0 (")
	p.injected()
	f.c.Stop(victim)
	f.c.Restart(victim)
	back := time.Now()
	code := p.wait()
	if code != 0 {
		t.Fatalf("run fill with a broker restarted: exit %d, want 0\n%s", code, p.stderr)
	}
	if !p.exitAt.After(back) {
		t.Errorf("the run ended before the broker was back: the restart was not mid-run")
	}
	r := readRunReport(t, rep).Topics["hits"]
	f.waitInSync(t, "hits", 2)
	offsets := f.offsets(t, "hits")
	java := f.javaCount(t, "hits", offsets)
	f.row(t, p, r, offsets, java)
	if want := hitsOf(t, days); r.Acked != want || offsets != want || java != want {
		t.Errorf("report acked %d, topic %d by offsets and %d by Kafka's consumer, want %d", r.Acked, offsets, java, want)
	}
	if code, v, out := f.verifyTopics(t, "hits", "orders", days); code != 0 || !v.OK {
		t.Errorf("verify after the restart: exit %d, differences %v\n%s", code, v.Differences, out)
	}
}

// leaderElection: once day 0 is acknowledged, clickgen is frozen (SIGSTOP), the replica lists
// of both partitions are rotated (same replicas, another preferred leader), a preferred leader
// election moves both leaders, as kafka-leader-election --election-type preferred does after a
// reassignment, and clickgen continues (SIGCONT) with days 1–3 to send through leaders it
// does not know yet. Exit 0, verify clean, report = topic.
func (f *faultCluster) leaderElection(t *testing.T) {
	const topic, days = "hits-leader-election", 4
	f.topic(t, topic, 2, nil)
	f.ordersTopic(t, days)
	md, err := f.adm.Metadata(f.ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	before := map[int32]int32{}
	var req kadm.AlterPartitionAssignmentsReq
	for _, pd := range md.Topics[topic].Partitions {
		before[pd.Partition] = pd.Leader
		req.Assign(topic, pd.Partition, append(append([]int32{}, pd.Replicas[1:]...), pd.Replicas[0]))
	}
	rep := filepath.Join(t.TempDir(), "r.json")
	p := f.start(t, "batch", "--day", "0", "--days", strconv.Itoa(days), "--brokers", f.c.Bootstrap(), "--topic", topic, "--report", rep)
	p.await(t, "clickgen: day 0 (")
	// clickgen is frozen while the leaders move, so the election falls inside the run however
	// fast the machine plays the remaining days (a quick one finished all four days before a
	// loaded controller had moved a leader); when it continues, its producer still holds the
	// old leaders and batches of day 1 that it must send to the new ones.
	if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP clickgen: %v", err)
	}
	select {
	case <-p.done:
		t.Fatalf("the batch ended before the election could start:\n%s", p.stderr)
	default:
	}
	if res, err := f.adm.AlterPartitionAssignments(f.ctx, req); err != nil || res.Error() != nil {
		t.Fatalf("reassign: %v %v", err, res.Error())
	}
	// The election once the controller has the new replica order (a preferred leader is the
	// first replica), until both leaders moved.
	for moved := 0; moved < len(before); {
		res, err := f.adm.ElectLeaders(f.ctx, kadm.ElectPreferredReplica, kadm.TopicsSet{topic: {0: {}, 1: {}}})
		if err != nil {
			t.Fatalf("elect leaders: %v", err)
		}
		p.injected()
		for _, ps := range res {
			for _, r := range ps {
				if r.Err != nil && !errors.Is(r.Err, kerr.ElectionNotNeeded) {
					t.Fatalf("elect leaders %s/%d: %v %s", r.Topic, r.Partition, r.Err, r.ErrMessage)
				}
			}
		}
		moved = 0
		for part, was := range before {
			if int32(f.leader(t, topic, part)+1) != was {
				moved++
			}
		}
		if moved < len(before) {
			select {
			case <-f.ctx.Done():
				t.Fatalf("the election moved %d of %d leaders before the test's deadline", moved, len(before))
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	if err := p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatalf("SIGCONT clickgen: %v", err)
	}
	code := p.wait()
	if code != 0 {
		t.Fatalf("batch with leaders elected mid-run: exit %d, want 0\n%s", code, p.stderr)
	}
	r := readRunReport(t, rep).Topics[topic]
	offsets := f.offsets(t, topic)
	java := f.javaCount(t, topic, offsets)
	f.row(t, p, r, offsets, java)
	if want := hitsOf(t, days); r.Acked != want || offsets != want || java != want {
		t.Errorf("report acked %d, topic %d by offsets and %d by Kafka's consumer, want %d", r.Acked, offsets, java, want)
	}
	if code, v, out := f.verify(t, topic, days); code != 0 || !v.OK {
		t.Errorf("verify after the election: exit %d, differences %v\n%s", code, v.Differences, out)
	}
}

// maxMessageBytes: a topic whose max.message.bytes (2000) is below a garbage message's size
// (up to 2.9 KB). Kafka applies the limit to a whole record batch after compression, and
// clickgen's batches are up to 1 MB before it, so the brokers refuse nearly every batch with
// MESSAGE_TOO_LARGE, a non-retriable error: exit 1 at once naming day 0, every refused
// message failed, acked exactly what the topic holds.
func (f *faultCluster) maxMessageBytes(t *testing.T) {
	const topic = "hits-max-message-bytes"
	f.topic(t, topic, 2, map[string]string{"max.message.bytes": "2000"})
	rep := filepath.Join(t.TempDir(), "r.json")
	p := f.start(t, "batch", "--day", "0", "--garbage", "0.05", "--brokers", f.c.Bootstrap(), "--topic", topic, "--report", rep)
	p.injected()
	code := p.wait()
	errs := p.stderr.String()
	if code != 1 || !strings.Contains(errs, "day 0 (2026-06-01) is incomplete") || !strings.Contains(errs, "MESSAGE_TOO_LARGE") {
		t.Errorf("batch into a topic with max.message.bytes=2000: exit %d, want 1 naming day 0 and MESSAGE_TOO_LARGE\n%s", code, errs)
	}
	r := readRunReport(t, rep).Topics[topic]
	offsets := f.offsets(t, topic)
	java := f.javaCount(t, topic, offsets)
	f.row(t, p, r, offsets, java)
	if r.Failed == 0 || r.Acked != offsets || java != offsets || r.Unaccounted != 0 || r.Sent != r.Acked+r.Failed {
		t.Errorf("report sent %d acked %d failed %d unaccounted %d, topic %d by offsets and %d by Kafka's consumer: want refused = failed, acked = topic",
			r.Sent, r.Acked, r.Failed, r.Unaccounted, offsets, java)
	}
}

// produceQuota: a default client quota of producer_byte_rate=200 kB/s (the brokers throttle
// every client; each node enforces it for its own leaders, on the lz4-compressed bytes) under
// a stress run at 8000/s (~9 MB/s of values, ~1.3 MB/s compressed). The run still ends by itself with exit 0, the topic holds exactly what
// was acknowledged, and the rate and the latency from the intended send time show the
// throttling.
func (f *faultCluster) produceQuota(t *testing.T) {
	entity := kadm.ClientQuotaEntity{{Type: "client-id"}}
	set := func(op kadm.AlterClientQuotaOp) {
		res, err := f.adm.AlterClientQuotas(context.Background(), []kadm.AlterClientQuotaEntry{{Entity: entity, Ops: []kadm.AlterClientQuotaOp{op}}})
		if err == nil && len(res) > 0 && res[0].Err != nil {
			err = res[0].Err
		}
		if err != nil {
			t.Fatalf("client quota: %v", err)
		}
	}
	f.topic(t, "hits", 2, nil)
	set(kadm.AlterClientQuotaOp{Key: "producer_byte_rate", Value: 200_000})
	t.Cleanup(func() { set(kadm.AlterClientQuotaOp{Key: "producer_byte_rate", Remove: true}) })
	rep := filepath.Join(t.TempDir(), "r.json")
	p := f.start(t, "run", "stress", "--brokers", f.c.Bootstrap(), "--rate", "8000/s", "--duration", "12s", "--interval", "2s", "--report", rep)
	p.injected()
	code := p.wait()
	if code != 0 {
		t.Fatalf("stress under a produce quota: exit %d, want 0\n%s", code, p.stderr)
	}
	rr := readRunReport(t, rep)
	r := rr.Topics["hits"]
	offsets := f.offsets(t, "hits")
	java := f.javaCount(t, "hits", offsets)
	f.row(t, p, r, offsets, java)
	t.Logf("latency ms %v; achieved %.0f/s of %.0f/s\n%s", rr.LatencyMS, rr.Rate.AchievedPerS, rr.Rate.TargetPerS, p.stderr)
	if r.Acked != r.Sent || offsets != r.Acked || java != r.Acked {
		t.Errorf("report sent %d acked %d failed %d, topic %d by offsets and %d by Kafka's consumer: want all equal", r.Sent, r.Acked, r.Failed, offsets, java)
	}
	if rr.Rate.AchievedPerS > 0.7*rr.Rate.TargetPerS || rr.LatencyMS["p99"] < 1000 {
		t.Errorf("achieved %.0f/s of %.0f/s, p99 %.0f ms: want the throttling to show (under 70 %% of the target, p99 ≥ 1 s)",
			rr.Rate.AchievedPerS, rr.Rate.TargetPerS, rr.LatencyMS["p99"])
	}
}
