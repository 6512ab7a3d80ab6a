package main

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/clickgen/clickgen/generator/logs"
	"github.com/clickgen/clickgen/generator/metrics/prom"
	"github.com/clickgen/clickgen/generator/sink"
)

// --metrics-addr serves Prometheus metrics on /metrics while a verb plays (generator/metrics/prom:
// clickgen's series, the Kafka client's, the Go runtime's and the process's).

// withMetrics opens a sink with open and, when addr is set, serves its metrics on addr until
// the sink is closed; open passes extra to a Kafka sink: the client's metrics hooks and, with
// --log-format json, its logger. The server listens first, so a bad or busy address is a
// usage error before connecting.
func withMetrics(verb, addr string, stderr io.Writer, open func(extra ...sink.Opt) (sink.Sink, error)) (sink.Sink, error) {
	var extra []sink.Opt
	if l := logs.Of(stderr); l != nil {
		extra = append(extra, sink.Logger(l.Logger("kafka", slog.LevelWarn)))
	}
	m, err := prom.ListenOn(addr)
	if err != nil {
		return nil, usage(verb, err)
	}
	if m != nil {
		fmt.Fprintf(stderr, "clickgen: Prometheus metrics on http://%s/metrics\n", m.Addr())
	}
	return m.OpenSink(open, extra...)
}
