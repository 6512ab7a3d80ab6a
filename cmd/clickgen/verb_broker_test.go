package main

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestBrokerListenRefused (hostile pass on the merged build): a listen address wrong by its
// form is a usage error, exit 2, naming --listen (it was exit 1, "broker: broker: listen
// address ...: bad port", and an empty --listen silently listened on 127.0.0.1:9092); an
// address in use is a failure, exit 1, said once.
func TestBrokerListenRefused(t *testing.T) {
	for _, tc := range []struct{ listen, want string }{
		{"127.0.0.1:99999", `broker: --listen "127.0.0.1:99999": port "99999", want 0 (any free port) to 65535`},
		{"127.0.0.1:-1", `broker: --listen "127.0.0.1:-1": port "-1", want 0 (any free port) to 65535`},
		{"nohostport", `broker: --listen "nohostport": address nohostport: missing port in address`},
		{"", `broker: --listen '': want HOST:PORT (port 0 picks a free port)`},
	} {
		// In the background, bounded: an address taken for the default listened until a signal.
		ctx, cancel := context.WithCancel(context.Background())
		stderr, done := startedRun(ctx, "broker", "--listen", tc.listen)
		var err error
		select {
		case err = <-done:
		case <-time.After(30 * time.Second):
			cancel()
			t.Fatalf("broker --listen %q: still running after 30s, want it refused", tc.listen)
		}
		cancel()
		if code := exitCode(err, io.Discard); code != 2 || err == nil || err.Error() != tc.want {
			t.Errorf("broker --listen %q: exit %d, %v; want exit 2 and %q\n%s", tc.listen, code, err, tc.want, stderr)
		}
	}
	inUse, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer inUse.Close()
	addr := inUse.Addr().String()
	_, errs, code := clickgen(t, "broker", "--listen", addr)
	if code != 1 || !strings.Contains(errs, "clickgen: broker: start on "+addr) || strings.Contains(errs, "broker: broker:") ||
		!strings.Contains(errs, "address already in use") {
		t.Errorf("broker --listen %s in use: exit %d, stderr %q; want exit 1, 'broker: start on %s: ... address already in use' once", addr, code, errs, addr)
	}
}
