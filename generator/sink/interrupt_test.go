package sink_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	. "github.com/clickgen/clickgen/generator/sink"
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
