// Package prom serves a run's metrics on /metrics for Prometheus, with the official client
// library on a registry of its own: the Go runtime's and the process's collectors, clickgen's
// series (see [Names]) and, through [Server.KafkaHooks], the Kafka client's per-broker series
// from franz-go's kprom (prefix clickgen_kafka_).
//
// A Server is an observer of the run (play.Observer), attached like every other listener: it
// never wraps the sink. clickgen's counters are not observed twice: at each scrape they are
// read from the sink's Stats and the pacer's snapshot, so /metrics, the progress lines and the
// final report count the same messages. The
// latency histogram's buckets are counted from the sink's own [metrics.Histogram], the one the
// final percentiles come from, and the whole-run quantiles are exposed as a summary holding
// exactly the percentiles the final line prints.
package prom

import (
	"context"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/plugin/kprom"

	"github.com/clickgen/clickgen/generator/measure/follow"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// Server serves the metrics of one run: its sink's Stats, its pacing and what the engine tells
// its observers. It listens as soon as it is started (so a bad or busy address fails before
// anything is sent) and stops when the caller closes it after the run ([Server.Close]),
// after its linger. It hooks the Kafka client of the run's sink (play.HookKafka: kprom). Its
// methods are safe for concurrent use; the configuring ones (KafkaHooks, Follow, Linger,
// Close, Stop) do nothing on a nil *Server.
type Server struct {
	ln   net.Listener
	srv  *http.Server
	done chan struct{}
	reg  *prometheus.Registry

	stats  atomic.Pointer[func() sink.Stats]
	follow atomic.Pointer[func() map[string]follow.State]
	pacer  atomic.Pointer[pacing]

	day    *prometheus.GaugeVec
	units  *prometheus.CounterVec
	extras *prometheus.CounterVec
	// byClass are the extras' counters of the run's topics and classes, made at RunStarted
	// and read on the run's goroutine only.
	byClass map[[2]string]prometheus.Counter

	kafkaOnce sync.Once
	kafka     *kprom.Metrics

	// After the run (Linger): how long to keep serving for a scrape of the final values.
	linger    time.Duration
	ended     atomic.Bool   // the run has ended: a scrape that starts now reads final values
	lingering chan struct{} // closed when the wait for a final scrape begins
	scraped   chan struct{} // closed when a scrape that started after the end has been answered
	finalOnce sync.Once
}

var _ play.Observer = (*Server)(nil)

// pacing is what the target-rate series are computed from.
type pacing struct {
	shape  pace.Pacer // nil when the run is not paced by a rate shape
	runner *pace.Runner
}

// The names of clickgen's own series. Counters end in _total, units are base units (seconds,
// bytes). The names of earlier releases are kept.
const (
	MessagesSent    = "clickgen_messages_sent_total"         // counter {topic}
	MessagesAcked   = "clickgen_messages_acked_total"        // counter {topic}
	MessagesFailed  = "clickgen_messages_failed_total"       // counter {topic}
	AckedBytes      = "clickgen_acked_bytes_total"           // counter {topic}
	PartitionAcked  = "clickgen_partition_acked_total"       // counter {topic, partition}
	InFlight        = "clickgen_messages_in_flight"          // gauge
	Lag             = "clickgen_lag_seconds"                 // gauge
	MaxLag          = "clickgen_lag_max_seconds"             // gauge
	Latency         = "clickgen_produce_latency_seconds"     // histogram
	LatencyMax      = "clickgen_produce_latency_max_seconds" // gauge
	LatencyRun      = "clickgen_produce_latency_run_seconds" // summary {quantile}
	Released        = "clickgen_released_messages_total"     // counter
	Scheduled       = "clickgen_scheduled_messages_total"    // counter
	TargetRate      = "clickgen_target_messages_per_second"  // gauge
	ModelDay        = "clickgen_model_day"                   // gauge {kind}
	UnitsDone       = "clickgen_units_done_total"            // counter {kind}
	ExtraMessages   = "clickgen_extra_messages_sent_total"   // counter {topic, class}
	PipelineLatency = "clickgen_pipeline_latency_seconds"    // histogram {group, topic}
	ConsumerLag     = "clickgen_consumer_lag_messages"       // gauge {group, topic}
	RedeliveryClass = "redelivery"                           // the class label of a re-send
	KafkaNamespace  = "clickgen"                             // kprom's namespace…
	KafkaSubsystem  = "kafka"                                // …and subsystem: clickgen_kafka_*
)

// Names lists clickgen's own series, for documentation and tests.
var Names = []string{MessagesSent, MessagesAcked, MessagesFailed, AckedBytes, PartitionAcked, InFlight, Lag, MaxLag,
	Latency, LatencyMax, LatencyRun, Released, Scheduled, TargetRate, ModelDay, UnitsDone, ExtraMessages,
	PipelineLatency, ConsumerLag}

// LatencyBounds are the upper bounds of the latency histogram's buckets, in seconds.
var LatencyBounds = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// PipelineLatencyBounds are the upper bounds of the pipeline latency histogram's buckets, in
// seconds: a consumer that flushes every few seconds or falls minutes behind still lands
// below the last one.
var PipelineLatencyBounds = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 7.5, 10, 15, 30, 60, 120, 300, 600}

