// Package prom serves a run's metrics on /metrics in Prometheus's text exposition format:
// counters of messages sent, acknowledged and failed and of bytes by topic, acknowledged
// messages by partition, messages in flight, the lag of the latest paced message behind its
// intended time, and the latency histogram from intended send time to acknowledgement. The
// format is simple enough to write by hand, so there is no client library.
package prom

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/clickgen/clickgen/generator/sink"
)

// Server serves the exposition of one sink's Stats. It listens as soon as it is
// started (so a bad or busy address fails before anything is sent) and stops when the sink
// it wraps is closed.
type Server struct {
	ln   net.Listener
	srv  *http.Server
	snk  atomic.Pointer[sink.Sink]
	lag  atomic.Int64 // nanoseconds: how late the latest paced message was handed to the sink
	done chan struct{}
}

// Listen listens on addr (HOST:PORT; port 0 picks a free port) and serves /metrics until
// Stop. It fails at once when addr cannot be listened on, so a bad or busy address is known
// before anything is sent.
func Listen(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	m := &Server{ln: ln, done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", m.serve)
	m.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		defer close(m.done)
		_ = m.srv.Serve(ln) // returns http.ErrServerClosed on stop
	}()
	return m, nil
}

// Addr is the address the server listens on.
func (m *Server) Addr() net.Addr { return m.ln.Addr() }

// Wrap returns s reporting to m: m serves s's Stats, records the lag of every paced message
// s sends, and stops when s is closed.
func (m *Server) Wrap(s sink.Sink) sink.Sink {
	m.snk.Store(&s)
	return &meteredSink{Sink: s, m: m}
}

// Stop shuts the server down, giving a scrape in progress a moment to finish.
func (m *Server) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := m.srv.Shutdown(ctx); err != nil {
		m.srv.Close()
	}
	<-m.done
}

func (m *Server) serve(w http.ResponseWriter, r *http.Request) {
	var st sink.Stats
	if s := m.snk.Load(); s != nil {
		st = (*s).Stats()
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	var b strings.Builder
	Write(&b, st, time.Duration(m.lag.Load()))
	io.WriteString(w, b.String())
}

// LatencyBounds are the upper bounds of the latency histogram's buckets, in seconds.
var LatencyBounds = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

// Write renders st and the current lag in the Prometheus text exposition format (version
// 0.0.4).
func Write(b *strings.Builder, st sink.Stats, lag time.Duration) {
	topics := slices.Sorted(maps.Keys(st.Topics))
	counter := func(name, help string, v func(sink.TopicStats) int64) {
		fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s counter\n", name, help, name)
		for _, t := range topics {
			fmt.Fprintf(b, "%s{topic=\"%s\"} %d\n", name, escapeLabel(t), v(st.Topics[t]))
		}
	}
	counter("clickgen_messages_sent_total", "Messages handed to the sink, by topic.",
		func(t sink.TopicStats) int64 { return t.Sent })
	counter("clickgen_messages_acked_total", "Messages acknowledged (by the brokers with acks=all, or written to the file), by topic.",
		func(t sink.TopicStats) int64 { return t.Acked })
	counter("clickgen_messages_failed_total", "Messages that will never be delivered, by topic.",
		func(t sink.TopicStats) int64 { return t.Failed })
	counter("clickgen_acked_bytes_total", "Value bytes of acknowledged messages (keys and overhead not counted), by topic.",
		func(t sink.TopicStats) int64 { return t.Bytes })

	const parts = "clickgen_partition_acked_total"
	fmt.Fprintf(b, "# HELP %s Messages acknowledged, by topic and partition.\n# TYPE %s counter\n", parts, parts)
	for _, t := range topics {
		ps := st.Topics[t].Partitions
		for _, p := range slices.Sorted(maps.Keys(ps)) {
			fmt.Fprintf(b, "%s{topic=\"%s\",partition=\"%d\"} %d\n", parts, escapeLabel(t), p, ps[p])
		}
	}

	var inFlight int64
	for _, t := range st.Topics {
		inFlight += t.Sent - t.Acked - t.Failed
	}
	fmt.Fprintf(b, "# HELP clickgen_messages_in_flight Messages handed to the sink and not yet acknowledged or failed.\n"+
		"# TYPE clickgen_messages_in_flight gauge\nclickgen_messages_in_flight %d\n", inFlight)
	fmt.Fprintf(b, "# HELP clickgen_lag_seconds How late the latest paced message was handed to the sink, behind its intended send time (0 when unpaced).\n"+
		"# TYPE clickgen_lag_seconds gauge\nclickgen_lag_seconds %s\n", formatFloat(lag.Seconds()))

	const lat = "clickgen_produce_latency_seconds"
	fmt.Fprintf(b, "# HELP %s Time from each message's intended send time to its acknowledgement.\n# TYPE %s histogram\n", lat, lat)
	h := st.Latency
	for _, le := range LatencyBounds {
		n := h.CountAtMost(time.Duration(le * float64(time.Second)))
		fmt.Fprintf(b, "%s_bucket{le=\"%s\"} %d\n", lat, formatFloat(le), n)
	}
	fmt.Fprintf(b, "%s_bucket{le=\"+Inf\"} %d\n", lat, h.Count())
	fmt.Fprintf(b, "%s_sum %s\n%s_count %d\n", lat, formatFloat(h.Sum().Seconds()), lat, h.Count())
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// escapeLabel escapes a label value as the exposition format wants: \\, \" and \n.
func escapeLabel(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// meteredSink is a sink whose metrics server records each paced message's lag and stops
// when the sink is closed.
type meteredSink struct {
	sink.Sink
	m *Server
}

// Send records how late m is (now − Due, for paced messages) and sends it.
func (s *meteredSink) Send(ctx context.Context, msg sink.Message) error {
	if !msg.Due.IsZero() {
		s.m.lag.Store(int64(max(0, time.Since(msg.Due))))
	}
	return s.Sink.Send(ctx, msg)
}

// Close closes the sink, then stops the metrics server: it serves until the run's end.
func (s *meteredSink) Close() error {
	err := s.Sink.Close()
	s.m.Stop()
	return err
}
