package prom

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/sink"
)

// TestListenOnAndOpenSink: no address serves nothing and opens the sink as it is; an
// address serves the sink's metrics until it is closed, and the sink gets the Kafka hooks;
// a bad address is an *AddrError, a busy one fails; a sink that cannot open stops the server.
func TestListenOnAndOpenSink(t *testing.T) {
	var got []sink.Opt
	open := func(opts ...sink.Opt) (sink.Sink, error) {
		got = opts
		return sink.NewWriter(io.Discard, sink.WriterOptions{})
	}
	s, err := ListenOn("")
	if s != nil || err != nil {
		t.Fatalf(`ListenOn("") = %v, %v; want no server`, s, err)
	}
	snk, err := s.OpenSink(open, sink.ClientID("t"))
	if err != nil || Of(snk) != nil || len(got) != 1 {
		t.Fatalf("nil server: OpenSink got %d options, Of = %v, error %v; want the 1 extra, unwrapped", len(got), Of(snk), err)
	}
	if _, err := ListenOn("nope"); !errors.As(err, new(*AddrError)) || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf(`ListenOn("nope") = %v, want the address refused`, err)
	}
	s, err = ListenOn("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ListenOn(s.Addr().String()); err == nil || errors.As(err, new(*AddrError)) {
		t.Errorf("ListenOn a busy address = %v, want Listen's error", err)
	}
	if snk, err = s.OpenSink(open, sink.ClientID("t")); err != nil || Of(snk) != s || len(got) != 2 {
		t.Fatalf("OpenSink got %d options, Of = %v, error %v; want the extra and the hooks, reporting to s", len(got), Of(snk), err)
	}
	url := "http://" + s.Addr().String() + "/metrics"
	if resp, err := http.Get(url); err != nil || resp.StatusCode != 200 {
		t.Errorf("GET %s: %v %v", url, resp, err)
	} else {
		resp.Body.Close()
	}
	snk.Close()
	if _, err := http.Get(url); err == nil {
		t.Errorf("GET %s after the sink closed: served", url)
	}
	s, err = ListenOn("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenSink(func(...sink.Opt) (sink.Sink, error) { return nil, errors.New("no") }); err == nil {
		t.Error("OpenSink with a failing open: no error")
	}
	if c, err := net.Dial("tcp", s.Addr().String()); err == nil {
		c.Close()
		t.Error("the server still listens after the sink failed to open")
	}
}
