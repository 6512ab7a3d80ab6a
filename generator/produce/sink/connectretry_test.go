package sink_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// dialFailures is a kgo hook that hands every failed connection attempt to failed, without
// ever blocking the client.
type dialFailures struct{ failed chan error }

func (h dialFailures) OnBrokerConnect(_ kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	if err != nil {
		select {
		case h.failed <- err:
		default:
		}
	}
}

// TestCheckConnectWaitsForListener (issue 29 p3, the newcomer's `clickgen broker &` then
// `clickgen batch`): the connection check failed at once on "connection refused" when the
// broker had not started listening yet. It now asks again within the connect timeout: the
// broker starts listening only after the check's first refused connection, and the check
// succeeds.
func TestCheckConnectWaitsForListener(t *testing.T) {
	addr := closedPort(t)
	h := dialFailures{failed: make(chan error, 1)}
	k := newKafka(t, []string{addr}, ConnectTimeout(time.Minute), Hooks(h))
	done := make(chan error, 1)
	go func() { done <- k.CheckConnect(context.Background()) }()
	select {
	case err := <-h.failed:
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("first connection to %s failed with %v, want it refused", addr, err)
		}
	case err := <-done:
		t.Fatalf("CheckConnect returned %v before any refused connection", err)
	case <-time.After(30 * time.Second):
		t.Fatal("no connection attempt within 30s")
	}
	_, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(p), kfake.SeedTopics(2, "hits"))
	if err != nil {
		t.Fatalf("kfake on %s, refused a moment ago: %v", addr, err)
	}
	defer c.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("CheckConnect with a broker listening after the first refusal = %v, want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("CheckConnect still waits 30s after the broker started listening")
	}
}

// TestCheckConnectRefusedUntilTimeout: brokers nobody ever listens on are asked again and
// again until the connect timeout, and the error names them, the timeout and the refusal.
func TestCheckConnectRefusedUntilTimeout(t *testing.T) {
	addr := closedPort(t)
	const timeout = 400 * time.Millisecond
	k := newKafka(t, []string{addr}, ConnectTimeout(timeout))
	start := time.Now()
	err := k.CheckConnect(context.Background())
	took := time.Since(start)
	var ce *ConnectError
	if !errors.As(err, &ce) {
		t.Fatalf("CheckConnect to %s nobody listens on = %v, want a *ConnectError", addr, err)
	}
	if took < timeout {
		t.Errorf("CheckConnect gave up after %v, want it to keep trying for the connect timeout %v", took, timeout)
	}
	if ce.Interrupted || ce.Attempts < 2 || !errors.Is(err, syscall.ECONNREFUSED) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ConnectError %+v (%v): want not interrupted, at least 2 attempts, the refusal and the deadline", *ce, err)
	}
	msg := err.Error()
	for _, want := range []string{addr, "within 400ms", "attempts", "connection refused"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
}

// TestCheckConnectRefusedInterrupted: a cancellation (Ctrl-C) during the retries ends the
// wait at once, however long the connect timeout, and says it was interrupted.
func TestCheckConnectRefusedInterrupted(t *testing.T) {
	addr := closedPort(t)
	h := dialFailures{failed: make(chan error, 1)}
	k := newKafka(t, []string{addr}, ConnectTimeout(time.Hour), Hooks(h))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- k.CheckConnect(ctx) }()
	select {
	case <-h.failed:
	case err := <-done:
		t.Fatalf("CheckConnect returned %v before any refused connection", err)
	case <-time.After(30 * time.Second):
		t.Fatal("no connection attempt within 30s")
	}
	cancel()
	select {
	case err := <-done:
		var ce *ConnectError
		if !errors.As(err, &ce) || !ce.Interrupted || !errors.Is(err, context.Canceled) {
			t.Errorf("CheckConnect cancelled while refused = %v, want an interrupted *ConnectError wrapping context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("CheckConnect goes on 30s after its context was cancelled")
	}
}

// TestCheckConnectAnswerNotRetried: brokers that answered, even with a refusal, are not asked
// again: a listener that hangs up at once, and a wrong SASL password, fail long before the
// connect timeout of an hour (a retry would last until it), after one attempt.
func TestCheckConnectAnswerNotRetried(t *testing.T) {
	hangup, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hangup.Close()
	go func() {
		for {
			c, err := hangup.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, sasl := newCluster(t, kfake.EnableSASL(), kfake.Superuser("PLAIN", "admin", "right"))
	for _, tc := range []struct {
		name  string
		addrs []string
		opts  []Opt
	}{
		{"hung up", []string{hangup.Addr().String()}, nil},
		{"wrong password", sasl, []Opt{SASL(SASLPlain, "admin", "wrong")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKafka(t, tc.addrs, append(tc.opts, ConnectTimeout(time.Hour))...)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err := k.CheckConnect(ctx)
			if err == nil || ctx.Err() != nil {
				t.Fatalf("CheckConnect = %v (context: %v), want a failure well before the 30s bound", err, ctx.Err())
			}
			var ce *ConnectError
			if errors.As(err, &ce) && ce.Attempts != 1 {
				t.Errorf("asked %d times, want once: %v", ce.Attempts, err)
			}
		})
	}
}