// LatencyQuantiles are the whole-run quantiles of the latency summary: those the final line of a
// stress run prints.
var LatencyQuantiles = []float64{0.5, 0.95, 0.99, 0.999}

// Listen listens on addr (HOST:PORT; port 0 picks a free port) and serves /metrics until
// Stop. It fails at once when addr cannot be listened on, so a bad or busy address is known
// before anything is sent.
func Listen(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := New()
	s.ln, s.done = ln, make(chan struct{})
	s.lingering, s.scraped = make(chan struct{}), make(chan struct{})
	mux := http.NewServeMux()
	mux.Handle("/metrics", s.final(s.Handler()))
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln) // returns http.ErrServerClosed on stop
	}()
	return s, nil
}

// New returns a Server that does not listen: its [Server.Handler] serves the metrics on a
// caller's own mux.
func New() *Server {
	s := &Server{reg: prometheus.NewRegistry()}
	s.day = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: ModelDay,
		Help: "The model day of the unit being played (hits: the day; snapshot: the day it is the snapshot of), by kind."}, []string{"kind"})
	s.units = prometheus.NewCounterVec(prometheus.CounterOpts{Name: UnitsDone,
		Help: "Units played whole (a model day's hits, or a day's order snapshot), by kind."}, []string{"kind"})
	s.extras = prometheus.NewCounterVec(prometheus.CounterOpts{Name: ExtraMessages,
		Help: `Malformed messages (class: the garbage class) and re-sends of clean messages (class "redelivery") handed to the sink, by topic.`},
		[]string{"topic", "class"})
	s.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		statsCollector{s},
		s.day, s.units, s.extras,
	)
	return s
}

