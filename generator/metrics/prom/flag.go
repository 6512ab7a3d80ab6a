package prom

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/sink"
)

// AddFlag registers --metrics-addr on fs, setting *addr: the HOST:PORT to serve a run's
// metrics on ([ListenOn]), none by default.
func AddFlag(fs *pflag.FlagSet, addr *string) {
	fs.StringVar(addr, "metrics-addr", "", "serve Prometheus metrics on http://`HOST:PORT`/metrics during the run (port 0 picks a free port)")
}

// ListenOn serves metrics on addr, the value of --metrics-addr: a nil *Server (whose methods
// do nothing) when addr is empty, else [Listen] after [CheckAddr]. A bad or busy address is
// an error naming the flag, known before anything connects or is sent.
func ListenOn(addr string) (*Server, error) {
	if addr == "" {
		return nil, nil
	}
	if err := CheckAddr(addr); err != nil {
		return nil, err
	}
	s, err := Listen(addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	return s, nil
}

// OpenSink opens a sink with open and returns it reporting to s ([Server.Wrap]): open gets
// extra, then the options a Kafka sink needs to report to s ([Server.SinkOpts]). When open
// fails, s stops. On a nil *Server it only opens the sink with extra.
func (s *Server) OpenSink(open func(...sink.Opt) (sink.Sink, error), extra ...sink.Opt) (sink.Sink, error) {
	if s == nil {
		return open(extra...)
	}
	snk, err := open(append(extra, s.SinkOpts()...)...)
	if err != nil {
		s.Stop()
		return nil, err
	}
	return s.Wrap(snk), nil
}
