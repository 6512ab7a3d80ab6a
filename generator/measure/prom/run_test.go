package prom

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/clickgen/clickgen/generator/measure/follow"
	"github.com/clickgen/clickgen/generator/measure/grafana"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/internal/tier/kafkatest"
)

// gate is a sink that stops the run at chosen message counts until the test lets it go on:
// the test scrapes a run in progress at points it chose, without waiting on the clock. Before
// it stops, it flushes, so that everything sent so far is acknowledged when the test looks.
type gate struct {
	sink.Sink
	n       atomic.Int64
	at      map[int64]bool
	reached chan int64
	resume  chan struct{}
	written *batchWritten
}

// batchWritten is a kgo hook registered after kprom's: franz-go runs a written batch's hooks
// in order on a goroutine of its own, after the acknowledgement, so once this one has heard
// of the n-th batch, kprom has counted it too.
type batchWritten struct {
	mu   sync.Mutex
	cond *sync.Cond
	n    int
}

func newBatchWritten() *batchWritten {
	b := &batchWritten{}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *batchWritten) OnProduceBatchWritten(kgo.BrokerMetadata, string, int32, kgo.ProduceBatchMetrics) {
	b.mu.Lock()
	b.n++
	b.mu.Unlock()
	b.cond.Broadcast()
}

// await waits until at least n batches were written.
func (b *batchWritten) await(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.n < n {
		b.cond.Wait()
	}
}

func (g *gate) Send(ctx context.Context, m sink.Message) error {
	if n := g.n.Add(1); g.at[n] {
		if err := g.Sink.Flush(ctx); err != nil {
			return err
		}
		g.written.await(1) // kprom's batch counters are in
		g.reached <- n
		<-g.resume
	}
	return g.Sink.Send(ctx, m)
}

// counters are the samples of every counter and histogram/summary count in fams, by name and
// labels.
func counters(fams map[string]*dto.MetricFamily) map[string]float64 {
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.Metric {
			var key strings.Builder
			key.WriteString(name)
			for _, l := range m.Label {
				key.WriteString("," + l.GetName() + "=" + l.GetValue())
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				out[key.String()] = m.GetCounter().GetValue()
			case dto.MetricType_HISTOGRAM:
				out[key.String()+",count"] = float64(m.GetHistogram().GetSampleCount())
			case dto.MetricType_SUMMARY:
				out[key.String()+",count"] = float64(m.GetSummary().GetSampleCount())
			}
		}
	}
	return out
}

// played is a run of two model days with garbage into a kfake cluster, rate-paced, through a
// Kafka sink carrying the server's kprom hooks.
type played struct {
	s         *Server
	k         *sink.Kafka
	res       play.Result
	announced int64 // extras the units announced
}

