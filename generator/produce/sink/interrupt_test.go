package sink_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	. "github.com/clickgen/clickgen/generator/produce/sink"
)

// TestCheckConnectInterrupted (issue 29 N10): a connection check that a signal interrupts
// (its context cancelled) says so and how long it had tried, not that the brokers could not
// be reached within the connect timeout (an hour here), and is context.Canceled.
func TestCheckConnectInterrupted(t *testing.T) {
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			select { // accept, never answer
			case accepted <- c:
			default:
				defer c.Close()
			}
		}
	}()
	k := newKafka(t, []string{silent.Addr().String()}, ConnectTimeout(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- k.CheckConnect(ctx) }()
	select {
	case c := <-accepted: // the client is waiting for an answer: the signal comes
		defer c.Close()
		cancel()
	case <-time.After(30 * time.Second):
		t.Fatal("the client never connected")
	}
	select {
	case err := <-done:
		msg := err.Error()
		if !errors.Is(err, context.Canceled) || !strings.Contains(msg, "interrupted after ") || strings.Contains(msg, "within") ||
			!strings.Contains(msg, silent.Addr().String()) {
			t.Errorf("CheckConnect interrupted = %q, want it interrupted after how long, naming the brokers, not 'within 1h'", msg)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("CheckConnect goes on after its context was cancelled")
	}
}

// silentBroker listens on loopback, accepts every connection and never answers: an
// unresponsive broker. accepted hears the first connection.
func silentBroker(t *testing.T) (addr string, accepted <-chan struct{}) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	first := make(chan struct{})
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if conns = append(conns, c); len(conns) == 1 {
				close(first)
			}
		}
	}()
	return l.Addr().String(), first
}

// TestCheckConnectTellsWait (issue 31): brokers that do not answer kept CheckConnect silent for
// the whole connect timeout (10 s), which looked like a hang. A second into the wait it tells
// OnConnectWait's function, once, which brokers it waits for and how long at most; the first
// cancellation still ends the wait at once; brokers that answer are never announced.
func TestCheckConnectTellsWait(t *testing.T) {
	addr, _ := silentBroker(t)
	heard := make(chan ConnectWait, 4)
	k := newKafka(t, []string{addr}, ConnectTimeout(time.Hour), OnConnectWait(func(w ConnectWait) { heard <- w }))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- k.CheckConnect(ctx) }()
	select {
	case w := <-heard:
		if w.Brokers != addr || w.Bound != time.Hour {
			t.Errorf("told %+v, want brokers %s and bound 1h", w, addr)
		}
	case err := <-done:
		t.Fatalf("CheckConnect returned %v before telling its wait", err)
	case <-time.After(30 * time.Second):
		t.Fatal("no notice of the wait within 30s")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("CheckConnect after the notice and a cancellation = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("CheckConnect goes on after its context was cancelled")
	}
	if n := len(heard); n != 0 {
		t.Errorf("the wait was told %d more times, want once", n)
	}

	_, addrs := newCluster(t)
	told := 0
	k = newKafka(t, addrs, OnConnectWait(func(ConnectWait) { told++ }))
	if err := k.CheckConnect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if told != 0 {
		t.Errorf("brokers that answered were announced as a wait %d times", told)
	}
}