// Handler serves the exposition of s's registry, in the format the scraper asks for.
func (s *Server) Handler() http.Handler {
	return promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Registry is the registry s serves, for a caller's own collectors.
func (s *Server) Registry() *prometheus.Registry { return s.reg }

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// KafkaHooks returns franz-go's kprom plugin registered on s, to give the Kafka sink with
// [sink.Hooks]: the client's per-broker series (connections, bytes, errors, request latency,
// buffered records; produced records, batches and bytes by broker and topic) under
// clickgen_kafka_. It returns the same plugin on every call; it is
// meant for one client. It returns nil on a nil *Server.
func (s *Server) KafkaHooks() kgo.Hook {
	if s == nil {
		return nil
	}
	s.kafkaOnce.Do(func() {
		s.kafka = kprom.NewMetrics(KafkaNamespace, kprom.Subsystem(KafkaSubsystem), kprom.Registry(s.reg),
			kprom.Histograms(kprom.RequestDurationE2E, kprom.WriteWait),
			kprom.FetchAndProduceDetail(kprom.ByNode, kprom.ByTopic, kprom.Batches, kprom.Records,
				kprom.CompressedBytes, kprom.UncompressedBytes, kprom.ConsistentNaming))
	})
	return s.kafka
}

// setPacing tells s the run's pacing (RunStarted does): runner releases the messages (nil:
// not paced) after shape (nil: not a rate shape). s then serves how many messages were
// released, how late the latest one was and the largest lag; with a shape, also how many the
// shape had scheduled by now and its current target rate.
func (s *Server) setPacing(shape pace.Pacer, runner *pace.Runner) {
	if runner == nil {
		return
	}
	s.pacer.Store(&pacing{shape: shape, runner: runner})
}

// Follow makes s serve the followed consumer groups' pipeline latency and lag by group and
// topic, read from states (follow.Follower.States) at each scrape.
func (s *Server) Follow(states func() map[string]follow.State) {
	if s == nil || states == nil {
		return
	}
	s.follow.Store(&states)
}

// RunStarted starts serving the run: the sink's counters (read at each scrape from
// st.Stats), the plan's pacing (plan.Pacing's Runner and Shape: the messages released, the
// lag and, for a rate shape, what it scheduled and its target), and the extras' counters at
// zero for every class the plan's topics can carry.
func (s *Server) RunStarted(st play.Start) {
	s.stats.Store(&st.Stats)
	s.setPacing(st.Plan.Pacing.Shape, st.Plan.Pacing.Runner)
	s.byClass = map[[2]string]prometheus.Counter{}
	for _, tc := range []struct {
		topic   string
		classes []string
	}{{st.Plan.Hits, world.HitGarbageClasses}, {st.Plan.Orders, world.OrderGarbageClasses}} {
		if tc.topic == "" {
			continue
		}
		for _, c := range append(slices.Clone(tc.classes), "") {
			s.byClass[[2]string{tc.topic, c}] = s.extras.WithLabelValues(tc.topic, classLabel(c))
		}
	}
}

// UnitStarted serves the model day of the unit being played.
func (s *Server) UnitStarted(u play.Unit) {
	s.day.WithLabelValues(kindLabel(u.Kind)).Set(float64(u.Day))
}

// UnitDone counts the unit.
func (s *Server) UnitDone(r play.UnitResult) { s.units.WithLabelValues(kindLabel(r.Kind)).Inc() }

// ExtraSent counts a malformed message or a re-send by topic and class.
func (s *Server) ExtraSent(topic, class string) {
	if c, ok := s.byClass[[2]string{topic, class}]; ok {
		c.Inc()
		return
	}
	s.extras.WithLabelValues(topic, classLabel(class)).Inc()
}

// RunEnded does nothing: s serves the final values until it is closed ([Server.Close]).
func (s *Server) RunEnded(context.Context, *play.End) error { return nil }

// Close ends serving once the run has ended and been reported: it keeps serving the run's
// final values for the linger ([Server.Linger]), announced through wait, then stops the
// server. The wait ends early when ctx does: an interrupted run (its context is done) does
// not wait, and a signal ends the wait at once. It does nothing on a nil *Server.
func (s *Server) Close(ctx context.Context, wait func(what string, max time.Duration)) {
	if s == nil {
		return
	}
	s.awaitFinalScrape(ctx, wait)
	s.Stop()
}

func classLabel(class string) string {
	if class == "" {
		return RedeliveryClass
	}
	return class
}

func kindLabel(k play.UnitKind) string {
	if k == play.SnapshotUnit {
		return "snapshot"
	}
	return "hits"
}

// final wraps h to note a scrape that starts after the run has ended and is answered: the
// scrape that saw the final values.
func (s *Server) final(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		after := s.ended.Load()
		h.ServeHTTP(w, r)
		if after {
			s.finalOnce.Do(func() { close(s.scraped) })
		}
	})
}

// Linger makes the end of serving ([Server.Close]) keep serving for up to d: until a
// scrape that starts after the run has ended has been answered, until d has passed, or until
// the run's context is done (an interrupted run does not wait), whichever is first. A run
// shorter than the scraper's interval then still leaves its final values in Prometheus, when
// d is longer than that interval. Zero d, the default, stops at once. It does nothing on a
// nil *Server. Call it before the run.
func (s *Server) Linger(d time.Duration) {
	if s == nil {
		return
	}
	s.linger = d
}

// LingerWait is what the wait of Linger is announced as (Close's wait), with the linger as
// its longest.
const LingerWait = "the run has ended; serving its final metrics until a scrape reads them"

