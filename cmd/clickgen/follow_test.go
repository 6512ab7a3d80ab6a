package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/clickgen/clickgen/internal/tier/realkafka"
)

// followReport is the report's follow section, as a reader sees it.
type followReport struct {
	Topics map[string]struct {
		Acked int64 `json:"acked"`
	} `json:"topics"`
	Follow map[string]struct {
		LatencyMS struct {
			P50, P90, P99, Max float64
			P999               float64 `json:"p99_9"`
		} `json:"latency_ms"`
		Distribution [][2]float64     `json:"latency_distribution_ms"`
		Taken        int64            `json:"taken"`
		DrainedS     *float64         `json:"drained_s"`
		Untaken      map[string]int64 `json:"untaken"`
		MeasuredFrom string           `json:"measured_from"`
		Reordered    int64            `json:"reordered_acks"`
		Lag          []struct {
			T          float64 `json:"t_s"`
			Partitions map[string]int64
		} `json:"lag"`
	} `json:"follow"`
	Stress struct {
		Intervals []struct {
			AtS    float64 `json:"at_s"`
			Follow map[string]struct {
				Taken int64   `json:"taken"`
				P50MS float64 `json:"p50_ms"`
				P99MS float64 `json:"p99_ms"`
				MaxMS float64 `json:"max_ms"`
				Lag   int64   `json:"lag_messages"`
			} `json:"follow"`
		} `json:"intervals"`
	} `json:"stress"`
}

func readFollowReport(t *testing.T, path string) followReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	var r followReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	return r
}

// groupConsumer consumes topic hits as group g from addr, as ClickHouse's Kafka engine does:
// records gather in a block, and the block is committed when it holds block records or its
// first record is flushAfter old. hold, if set, is called before each commit with the count
// consumed so far and the block's size; the consumer waits as long as it returns. It stops
// when ctx ends.
type groupConsumer struct {
	cl       *kgo.Client
	assigned chan struct{} // closed when the group has assigned the consumer its partitions
	consumed int
	done     chan struct{}
	err      error
}

func startGroupConsumer(t *testing.T, ctx context.Context, addr, group string, block int, flushAfter time.Duration,
	hold func(consumed, n int) time.Duration) *groupConsumer {
	t.Helper()
	c := &groupConsumer{assigned: make(chan struct{}), done: make(chan struct{})}
	var once sync.Once
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumerGroup(group), kgo.ConsumeTopics("hits"),
		kgo.DisableAutoCommit(), kgo.FetchMaxWait(50*time.Millisecond),
		kgo.OnPartitionsAssigned(func(context.Context, *kgo.Client, map[string][]int32) { once.Do(func() { close(c.assigned) }) }))
	if err != nil {
		t.Fatal(err)
	}
	c.cl = cl
	go func() {
		defer close(c.done)
		var recs []*kgo.Record
		var first time.Time
		for ctx.Err() == nil {
			pctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
			fs := cl.PollFetches(pctx)
			cancel()
			fs.EachRecord(func(r *kgo.Record) {
				if len(recs) == 0 {
					first = time.Now()
				}
				recs = append(recs, r)
				c.consumed++
			})
			if len(recs) == 0 || (len(recs) < block && time.Since(first) < flushAfter) {
				continue
			}
			if hold != nil {
				if d := hold(c.consumed, len(recs)); d > 0 {
					select {
					case <-ctx.Done():
						return
					case <-time.After(d): // the consumer's pause under test, not a wait of the test
					}
				}
			}
			if err := cl.CommitRecords(ctx, recs...); err != nil && ctx.Err() == nil {
				c.err = err
				return
			}
			recs = recs[:0]
		}
	}()
	t.Cleanup(func() { <-c.done; cl.Close() })
	return c
}

var followLine = regexp.MustCompile(`follow (\S+): (\d+) taken, drained ([\d.]+)s after the run; pipeline latency p50 (\S+) p90 (\S+) p99 (\S+) p99.9 (\S+) max (\S+) \(measured from: ([^)]+)\)`)

// TestFollowPausedConsumer: a consumer group that holds a block of records for 5 s mid-run
// (before committing it, as a Kafka engine that stalls holds its block) shows a pipeline p99
// of at least 5 s, although the rate drops to 4/s shortly after the pause begins, so few are
// sent during it: every held message is charged from its intended send time to the first poll
// that sees it committed. The group drains, the run exits 0, and the report says so.
func TestFollowPausedConsumer(t *testing.T) {
	_, addr := kfakeCluster(t)
	followPaused(t, addr)
}

