package intake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/internal/tier/chdb"
	"github.com/clickgen/clickgen/internal/tier/realkafka"
)

// The chDB tier as the followed consumer (issue 23): the clickgen binary runs a stress run
// into the embedded broker with --follow-group clickstream_hits while the stand's hits
// pipeline on the real engine (the Kafka table in group clickstream_hits, librdkafka, and its
// materialized views) consumes it. Pipeline latency is what the engine's commits say.

// followedReport is what the test reads of the run's report.
type followedReport struct {
	Topics map[string]struct {
		Acked  int64 `json:"acked"`
		Failed int64 `json:"failed"`
	} `json:"topics"`
	Follow map[string]struct {
		LatencyMS struct {
			P50, P90, P99, Max float64
		} `json:"latency_ms"`
		Taken        int64            `json:"taken"`
		DrainedS     *float64         `json:"drained_s"`
		Untaken      map[string]int64 `json:"untaken"`
		MeasuredFrom string           `json:"measured_from"`
	} `json:"follow"`
}

// clickgenBinary is the clickgen command, built once per run of the test binary.
var clickgenBinary = intake.ClickgenBinary

// followedStress runs the stand's hits pipeline with kafka_flush_interval_ms flush on the
// brokers at addrs (whose group clickstream_hits, if it exists, has taken all of hits), and a
// clean stress run of rate for duration into them followed in group clickstream_hits; it
// checks that the group drained and the engine's fresh tables hold every message of the run
// once, and returns the report.
func followedStress(t *testing.T, s *chdb.Session, bin string, addrs []string, prefix string, flush time.Duration, rate string, duration time.Duration) followedReport {
	t.Helper()
	p := intake.HitsPipeline{Brokers: strings.Join(addrs, ","), STG: prefix + "_stg", ODS: prefix + "_ods", Flush: flush}
	// The engine lives as long as the test binary: start from empty tables under -count=N.
	if err := s.Exec("DROP DATABASE IF EXISTS "+p.STG+" SYNC", "DROP DATABASE IF EXISTS "+p.ODS+" SYNC"); err != nil {
		t.Fatal(err)
	}
	ddl, err := p.DDL()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(ddl...); err != nil {
		t.Fatal(err)
	}
	defer func() {
		// Detach the consumer before the broker goes away.
		if err := s.Exec("DROP TABLE IF EXISTS "+p.STG+".hits_raw_mv SYNC", "DROP TABLE IF EXISTS "+p.STG+".hits_raw_kafka SYNC"); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	}()

	rep := filepath.Join(t.TempDir(), "r.json")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The engine's consumer joins its group first: what is measured is the pipeline's
	// latency, not how long librdkafka takes to join (3 s of initial rebalance delay on a
	// real broker).
	joined := time.Now()
	if err := awaitMember(ctx, addrs, "clickstream_hits"); err != nil {
		t.Fatal(err)
	}
	t.Logf("the engine's consumer joined group clickstream_hits in %v", time.Since(joined).Round(time.Millisecond))
	cmd := exec.CommandContext(ctx, bin, "run", "stress", "--brokers", strings.Join(addrs, ","), "--rate", rate,
		"--duration", duration.String(), "--garbage", "0", "--redeliver", "0",
		"--follow-group", "clickstream_hits", "--follow-timeout", "60s", "--report", rep)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("clickgen: %v\n%s", err, out)
	}
	var final []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "stress total:") || strings.Contains(l, "follow clickstream_hits") {
			final = append(final, l)
		}
	}
	t.Logf("flush %v:\n%s", flush, strings.Join(final, "\n"))
	data, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	var r followedReport
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	acked := r.Topics["hits"].Acked
	g, ok := r.Follow["clickstream_hits"]
	switch {
	case !ok:
		t.Fatalf("no follow.clickstream_hits in the report:\n%s", data)
	case acked == 0 || r.Topics["hits"].Failed != 0:
		t.Fatalf("hits acked %d, failed %d: want a clean run", acked, r.Topics["hits"].Failed)
	case g.Taken != acked || g.DrainedS == nil || len(g.Untaken) != 0:
		t.Errorf("follow.clickstream_hits taken %d of %d, drained_s %v, untaken %v: want every message drained", g.Taken, acked, g.DrainedS, g.Untaken)
	case g.MeasuredFrom != "intended send time":
		t.Errorf("measured_from %q, want intended send time", g.MeasuredFrom)
	}
	// The group's commit follows the views' inserts: once it drained, the rows are there.
	for _, q := range []string{"SELECT count() FROM " + p.RawTable(), "SELECT count() FROM " + p.EventTable() + " FINAL",
		"SELECT count() FROM " + p.EventTable()} {
		got, err := s.Query(q, "TSV")
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := strconv.ParseInt(strings.TrimSpace(string(got)), 10, 64); n != acked {
			t.Errorf("%s = %d, want the %d messages acknowledged (clean, no re-sends: one event each)", q, n, acked)
		}
	}
	if got, err := s.Query("SELECT count() FROM "+p.ErrorTable(), "TSV"); err != nil || strings.TrimSpace(string(got)) != "0" {
		t.Errorf("error rows %s (%v), want 0 for a clean run", got, err)
	}
	return r
}