// awaitFinalScrape is the wait Linger asks for, after the run, announced through wait.
func (s *Server) awaitFinalScrape(ctx context.Context, wait func(what string, max time.Duration)) {
	if s.linger <= 0 || s.srv == nil || ctx.Err() != nil {
		return
	}
	s.ended.Store(true)
	close(s.lingering)
	if wait != nil {
		wait(LingerWait, s.linger)
	}
	t := time.NewTimer(s.linger)
	defer t.Stop()
	select {
	case <-s.scraped:
	case <-t.C:
	case <-ctx.Done():
	}
}

// Stop shuts the server down, giving a scrape in progress a moment to finish. It does nothing
// on a Server from New.
func (s *Server) Stop() {
	if s == nil || s.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close()
	}
	<-s.done
}

// statsCollector reads clickgen's series at scrape time from the sink's Stats and the pacer's
// snapshot: nothing is counted twice.
type statsCollector struct{ s *Server }

var (
	descSent     = prometheus.NewDesc(MessagesSent, "Messages handed to the sink, by topic.", []string{"topic"}, nil)
	descAcked    = prometheus.NewDesc(MessagesAcked, "Messages acknowledged (by the brokers with acks=all, or written to the file), by topic.", []string{"topic"}, nil)
	descFailed   = prometheus.NewDesc(MessagesFailed, "Messages that will never be delivered, by topic.", []string{"topic"}, nil)
	descBytes    = prometheus.NewDesc(AckedBytes, "Value bytes of acknowledged messages (keys and overhead not counted), by topic.", []string{"topic"}, nil)
	descParts    = prometheus.NewDesc(PartitionAcked, "Messages acknowledged, by topic and partition.", []string{"topic", "partition"}, nil)
	descInFlight = prometheus.NewDesc(InFlight, "Messages handed to the sink and not yet acknowledged or failed.", nil, nil)
	descLag      = prometheus.NewDesc(Lag, "How late the latest paced message was handed to the sink, behind its intended send time (0 when unpaced).", nil, nil)
	descMaxLag   = prometheus.NewDesc(MaxLag, "The latest any paced message was released, behind its intended send time.", nil, nil)
	descLatency  = prometheus.NewDesc(Latency, "Time from each message's intended send time to its acknowledgement.", nil, nil)
	descLatMax   = prometheus.NewDesc(LatencyMax, "The largest produce latency of the run, exactly.", nil, nil)
	descLatRun   = prometheus.NewDesc(LatencyRun, "Produce latency quantiles over the whole run so far (after its warm-up, if any): exactly the percentiles of the final summary.", nil, nil)
	descReleased = prometheus.NewDesc(Released, "Messages the pacer released.", nil, nil)
	descSched    = prometheus.NewDesc(Scheduled, "Messages the rate shape had scheduled by now: its rate is the target rate.", nil, nil)
	descTarget   = prometheus.NewDesc(TargetRate, "The rate shape's target rate: its mean over the messages it scheduled in the last second.", nil, nil)
	descPipeline = prometheus.NewDesc(PipelineLatency, "Time from each acknowledged message's intended send time (unpaced: when it was handed to the producer) to the first poll that saw the consumer group's committed offset past it (--follow-group), by group and topic.", []string{"group", "topic"}, nil)
	descConsLag  = prometheus.NewDesc(ConsumerLag, "Messages the run had acknowledged that the consumer group had not yet taken (committed past), by group and topic.", []string{"group", "topic"}, nil)
)

func (c statsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descSent, descAcked, descFailed, descBytes, descParts, descInFlight, descLag,
		descMaxLag, descLatency, descLatMax, descLatRun, descReleased, descSched, descTarget, descPipeline, descConsLag} {
		ch <- d
	}
}

