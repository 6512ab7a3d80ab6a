package sink

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"
	"time"
)

// ConnectError is [Kafka.CheckConnect]'s failure to reach Brokers: they did not answer within
// Timeout, or ctx ended the wait (Interrupted) after Waited, after Attempts connections asked
// for (each one refused or unreachable but perhaps the last). Err is the last error; an
// interrupted one wraps ctx's error (context.Canceled for a signal). NoAnswer says the
// timeout ran out on a request rather than on retries of a refused connection, and then
// Accepted whether a broker accepts a TCP connection all the same (a port that accepts and
// never answers); either is said in words, never as a bare "context deadline exceeded".
type ConnectError struct {
	Brokers     string
	Timeout     time.Duration
	Waited      time.Duration
	Attempts    int
	Interrupted bool
	NoAnswer    bool
	Accepted    bool
	Err         error
}

func (e *ConnectError) Error() string {
	switch {
	case e.Interrupted:
		return fmt.Sprintf("interrupted after %.2fs while reaching Kafka at %s%s: %v", e.Waited.Seconds(), e.Brokers, e.tries(), e.Err)
	case e.NoAnswer && e.Accepted:
		return fmt.Sprintf("cannot reach Kafka at %s: it accepted the connection and did not answer within %v: not a Kafka listener "+
			"(TLS spoken on one side only?), or a broker that is stuck", e.Brokers, e.Timeout)
	case e.NoAnswer:
		return fmt.Sprintf("cannot reach Kafka at %s: no connection could be made within %v, nothing answers there (a firewall that drops packets? a wrong address?)",
			e.Brokers, e.Timeout)
	}
	return fmt.Sprintf("cannot reach Kafka at %s within %v%s: %v", e.Brokers, e.Timeout, e.tries(), e.Err)
}

// tries says how many times the brokers were asked, when more than once.
func (e *ConnectError) tries() string {
	if e.Attempts < 2 {
		return ""
	}
	return fmt.Sprintf(" (%d attempts)", e.Attempts)
}

func (e *ConnectError) Unwrap() error { return e.Err }

// ConnectWait is [Kafka.CheckConnect] still waiting for Brokers to answer a second after it
// asked: it waits at most Bound (the connect timeout) in all, or until its context ends.
type ConnectWait struct {
	Brokers string
	Bound   time.Duration
}

// OnConnectWait sets the function [Kafka.CheckConnect] tells, once, that brokers which do not
// answer have kept it waiting for [ConnectNoticeAfter], overriding the default of telling
// nobody: a program says so, so that an unresponsive broker does not look like a hang. It is
// called from a timer's goroutine, before CheckConnect returns, and must return at once.
func OnConnectWait(waiting func(ConnectWait)) Opt {
	return opt(func(c *cfg) { c.onConnectWait = waiting })
}

// ConnectNoticeAfter is how long [Kafka.CheckConnect] waits before it tells [OnConnectWait]'s
// function.
const ConnectNoticeAfter = time.Second

// noticeAfter calls f after d unless the returned stop is called first; stop waits for a
// call under way, so that what f says comes before what follows the wait. A nil f is never
// called.
func noticeAfter(d time.Duration, f func()) (stop func()) {
	if f == nil {
		return func() {}
	}
	var told sync.WaitGroup
	told.Add(1)
	t := time.AfterFunc(d, func() {
		defer told.Done()
		f()
	})
	return func() {
		if t.Stop() {
			told.Done()
		}
		told.Wait()
	}
}

// Between two connection attempts [Kafka.CheckConnect] waits retryFirst, doubling up to
// retryMax (Kafka's own clients back off from 50 ms to 1 s the same way).
const (
	retryFirst = 50 * time.Millisecond
	retryMax   = time.Second
)

// pingUntilReachable pings the brokers until one answers or ctx ends, asking again (after a
// growing pause) only while the last error is a connection nobody accepted ([unreachable]): a
// broker that answered and refused something (TLS, SASL, a request) is not asked again. It
// returns how many times it asked and the last error.
func (k *Kafka) pingUntilReachable(ctx context.Context) (attempts int, err error) {
	pause := retryFirst
	for {
		attempts++
		if err = k.cl.Ping(ctx); err == nil || !unreachable(err) || ctx.Err() != nil {
			return attempts, err
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return attempts, fmt.Errorf("%w (last error: %w)", ctx.Err(), err)
		case <-t.C:
		}
		pause = min(2*pause, retryMax)
	}
}

// unreachable reports whether err is a connection that no broker accepted: refused (nothing
// listens yet), no route to the host or network, or a name not resolved (a container not up
// yet). A TLS or SASL refusal, or a broker that hung up, is an answer, not one of these.
func unreachable(err error) bool {
	var dns *net.DNSError
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EHOSTUNREACH) ||
		errors.Is(err, syscall.ENETUNREACH) || errors.As(err, &dns)
}