// TestFollowPausedConsumerRealKafka is TestFollowPausedConsumer against a real single Kafka
// node (internal/tier/realkafka: the kafka tier, not under -short).
func TestFollowPausedConsumerRealKafka(t *testing.T) {
	c := realkafka.Start(t, 1)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 2, 1, nil, "hits"); err != nil {
		t.Fatalf("create topic hits: %v", err)
	}
	followPaused(t, c.Bootstrap())
}

// followPaused is the paused-consumer test against the broker at addr.
func followPaused(t *testing.T, addr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var once sync.Once
	paused := make(chan [2]int, 1)
	c := startGroupConsumer(t, ctx, addr, "g", 10, 200*time.Millisecond, func(consumed, n int) time.Duration {
		var d time.Duration
		if consumed >= 270 && n >= 10 {
			once.Do(func() { d = 5 * time.Second; paused <- [2]int{n, consumed} })
		}
		return d
	})
	defer cancel()
	select { // the group has joined: the consumer keeps up until it pauses
	case <-c.assigned:
	case <-ctx.Done():
		t.Fatal("the consumer was never assigned its partitions")
	}
	rep := filepath.Join(t.TempDir(), "r.json")
	var errb bytes.Buffer
	// The run lasts 12 s, the held block is committed about 8 s in: a consumer that lags the
	// producer by up to 4 s on a loaded machine still commits it within the run's intervals
	// (a 9 s run failed so under a load average of 18).
	err := run(ctx, []string{"run", "stress", "--brokers", addr, "--rate", "steps:100/s@3s,4/s@9s", "--duration", "12s",
		"--follow-group", "g", "--follow-every", "100ms", "--follow-timeout", "30s", "--report", rep}, &bytes.Buffer{}, &errb)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	var held, before int
	select {
	case p := <-paused:
		held, before = p[0], p[1]
	default:
		t.Fatalf("the consumer never paused (consumed %d, err %v): the test proves nothing\n%s", c.consumed, c.err, errb.String())
	}
	r := readFollowReport(t, rep)
	g, ok := r.Follow["g"]
	if !ok {
		t.Fatalf("report has no follow.g\n%s", errb.String())
	}
	acked := r.Topics["hits"].Acked
	t.Logf("acked %d, %d consumed before the pause (at most %d sent during or after it), held %d for 5 s; follow.g p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f ms, drained %v s, reordered %d",
		acked, before, acked-int64(before), held, g.LatencyMS.P50, g.LatencyMS.P90, g.LatencyMS.P99, g.LatencyMS.P999, g.LatencyMS.Max, *g.DrainedS, g.Reordered)
	if g.LatencyMS.P99 < 5000 {
		t.Errorf("follow.g p99 = %.1f ms, want ≥ 5000 (a block of %d of %d messages was held 5 s)", g.LatencyMS.P99, held, acked)
	}
	if g.Taken != acked || g.DrainedS == nil {
		t.Errorf("follow.g taken %d of %d acked, drained_s %v: want all taken and drained", g.Taken, acked, g.DrainedS)
	}
	if g.MeasuredFrom != "intended send time" {
		t.Errorf("measured_from = %q, want intended send time for a paced run", g.MeasuredFrom)
	}
	var peak int64
	for _, s := range g.Lag {
		peak = max(peak, s.Partitions["hits/0"]+s.Partitions["hits/1"])
	}
	if peak < int64(held) {
		t.Errorf("lag samples peak at %d, want at least the %d held messages: %+v", peak, held, g.Lag)
	}
	checkPausedIntervals(t, r, held)
	if d := g.Distribution; len(d) != 12 || d[0][0] != 0 || d[11][0] != 100 || math.Abs(d[11][1]-g.LatencyMS.Max) > 0.0015 || d[9][0] != 99.99 || d[9][1] < 5000 {
		t.Errorf("follow.g latency_distribution_ms = %v: want 12 points from p0 to p100 = max %.3f (to the µs), p99.99 ≥ 5000", d, g.LatencyMS.Max)
	}
	m := followLine.FindStringSubmatch(errb.String())
	if m == nil || m[1] != "g" || m[2] != strconv.FormatInt(acked, 10) {
		t.Errorf("no final follow line for g with %d taken:\n%s", acked, errb.String())
	} else if d, err := time.ParseDuration(m[6]); err != nil || d < 5*time.Second {
		t.Errorf("final line p99 %s, want ≥ 5s: %s", m[6], m[0])
	}
}

