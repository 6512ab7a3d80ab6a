package sink

import (
	"fmt"
	"sync"
	"time"
)

// ConnectError is [Kafka.CheckConnect]'s failure to reach Brokers: they did not answer within
// Timeout, or ctx ended the wait (Interrupted) after Waited. Err is the last error of the
// attempt; an interrupted one wraps ctx's error (context.Canceled for a signal).
type ConnectError struct {
	Brokers     string
	Timeout     time.Duration
	Waited      time.Duration
	Interrupted bool
	Err         error
}

func (e *ConnectError) Error() string {
	if e.Interrupted {
		return fmt.Sprintf("interrupted after %.2fs while reaching Kafka at %s: %v", e.Waited.Seconds(), e.Brokers, e.Err)
	}
	return fmt.Sprintf("cannot reach Kafka at %s within %v: %v", e.Brokers, e.Timeout, e.Err)
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
