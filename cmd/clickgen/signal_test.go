package main

import (
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestOnSignalsGap: signals within signalGap of the first are the first's request; one at
// signalGap or later exits at once.
func TestOnSignalsGap(t *testing.T) {
	sigs := make(chan os.Signal)
	var clock atomic.Int64 // nanoseconds after the zero time
	asked := make(chan struct{})
	now := func() time.Time {
		v := time.Duration(clock.Load())
		asked <- struct{}{}
		return time.Time{}.Add(v)
	}
	stopped := make(chan struct{})
	exitedAt := make(chan time.Duration, 1)
	go onSignals(sigs, func() { close(stopped) }, now, func() { exitedAt <- time.Duration(clock.Load()) })
	send := func(after time.Duration) {
		t.Helper()
		clock.Store(int64(after))
		select {
		case sigs <- syscall.SIGTERM:
			<-asked
		case at := <-exitedAt:
			t.Fatalf("exited at once on the signal %v after the first", at)
		case <-time.After(5 * time.Second):
			t.Fatal("onSignals took no signal for 5 s")
		}
	}
	send(0)
	<-stopped
	send(time.Millisecond)
	send(signalGap - time.Millisecond)
	send(signalGap)
	select {
	case at := <-exitedAt:
		if at != signalGap {
			t.Errorf("exited on the signal %v after the first, want %v", at, signalGap)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("a signal %v after the first did not exit", signalGap)
	}
}