// checkPausedIntervals checks the paused run's report intervals: a 12-second run gets 1-second
// intervals (console.ReportEvery), not the console's 5 s; each carries follow.g; the interval in
// which the held block was committed has a max pipeline latency of at least 5 s, one during
// the pause ends with at least the held messages as lag, and the intervals' taken add up to at
// most what the group took (what it took after the last interval is in no interval).
func checkPausedIntervals(t *testing.T, r followReport, held int) {
	t.Helper()
	ivs := r.Stress.Intervals
	if len(ivs) < 8 {
		t.Errorf("%d report intervals in a 12 s run, want at least 8 (1 s each)", len(ivs))
	}
	var maxMS float64
	var lag, taken int64
	for i, iv := range ivs {
		f, ok := iv.Follow["g"]
		if !ok {
			t.Errorf("interval %d (at %.1fs) has no follow.g", i, iv.AtS)
			continue
		}
		if f.Taken > 0 && (f.P50MS <= 0 || f.P99MS < f.P50MS || f.MaxMS < f.P99MS*63/64) {
			t.Errorf("interval %d follow.g %+v: want 0 < p50 ≤ p99 ≤ max", i, f)
		}
		maxMS, lag, taken = max(maxMS, f.MaxMS), max(lag, f.Lag), taken+f.Taken
	}
	if maxMS < 5000 {
		t.Errorf("the intervals' largest follow.g max_ms is %.1f, want ≥ 5000 (a block was held 5 s)", maxMS)
	}
	if lag < int64(held) {
		t.Errorf("the intervals' largest follow.g lag is %d, want ≥ the %d held", lag, held)
	}
	if g := r.Follow["g"]; taken > g.Taken || taken == 0 {
		t.Errorf("the intervals' follow.g taken add up to %d, want 0 < it ≤ %d (the group's total)", taken, g.Taken)
	}
}

// TestFollowNormalConsumer: a group that commits what it polls drains within the timeout, the
// run exits 0, and the latency of an unpaced batch is measured from the time each message was
// handed to the producer, every acknowledged message counted.
func TestFollowNormalConsumer(t *testing.T) {
	_, addr := kfakeCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := startGroupConsumer(t, ctx, addr, "normal", 1, 0, nil)
	defer cancel()
	rep := filepath.Join(t.TempDir(), "r.json")
	out, errs, code := clickgen(t, "batch", "--day", "0", "--limit", "3000", "--brokers", addr, "--topic", "hits",
		"--follow-group", "normal", "--follow-timeout", "30s", "--report", rep)
	if code != 0 {
		t.Fatalf("batch: exit %d (consumer consumed %d, err %v)\n%s%s", code, c.consumed, c.err, out, errs)
	}
	r := readFollowReport(t, rep)
	g := r.Follow["normal"]
	if g.Taken != 3000 || r.Topics["hits"].Acked != 3000 || g.DrainedS == nil || len(g.Untaken) != 0 {
		t.Errorf("follow.normal taken %d (acked %d), drained_s %v, untaken %v: want 3000 taken and drained",
			g.Taken, r.Topics["hits"].Acked, g.DrainedS, g.Untaken)
	}
	if g.MeasuredFrom != "handed to producer" {
		t.Errorf("measured_from = %q, want handed to producer for an unpaced batch", g.MeasuredFrom)
	}
	if g.LatencyMS.P50 <= 0 || g.LatencyMS.Max < g.LatencyMS.P99 || g.LatencyMS.P99 >= 5000 {
		t.Errorf("follow.normal latency %+v: want 0 < p50, p99 ≤ max, p99 < 5 s for a consumer that does not stop", g.LatencyMS)
	}
	if m := followLine.FindStringSubmatch(errs); m == nil || m[1] != "normal" || m[2] != "3000" || m[9] != "handed to producer" {
		t.Errorf("no final follow line for normal with 3000 taken:\n%s", errs)
	}
}

