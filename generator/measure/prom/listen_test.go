package prom

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// TestListenOnServesUntilTheEnd: no address serves nothing; an address serves the run's
// metrics from its start until it is closed after the run (Close stops the server), and
// hooks the run's Kafka sink with kprom (play.SinkOpts); a bad address is an *AddrError, a
// busy one fails.
func TestListenOnServesUntilTheEnd(t *testing.T) {
	s, err := ListenOn("")
	if s != nil || err != nil {
		t.Fatalf(`ListenOn("") = %v, %v; want no server`, s, err)
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
	if opts := play.SinkOpts(s); len(opts) != 1 {
		t.Errorf("play.SinkOpts = %d options, want the Kafka hooks", len(opts))
	}
	w, err := sink.NewWriter(io.Discard, sink.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.RunStarted(play.Start{Plan: play.Plan{Hits: "hits"}, Stats: w.Stats})
	url := "http://" + s.Addr().String() + "/metrics"
	if resp, err := http.Get(url); err != nil || resp.StatusCode != 200 {
		t.Errorf("GET %s: %v %v", url, resp, err)
	} else {
		resp.Body.Close()
	}
	if err := s.RunEnded(context.Background(), &play.End{}); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(url); err != nil || resp.StatusCode != 200 {
		t.Errorf("GET %s after the run ended, before Close: %v %v", url, resp, err)
	} else {
		resp.Body.Close()
	}
	s.Close(context.Background(), nil)
	if _, err := http.Get(url); err == nil {
		t.Errorf("GET %s after Close: served", url)
	}
}
