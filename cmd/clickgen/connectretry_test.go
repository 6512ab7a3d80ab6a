package main

import (
	"context"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// A newcomer runs `clickgen broker --listen 127.0.0.1:9092 &` and at once a verb that
// connects to it: the broker may not listen yet, and the verb failed at once on "connection
// refused". Every verb that connects now asks again within --connect-timeout, says a second
// in what it waits for, and stops at the first signal.

// refusedAddr returns a loopback address nobody listens on (a port handed out and closed
// again): connections to it are refused until someone listens there.
func refusedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// connectingVerbs are the verbs that connect to Kafka, each with the arguments of a short
// run that succeeds against the stand's topics (under the race detector in a smaller world:
// the smoke profile's is small already).
var connectingVerbs = [][]string{
	raceScaled("batch", "--day", "0", "--limit", "20", "--topic", "hits"),
	raceScaled("live", "--day", "0", "--speed", "100000", "--topic", "hits"),
	raceScaled("snapshot", "--day", "1", "--topic", "orders"),
	raceScaled("inject", "--topic", "hits", "--class", "keyset_mismatch"),
	{"run", "smoke"},
	raceScaled("verify", "--day", "0"),
}

// TestConnectRetriedUntilBrokerListens: each verb pointed at a port nobody listens on yet
// waits (saying so a second in) and goes on once a broker listens there; the broker is
// started only after the verb said it waits, so the verb met the refusal first.
func TestConnectRetriedUntilBrokerListens(t *testing.T) {
	for _, args := range connectingVerbs {
		t.Run(args[0], func(t *testing.T) {
			t.Parallel()
			addr := refusedAddr(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stderr, done := startedRun(ctx, append(args, "--brokers", addr, "--connect-timeout", "1h")...)
			awaitLine(t, stderr, "clickgen: waiting for Kafka at "+addr+" to answer, at most 1h0m0s (--connect-timeout; Ctrl-C stops)", time.Minute)
			_, port, _ := net.SplitHostPort(addr)
			p, _ := strconv.Atoi(port)
			c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(p), kfake.SeedTopics(2, "hits"), kfake.SeedTopics(1, "orders"))
			if err != nil {
				t.Fatalf("kfake on %s: %v", addr, err)
			}
			defer c.Close()
			code := ended(t, done, stderr, time.Minute, args[0])
			if args[0] == "verify" {
				// An empty topic is a difference (exit 1) once verify has read it: what
				// matters is that it connected and read, not that it gave up.
				if code != 1 || strings.Contains(stderr.String(), "cannot reach Kafka") || !strings.Contains(stderr.String(), "hits") {
					t.Errorf("verify with a broker listening late: exit %d, want 1 after reading the empty topics\n%s", code, stderr)
				}
				return
			}
			if code != 0 {
				t.Errorf("%s with a broker listening after the refusal: exit %d, want 0\n%s", args[0], code, stderr)
			}
		})
	}
}

// TestConnectRefusedUntilTimeout: a port nobody ever listens on fails after
// --connect-timeout, exit 1, naming the brokers, the timeout and the refusal: that it gave up
// at the timeout, not before, is what "within 1.5s" says (the sink counts the attempts until
// its deadline).
func TestConnectRefusedUntilTimeout(t *testing.T) {
	addr := refusedAddr(t)
	_, stderr, code := clickgen(t, "batch", "--day", "0", "--limit", "20", "--topic", "hits", "--brokers", addr, "--connect-timeout", "1500ms")
	if code != 1 {
		t.Errorf("exit %d, want 1 after the connect timeout of 1.5s\n%s", code, stderr)
	}
	for _, want := range []string{"waiting for Kafka at " + addr, "cannot reach Kafka at " + addr + " within 1.5s", "connection refused"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
}

// TestConnectRefusedInterrupted: the first signal during the retries ends the wait at once
// (the connect timeout is an hour), exit 130, saying where it was interrupted.
func TestConnectRefusedInterrupted(t *testing.T) {
	for _, args := range connectingVerbs {
		t.Run(args[0], func(t *testing.T) {
			t.Parallel()
			addr := refusedAddr(t)
			args := append(args, "--brokers", addr, "--connect-timeout", "1h")
			stderr, err, code := interruptedRun(t, "clickgen: waiting for Kafka at "+addr, args...)
			if code != 130 || err == nil || !strings.HasSuffix(err.Error(), " while reaching Kafka at "+addr+", before anything was sent or read") {
				t.Errorf("exit %d, %v; want 130, interrupted while reaching Kafka\n%s", code, err, stderr)
			}
		})
	}
}