// playScraped plays a run, calling scraped with a scrape of the run stopped at each message
// count of at, and returns the run with a scrape taken after it (before the sink is closed).
// Every scrape's counters are checked to be no lower than the previous scrape's.
func playScraped(t *testing.T, at []int64, scraped func(n int64, fams map[string]*dto.MetricFamily)) (played, map[string]*dto.MetricFamily) {
	t.Helper()
	_, addrs := kafkatest.NewCluster(t)
	s := New()
	written := newBatchWritten()
	// A follower of a group that never commits: every acknowledged message is its lag.
	fcl, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fcl.Close)
	f, err := follow.New(kadm.NewClient(fcl), follow.Options{Groups: []string{"nobody"}, Topics: []string{"hits"}, Every: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	f.Start(context.Background())
	t.Cleanup(func() { f.Finish(context.Background(), true, nil) })
	s.Follow(f.States)
	k := kafkatest.NewKafka(t, addrs, append(play.SinkOpts(s), sink.Hooks(written), sink.OnAck(func(a sink.Ack) { f.Acked(follow.Ack(a)) }))...)
	g := &gate{Sink: k, at: map[int64]bool{}, reached: make(chan int64), resume: make(chan struct{}), written: written}
	for _, n := range at {
		g.at[n] = true
	}
	w, err := world.NewWorld(world.Params{Scale: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	shape, err := pace.ParseShape("1000000/s")
	if err != nil {
		t.Fatal(err)
	}
	runner, err := pace.NewRunner(pace.ByCount(shape))
	if err != nil {
		t.Fatal(err)
	}
	plan := play.Plan{World: w, Range: world.Range{From: 0, Days: 2, Garbage: world.Garbage{Rate: 0.05, Redeliver: 0.02}}, Hits: "hits",
		Pacing: play.Pacing{ByCount: true, Shape: shape, Runner: runner}}
	// The server is an observer of the run, which tells it the plan's pacing too.
	var announced atomic.Int64
	type outcome struct {
		res play.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := play.Run(context.Background(), plan, g, play.Observers(s, announce{n: &announced}))
		done <- outcome{res, err}
	}()

	var prev map[string]float64
	check := func(when string) map[string]*dto.MetricFamily {
		fams := scrape(t, s.Handler())
		cur := counters(fams)
		for k, v := range prev {
			if cur[k] < v {
				t.Errorf("%s: %s went down from %v to %v", when, k, v, cur[k])
			}
		}
		prev = cur
		return fams
	}
	var out outcome
	for running := true; running; {
		select {
		case n := <-g.reached:
			scraped(n, check(fmt.Sprint("at message ", n)))
			g.resume <- struct{}{}
		case out = <-done:
			running = false
		}
	}
	if out.err != nil {
		t.Fatal(out.err)
	}
	return played{s: s, k: k, res: out.res, announced: announced.Load()}, check("after the run")
}

// TestScrapeDuringRun scrapes a run at three points and once after it: every counter only
// grows; the last scrape agrees exactly with the sink's Stats and the final report; the extras
// by class add up to what the units announced; the Kafka client's per-broker series are there.
func TestScrapeDuringRun(t *testing.T) {
	var stops []int64
	p, fams := playScraped(t, []int64{300, 800, 1200}, func(n int64, fams map[string]*dto.MetricFamily) {
		stops = append(stops, n)
		for _, name := range []string{MessagesSent, MessagesAcked} {
			if got, _ := value(fams, name, "topic", "hits"); got != float64(n-1) {
				t.Errorf("at message %d: %s = %v, want %d (the ones before it, flushed)", n, name, got, n-1)
			}
		}
		if got, _ := value(fams, ConsumerLag, "group", "nobody", "topic", "hits"); got != float64(n-1) {
			t.Errorf("at message %d: %s{group nobody} = %v, want %d (a group that takes nothing lags by all acknowledged)", n, ConsumerLag, got, n-1)
		}
	})
	if len(stops) != 3 {
		t.Errorf("scraped at %v, want 3 points", stops)
	}
	k, out, announced := p.k, p, p.announced
	hits := k.Stats().Topics["hits"]
	for _, c := range []struct {
		name string
		want float64
	}{
		{MessagesSent, float64(hits.Sent)}, {MessagesAcked, float64(hits.Acked)}, {MessagesFailed, 0}, {AckedBytes, float64(hits.Bytes)},
	} {
		if got, _ := value(fams, c.name, "topic", "hits"); got != c.want {
			t.Errorf("after the run: %s = %v, the sink says %v", c.name, got, c.want)
		}
	}
	if hits.Acked != out.res.Sent || hits.Acked < 1200 {
		t.Errorf("acked %d, the run sent %d", hits.Acked, out.res.Sent)
	}
	if got, _ := value(fams, Released); got != float64(out.res.Sent) {
		t.Errorf("%s = %v, the run sent %d", Released, got, out.res.Sent)
	}
	if got := fams[Latency].GetMetric()[0].GetHistogram().GetSampleCount(); got != uint64(hits.Acked) {
		t.Errorf("latency count %d, acked %d", got, hits.Acked)
	}
	if got, _ := value(fams, ModelDay, "kind", "hits"); got != 1 {
		t.Errorf("%s = %v, want 1 (the last day played)", ModelDay, got)
	}
	if got, _ := value(fams, UnitsDone, "kind", "hits"); got != 2 {
		t.Errorf("%s = %v, want 2", UnitsDone, got)
	}
	var extras float64
	for _, m := range fams[ExtraMessages].GetMetric() {
		extras += m.GetCounter().GetValue()
	}
	if extras != float64(announced) || extras == 0 {
		t.Errorf("%s adds up to %v, the units announced %d extras", ExtraMessages, extras, announced)
	}
	for _, name := range []string{"clickgen_kafka_connects_total", "clickgen_kafka_write_bytes_total", "clickgen_kafka_produce_records_total", "clickgen_kafka_produce_uncompressed_bytes_total",
		"clickgen_kafka_request_duration_e2e_seconds", "clickgen_kafka_buffered_produce_records_total"} {
		if fams[name] == nil {
			t.Errorf("no %s from kprom", name)
		}
	}
	if f := fams["clickgen_kafka_connects_total"]; f != nil && f.Metric[0].GetLabel()[0].GetName() != "node_id" {
		t.Errorf("kprom series are not per broker: %v", f.Metric[0])
	}
}

// announce is an Observer adding up the extras the units announce.
type announce struct {
	n *atomic.Int64
}

func (a announce) RunStarted(play.Start)                     {}
func (a announce) RunEnded(context.Context, *play.End) error { return nil }

func (a announce) UnitStarted(u play.Unit) { a.n.Add(int64(u.Extras)) }

// TestDashboardMetricsServed: every metric the Grafana dashboard's queries read is served by a
// real run, scraped while it plays. The Kafka client's error counters (kprom) appear only with
// their first error, so of those the test asks that they are registered, not that they hold a
// sample.
func TestDashboardMetricsServed(t *testing.T) {
	names, err := grafana.Metrics()
	if err != nil {
		t.Fatal(err)
	}
	errorsOnly := map[string]bool{"clickgen_kafka_connect_errors_total": true, "clickgen_kafka_write_errors_total": true,
		"clickgen_kafka_read_errors_total": true, "clickgen_kafka_disconnects_total": true}
	var mid map[string]*dto.MetricFamily
	p, _ := playScraped(t, []int64{1200}, func(_ int64, fams map[string]*dto.MetricFamily) { mid = fams })
	served := func(name string) bool {
		if mid[name] != nil {
			return true
		}
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if f := mid[strings.TrimSuffix(name, suffix)]; f != nil && strings.HasSuffix(name, suffix) &&
				(f.GetType() == dto.MetricType_HISTOGRAM || suffix != "_bucket" && f.GetType() == dto.MetricType_SUMMARY) {
				return true
			}
		}
		return false
	}
	for _, name := range names {
		switch {
		case served(name):
		case errorsOnly[name]:
			if !registered(p.s.Registry(), name) {
				t.Errorf("the dashboard reads %s, which is not even registered", name)
			}
		default:
			t.Errorf("the dashboard reads %s, which the run does not serve", name)
		}
	}
	for name := range errorsOnly {
		if !slices.Contains(names, name) {
			t.Errorf("the error-only exception %s is not in the dashboard: remove it from the test", name)
		}
	}
}

// registered says whether reg holds a collector of a metric named name: registering another
// one under that name then fails.
func registered(reg *prometheus.Registry, name string) bool {
	probe := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: "probe"})
	if err := reg.Register(probe); err != nil {
		return true
	}
	reg.Unregister(probe)
	return false
}
