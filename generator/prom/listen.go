package prom

import (
	"github.com/clickgen/clickgen/generator/sink"
)

// ListenOn serves metrics on addr: a nil *Server (whose methods do nothing) when addr is
// empty, else [Listen] after [CheckAddr]. A bad address is an *[AddrError], a busy one
// Listen's error, both known before anything connects or is sent.
func ListenOn(addr string) (*Server, error) {
	if addr == "" {
		return nil, nil
	}
	if err := CheckAddr(addr); err != nil {
		return nil, err
	}
	return Listen(addr)
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