func (c statsCollector) Collect(ch chan<- prometheus.Metric) {
	var st sink.Stats
	if f := c.s.stats.Load(); f != nil {
		st = (*f)()
	}
	var inFlight int64
	for _, t := range slices.Sorted(maps.Keys(st.Topics)) {
		ts := st.Topics[t]
		ch <- prometheus.MustNewConstMetric(descSent, prometheus.CounterValue, float64(ts.Sent), t)
		ch <- prometheus.MustNewConstMetric(descAcked, prometheus.CounterValue, float64(ts.Acked), t)
		ch <- prometheus.MustNewConstMetric(descFailed, prometheus.CounterValue, float64(ts.Failed), t)
		ch <- prometheus.MustNewConstMetric(descBytes, prometheus.CounterValue, float64(ts.Bytes), t)
		for p, n := range ts.Partitions {
			ch <- prometheus.MustNewConstMetric(descParts, prometheus.CounterValue, float64(n), t, strconv.Itoa(int(p)))
		}
		inFlight += ts.Sent - ts.Acked - ts.Failed
	}
	ch <- prometheus.MustNewConstMetric(descInFlight, prometheus.GaugeValue, float64(inFlight))
	var lag time.Duration
	if p := c.s.pacer.Load(); p != nil {
		lag = p.runner.Snapshot().Lag
	}
	ch <- prometheus.MustNewConstMetric(descLag, prometheus.GaugeValue, lag.Seconds())

	h := st.Latency
	buckets := make(map[float64]uint64, len(LatencyBounds))
	for _, le := range LatencyBounds {
		buckets[le] = h.CountAtMost(time.Duration(le * float64(time.Second)))
	}
	ch <- prometheus.MustNewConstHistogram(descLatency, h.Count(), h.Sum().Seconds(), buckets)
	ch <- prometheus.MustNewConstMetric(descLatMax, prometheus.GaugeValue, h.Max().Seconds())
	// The whole-run quantiles are the final line's: of what was sent after a warm-up (the
	// histogram above keeps every message, for the rates over time).
	run := st.Measured()
	qs := make(map[float64]float64, len(LatencyQuantiles))
	for _, q := range LatencyQuantiles {
		qs[q] = run.Quantile(q).Seconds()
	}
	ch <- prometheus.MustNewConstSummary(descLatRun, run.Count(), run.Sum().Seconds(), qs)

	if f := c.s.follow.Load(); f != nil {
		states := (*f)()
		for _, g := range slices.Sorted(maps.Keys(states)) {
			for _, t := range slices.Sorted(maps.Keys(states[g].Topics)) {
				ts := states[g].Topics[t]
				b := make(map[float64]uint64, len(PipelineLatencyBounds))
				for _, le := range PipelineLatencyBounds {
					b[le] = ts.Latency.CountAtMost(time.Duration(le * float64(time.Second)))
				}
				ch <- prometheus.MustNewConstHistogram(descPipeline, ts.Latency.Count(), ts.Latency.Sum().Seconds(), b, g, t)
				ch <- prometheus.MustNewConstMetric(descConsLag, prometheus.GaugeValue, float64(ts.Untaken), g, t)
			}
		}
	}

	if p := c.s.pacer.Load(); p != nil {
		snap := p.runner.Snapshot()
		ch <- prometheus.MustNewConstMetric(descReleased, prometheus.CounterValue, float64(snap.Sent))
		ch <- prometheus.MustNewConstMetric(descMaxLag, prometheus.GaugeValue, snap.MaxLag.Seconds())
		if p.shape != nil {
			ch <- prometheus.MustNewConstMetric(descSched, prometheus.CounterValue, float64(pace.Scheduled(p.shape, snap.Elapsed)))
			ch <- prometheus.MustNewConstMetric(descTarget, prometheus.GaugeValue, targetRate(p.shape, snap.Elapsed))
		}
	}
}

// targetRate is shape's rate at the elapsed time e: k messages over the span between the due
// times of the first and the last of the k messages scheduled in the second before e. Counting
// messages in a fixed time window instead would be off by up to one message per window.
func targetRate(shape pace.Pacer, e time.Duration) float64 {
	from := max(0, e-time.Second)
	n := pace.Scheduled(shape, e)
	k := n - pace.Scheduled(shape, from)
	if n < 2 || k == 0 {
		return pace.AllowedRate(shape, from, e)
	}
	k = min(k, n-1)
	last, ok1 := shape.Due(n - 1)
	first, ok2 := shape.Due(n - 1 - k)
	if !ok1 || !ok2 || last <= first {
		return pace.AllowedRate(shape, from, e)
	}
	return float64(k) / (last - first).Seconds()
}