// awaitMember waits until group is stable with a member that has partitions assigned.
func awaitMember(ctx context.Context, addrs []string, group string) error {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for {
		gs, err := adm.DescribeGroups(ctx, group)
		if err == nil {
			if g, ok := gs[group]; ok && g.Err == nil && g.State == "Stable" && len(g.Members) > 0 {
				for _, m := range g.Members {
					if a, ok := m.Assigned.AsConsumer(); ok && len(a.Topics) > 0 {
						return nil
					}
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("group %s never had a member with partitions: %w (last: %v)", group, ctx.Err(), err)
		case <-time.After(100 * time.Millisecond): // polling the broker's view of the group
		}
	}
}

// TestEngineFollowedByKafkaTable: a clean stress run at 2000/s for 8 s followed in the stand's
// group clickstream_hits while chDB's Kafka table consumes it: every message drains, the raw
// and event tables hold exactly the acknowledged messages (no errors), and the
// measured latency of each run is at least what the engine's kafka_flush_interval_ms (500 ms,
// then 3000 ms) makes a message wait: a block waits the flush interval for more rows, so its
// oldest message (the max) waits that long and the median about half (flushBoundsLatency).
func TestEngineFollowedByKafkaTable(t *testing.T) {
	t.Parallel() // databases of its own names (see engineParallel)
	if testing.Short() {
		t.Skip("two 8-second stress runs through the engine: not under -short")
	}
	s := intake.OpenEngine(t)
	bin := clickgenBinary(t)
	// A fresh embedded broker per run (hits with 2 partitions, orders with 1).
	run := func(prefix string, flush time.Duration) followedReport {
		b, err := broker.Start("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		return followedStress(t, s, bin, b.Addrs(), prefix, flush, "2000/s", 8*time.Second)
	}
	flushBoundsLatency(t, run)
}

// TestEngineFollowedByKafkaTableRealKafka is TestEngineFollowedByKafkaTable against one real
// Apache Kafka node (internal/tier/realkafka), hits created with 2 partitions as the
// stand's DAG creates it: librdkafka inside ClickHouse consumes and commits on the real
// broker, clickgen follows those commits; a fresh node per run. Runs where CLICKGEN_TIERS selects
// the chdb and kafka tiers, not under -short.
func TestEngineFollowedByKafkaTableRealKafka(t *testing.T) {
	t.Parallel() // databases of its own names (see engineParallel)
	if testing.Short() {
		t.Skip("two 8-second stress runs through the engine: not under -short")
	}
	s := intake.OpenEngine(t)
	bin := clickgenBinary(t)
	flushBoundsLatency(t, func(prefix string, flush time.Duration) followedReport {
		// A fresh node per run: ClickHouse's dropped consumer does not leave the group, so a
		// second pipeline in the same group would wait out its session (45 s) first.
		c := realkafka.Start(t, 1)
		createTopics(t, c.Addrs())
		return followedStress(t, s, bin, c.Addrs(), "r"+prefix, flush, "2000/s", 8*time.Second)
	})
}

// createTopics creates hits (2 partitions) and orders (1) as the stand's DAG does.
func createTopics(t *testing.T, addrs []string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for topic, parts := range sink.DefaultTopics() {
		if _, err := kadm.NewClient(cl).CreateTopic(ctx, parts, -1, nil, topic); err != nil {
			t.Fatalf("create topic %s: %v", topic, err)
		}
	}
}

// flushBoundsLatency runs a followed stress run with the engine's flush at 500 ms and at
// 3000 ms and checks each against its own flush interval. At 2000/s the engine's blocks close
// on the interval (not on size), so the oldest message of each block waits the whole interval
// before its commit, and a message in the middle of it about half. Those are floors: load on
// the machine only adds to them (the engine parses later, the commit comes later), so they
// hold on a machine shared with other tests, and they fail when the follower reports anything
// before the engine's commit (an acknowledgement, a poll, a fetch: milliseconds).
//
// The difference between the two runs is logged, not asserted: the CI run at 4910a2d measured
// flush 500 ms at p50 2081 ms (the machine busy with two other test packages) and flush
// 3000 ms at p50 2458 ms, a rise of 377 ms where an idle machine gives +1.6…+2.9 s, because
// the load fell on one run and not the other.
func flushBoundsLatency(t *testing.T, run func(prefix string, flush time.Duration) followedReport) {
	t.Helper()
	const loFlush, hiFlush = 500 * time.Millisecond, 3000 * time.Millisecond
	lo := run("f500", loFlush).Follow["clickstream_hits"].LatencyMS
	hi := run("f3000", hiFlush).Follow["clickstream_hits"].LatencyMS
	t.Logf("pipeline latency ms, flush 500 ms: p50 %.1f p90 %.1f p99 %.1f max %.1f; flush 3000 ms: p50 %.1f p90 %.1f p99 %.1f max %.1f; p50 %+.1f, p99 %+.1f",
		lo.P50, lo.P90, lo.P99, lo.Max, hi.P50, hi.P90, hi.P99, hi.Max, hi.P50-lo.P50, hi.P99-lo.P99)
	for _, c := range []struct {
		flush    time.Duration
		p50, max float64
	}{{loFlush, lo.P50, lo.Max}, {hiFlush, hi.P50, hi.Max}} {
		f := float64(c.flush.Milliseconds())
		if c.max < 0.8*f {
			t.Errorf("flush %v: max latency %.1f ms, want at least %.0f ms (the oldest message of a block waits the interval)", c.flush, c.max, 0.8*f)
		}
		if c.p50 < 0.3*f {
			t.Errorf("flush %v: p50 latency %.1f ms, want at least %.0f ms (a message waits about half the interval)", c.flush, c.p50, 0.3*f)
		}
	}
}
