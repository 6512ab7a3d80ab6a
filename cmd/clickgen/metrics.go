package main

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/logs"
	"github.com/clickgen/clickgen/generator/metrics/prom"
	"github.com/clickgen/clickgen/generator/sink"
)

// --metrics-addr serves Prometheus metrics on /metrics while a verb plays (generator/metrics/prom:
// clickgen's series, the Kafka client's, the Go runtime's and the process's).

func addMetricsFlag(fs *pflag.FlagSet, addr *string) {
	fs.StringVar(addr, "metrics-addr", "", "serve Prometheus metrics on http://`HOST:PORT`/metrics during the run (port 0 picks a free port)")
}

// checkMetricsAddr says what is wrong with a --metrics-addr value, as a usage error.
func checkMetricsAddr(verb, addr string) error {
	if addr == "" {
		return nil
	}
	return usage(verb, prom.CheckAddr(addr))
}

// withMetrics opens a sink with open and, when addr is set, serves its metrics on addr until
// the sink is closed; open passes extra to a Kafka sink: the client's metrics hooks and, with
// --log-format json, its logger. The server listens first, so a bad or busy address is a
// usage error before connecting.
func withMetrics(verb, addr string, stderr io.Writer, open func(extra ...sink.Opt) (sink.Sink, error)) (sink.Sink, error) {
	var extra []sink.Opt
	if l := logs.Of(stderr); l != nil {
		extra = append(extra, sink.Logger(l.Logger("kafka", slog.LevelWarn)))
	}
	if addr == "" {
		return open(extra...)
	}
	if err := checkMetricsAddr(verb, addr); err != nil {
		return nil, err
	}
	m, err := prom.Listen(addr)
	if err != nil {
		return nil, usagef(verb, "--metrics-addr: %v", err)
	}
	fmt.Fprintf(stderr, "clickgen: Prometheus metrics on http://%s/metrics\n", m.Addr())
	s, err := open(append(extra, m.SinkOpts()...)...)
	if err != nil {
		m.Stop()
		return nil, err
	}
	return m.Wrap(s), nil
}
