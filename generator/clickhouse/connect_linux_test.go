package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"
	"time"
)

// TestConnectTimeout: a server whose accept queue is full (a socket listening with a backlog
// of 0 that never accepts: the kernel drops further SYNs) is a connect TimeoutError within the
// bound, not a hang.
func TestConnectTimeout(t *testing.T) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
	// Fill the queue: the first connection is queued, unaccepted.
	first, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	c := newTestClient(t, "http://"+addr, ConnectTimeout(300*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // the test's own bound
	defer cancel()
	_, err = c.Ping(ctx)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Phase != PhaseConnect || te.Addr != addr {
		t.Fatalf("Ping = %v, want a connect TimeoutError for %s", err, addr)
	}
	t.Log(err)
}