// TestFollowGroupNeverCommits: a group that commits nothing fails the run with exit 1 after
// --follow-timeout, naming the group and its lag per partition (which adds up to what was
// acknowledged); the report has drained_s null and the same lag. A second group that drains
// is reported drained beside it.
func TestFollowGroupNeverCommits(t *testing.T) {
	_, addr := kfakeCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	startGroupConsumer(t, ctx, addr, "takes", 1, 0, nil)
	defer cancel()
	rep := filepath.Join(t.TempDir(), "r.json")
	_, errs, code := clickgen(t, "batch", "--day", "0", "--limit", "500", "--brokers", addr, "--topic", "hits",
		"--follow-group", "ghost", "--follow-group", "takes", "--follow-timeout", "1s", "--report", rep)
	if code != 1 {
		t.Fatalf("batch with a group that never commits: exit %d, want 1\n%s", code, errs)
	}
	r := readFollowReport(t, rep)
	g := r.Follow["ghost"]
	if g.DrainedS != nil || g.Taken != 0 || g.Untaken["hits/0"]+g.Untaken["hits/1"] != 500 {
		t.Errorf("follow.ghost drained_s %v, taken %d, untaken %v: want not drained, 0 taken, 500 untaken", g.DrainedS, g.Taken, g.Untaken)
	}
	want := "group ghost (lag hits/0 " + strconv.FormatInt(g.Untaken["hits/0"], 10) + ", hits/1 " + strconv.FormatInt(g.Untaken["hits/1"], 10) + ")"
	if !strings.Contains(errs, want) || !strings.Contains(errs, "--follow-timeout 1s") || strings.Contains(errs, "group takes") {
		t.Errorf("stderr does not name %q and the timeout alone:\n%s", want, errs)
	}
	if tk := r.Follow["takes"]; tk.DrainedS == nil || tk.Taken != 500 {
		t.Errorf("follow.takes drained_s %v taken %d: want drained, 500 taken", tk.DrainedS, tk.Taken)
	}
}

