package loopback

import (
	"net"
	"strconv"
	"testing"
)

// TestBaseFreeAndBelowEphemeral asks for 50 bases with a client and a controller offset
// while holding every port returned so far: each must be listenable, below the ephemeral
// range, and none may be one already held.
func TestBaseFreeAndBelowEphemeral(t *testing.T) {
	top := ephemeralStart()
	held := map[int]bool{}
	for range 50 {
		base := Base(t, 0, 100)
		for _, p := range []int{base, base + 100} {
			if p < lowest || p >= top {
				t.Fatalf("port %d outside [%d, %d)", p, lowest, top)
			}
			if held[p] {
				t.Fatalf("port %d returned while this test listens on it", p)
			}
			l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
			if err != nil {
				t.Fatalf("port %d returned as free: %v", p, err)
			}
			defer l.Close()
			held[p] = true
		}
	}
	if p := Port(t); held[p] {
		t.Fatalf("Port returned %d, which this test listens on", p)
	}
}

// TestFreeSeesATakenOffset holds one port and asks free about it directly and as an offset.
func TestFreeSeesATakenOffset(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	p := l.Addr().(*net.TCPAddr).Port
	if free(p, []int{0}) {
		t.Fatalf("port %d, listened on, called free", p)
	}
	if free(p-100, []int{0, 100}) {
		t.Fatalf("base %d with offset 100 (port %d, listened on) called free", p-100, p)
	}
}