// TestFollowFlagsChecked: follow flags that cannot work are usage errors before anything is
// sent.
func TestFollowFlagsChecked(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"batch", "--day", "0", "--file", "-", "--follow-group", "g"}, "--follow-group needs Kafka"},
		{[]string{"batch", "--day", "0", "--brokers", "127.0.0.1:1", "--topic", "hits", "--follow-group", "g", "--follow-every", "0s"}, "--follow-every 0s"},
		{[]string{"run", "stress", "--follow-group", "g", "--follow-timeout", "-1s"}, "--follow-timeout -1s"},
		{[]string{"snapshot", "--day", "1", "--brokers", "127.0.0.1:1", "--topic", "orders", "--follow-group", ""}, "empty group"},
	} {
		_, errs, code := clickgen(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestFollowMetricsScraped scrapes /metrics during a stress run followed with --follow-group
// while a consumer group commits what it takes: clickgen_pipeline_latency_seconds{group,topic}
// is a complete cumulative histogram whose count grows between two scrapes and never exceeds
// what was acknowledged, and clickgen_consumer_lag_messages{group,topic} is served and at most
// what was acknowledged.
func TestFollowMetricsScraped(t *testing.T) {
	_, addr := kfakeCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := startGroupConsumer(t, ctx, addr, "fresh", 20, 50*time.Millisecond, nil)
	select {
	case <-c.assigned:
	case <-ctx.Done():
		t.Fatal("the consumer was never assigned its partitions")
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	stderr := newLineWatch()
	done := make(chan int, 1)
	go func() {
		err := run(runCtx, []string{"run", "stress", "--brokers", addr, "--rate", "2000/s", "--duration", "1h", "--interval", "100ms",
			"--metrics-addr", "127.0.0.1:0", "--follow-group", "fresh", "--follow-every", "50ms"}, io.Discard, stderr)
		stderr.Close()
		done <- exitCode(err, io.Discard)
	}()
	line, _ := stderr.Await(0, metricsURL.MatchString)
	if line == "" {
		t.Fatalf("the run never said where its metrics are:\n%s", stderr)
	}
	url := metricsURL.FindStringSubmatch(line)[1]
	// taken scrapes at each interval line from line from on until the group has taken more
	// than n, and returns the scrape, the histogram and the line after it.
	taken := func(from int, n uint64) (map[string]*dto.MetricFamily, *dto.Histogram, int) {
		for lines := 0; ; lines++ {
			if lines == 100 { // 10 s of interval lines
				t.Fatalf("no clickgen_pipeline_latency_seconds{group fresh, topic hits} above %d in 100 interval lines (consumed %d, err %v)", n, c.consumed, c.err)
			}
			_, i := stderr.Await(from, func(l string) bool { return intervalTotal.MatchString(l) })
			if i < 0 {
				t.Fatalf("the run ended before the group took more than %d:\n%s", n, stderr)
			}
			from = i + 1
			fams := scrape(t, url)
			for _, m := range fams["clickgen_pipeline_latency_seconds"].GetMetric() {
				if labelsAre(m, "group", "fresh", "topic", "hits") && m.GetHistogram().GetSampleCount() > n {
					return fams, m.GetHistogram(), from
				}
			}
		}
	}
	_, h1, next := taken(0, 0)
	second, h2, _ := taken(next, h1.GetSampleCount())
	acked := sample(second, "clickgen_messages_acked_total", "topic", "hits")
	stop()
	if code := <-done; code != 130 {
		t.Fatalf("interrupted run: exit %d, want 130:\n%s", code, stderr)
	}
	prev := uint64(0)
	for _, b := range h2.Bucket {
		if b.GetCumulativeCount() < prev {
			t.Errorf("bucket le=%v holds %d < %d below it", b.GetUpperBound(), b.GetCumulativeCount(), prev)
		}
		prev = b.GetCumulativeCount()
	}
	if prev != h2.GetSampleCount() || float64(h2.GetSampleCount()) > acked || h2.GetSampleSum() <= 0 {
		t.Errorf("pipeline latency: last bucket %d, count %d, sum %v; want last bucket = count ≤ %v acknowledged, sum > 0",
			prev, h2.GetSampleCount(), h2.GetSampleSum(), acked)
	}
	lag := second["clickgen_consumer_lag_messages"]
	if lag == nil || len(lag.Metric) != 1 || !labelsAre(lag.Metric[0], "group", "fresh", "topic", "hits") ||
		lag.Metric[0].GetGauge().GetValue() < 0 || lag.Metric[0].GetGauge().GetValue() > acked {
		t.Errorf("consumer lag %v: want one series {group fresh, topic hits} between 0 and %v", lag, acked)
	}
	t.Logf("scrapes: %d then %d taken (sum %.3fs), lag %v of %v acknowledged", h1.GetSampleCount(), h2.GetSampleCount(),
		h2.GetSampleSum(), lag.GetMetric()[0].GetGauge().GetValue(), acked)
}

// labelsAre says whether m's labels are exactly the name, value pairs of kv, in order.
func labelsAre(m *dto.Metric, kv ...string) bool {
	if len(m.Label)*2 != len(kv) {
		return false
	}
	for i, l := range m.Label {
		if l.GetName() != kv[2*i] || l.GetValue() != kv[2*i+1] {
			return false
		}
	}
	return true
}

// TestFollowFlagsRefusedWhereIgnored is issue 29 N5: verify and inject accepted
// --follow-group and the other follow flags and ignored them (exit 1 on the connection, not 2
// on usage). Every flag is checked against the verb it is given to.
func TestFollowFlagsRefusedWhereIgnored(t *testing.T) {
	for _, args := range [][]string{
		{"verify", "--day", "0", "--brokers", "127.0.0.1:1", "--follow-group", "g"},
		{"verify", "--day", "0", "--brokers", "127.0.0.1:1", "--follow-timeout", "1s"},
		{"inject", "--kind", "hits", "--class", "not_an_object", "--brokers", "127.0.0.1:1", "--topic", "hits", "--follow-group", "g"},
		{"inject", "--kind", "hits", "--class", "not_an_object", "--brokers", "127.0.0.1:1", "--topic", "hits", "--follow-every", "1s"},
		{"verify", "--day", "0", "--brokers", "127.0.0.1:1", "--linger", "1s"},
	} {
		_, errs, code := clickgen(t, args...)
		if flag := args[len(args)-2]; code != 2 || !strings.Contains(errs, flag+" does not apply to "+args[0]) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 saying %s does not apply", args, code, errs, flag)
		}
	}
}

// TestFollowEveryFloor is issue 29 N9: --follow-every 1ns polled the groups 4,922 times in
// 3 s; a period below the floor is a usage error before anything is sent.
func TestFollowEveryFloor(t *testing.T) {
	for _, every := range []string{"1ns", "9ms", "0s"} {
		_, errs, code := clickgen(t, "batch", "--day", "0", "--brokers", "127.0.0.1:1", "--topic", "hits", "--follow-group", "g", "--follow-every", every)
		if code != 2 || !strings.Contains(errs, "--follow-every "+every+": want at least 10ms") {
			t.Errorf("--follow-every %s: exit %d, stderr %q; want exit 2 naming the floor", every, code, errs)
		}
	}
}

// TestGroupNamesChecked is issue 29 N12: group names were printed raw (a newline in a name
// broke the lines) and 40,000-character names were accepted.
func TestGroupNamesChecked(t *testing.T) {
	for _, g := range []string{"a\nb", "tab\tbed", strings.Repeat("g", 40000), "\xff"} {
		_, errs, code := clickgen(t, "batch", "--day", "0", "--brokers", "127.0.0.1:1", "--topic", "hits", "--follow-group", g)
		if code != 2 || !strings.Contains(errs, "--follow-group: ") || strings.Count(errs, "\n") != 2 || len(errs) > 300 {
			t.Errorf("--follow-group %.40q: exit %d, stderr %.300q; want exit 2 in two short lines", g, code, errs)
		}
	}
}
