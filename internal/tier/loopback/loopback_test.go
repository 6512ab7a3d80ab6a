package loopback

import (
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestBaseFreeOutsideEphemeral asks for 50 bases with a client and a controller offset
// while holding every port returned so far: each must be listenable, in this machine's window
// (outside its ephemeral range when there is room), and none may be one already held.
func TestBaseFreeOutsideEphemeral(t *testing.T) {
	low, high := ephemeralRange()
	from, to := window(low, high, 100)
	fallback := from == lowest && to == 65436
	held := map[int]bool{}
	for range 50 {
		base := Base(t, 0, 100)
		if base < from || base >= to {
			t.Fatalf("base %d outside the window [%d, %d)", base, from, to)
		}
		for _, p := range []int{base, base + 100} {
			if !fallback && p >= low && p <= high {
				t.Fatalf("port %d in the ephemeral range %d–%d", p, low, high)
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

// TestWindow: bases come from below the ephemeral range when it leaves room, from above it
// when only that side does, and from anywhere above lowest when neither does; a base plus
// the largest offset never passes 65535.
func TestWindow(t *testing.T) {
	for _, c := range []struct {
		low, high, span int
		from, to        int
	}{
		{32768, 60999, 0, 20000, 32768},   // Linux's default
		{32768, 60999, 102, 20000, 32666}, // three Kafka nodes: client and controller ports
		{10000, 40000, 2, 40001, 65534},   // a range starting low: above it
		{1024, 65535, 0, 20000, 65536},    // the range takes every port: anywhere
		{20500, 64900, 100, 20000, 65436}, // room on neither side
	} {
		from, to := window(c.low, c.high, c.span)
		if from != c.from || to != c.to {
			t.Errorf("window(%d, %d, %d) = [%d, %d), want [%d, %d)", c.low, c.high, c.span, from, to, c.from, c.to)
		}
	}
}

// TestBaseReservesUntilTheTestEnds: a base handed out (and not listened on, as a killed
// server's port is not) is refused to every other asker while the test that asked runs, in
// this process and in another one (flock(1), as the scripts ask), and free again once that
// test has ended.
func TestBaseReservesUntilTheTestEnds(t *testing.T) {
	var base int
	t.Run("holder", func(t *testing.T) {
		base = Base(t, 0, 100)
		for _, p := range []int{base, base + 100} {
			if held, ok := reserve(p, []int{0}); ok {
				release(held)
				t.Fatalf("port %d reserved again in this process while its test runs", p)
			}
		}
		if _, err := exec.LookPath("flock"); err != nil {
			t.Log("no flock(1): the other process's view is not checked")
			return
		}
		err := exec.Command("flock", "-n", filepath.Join(lockDir, strconv.Itoa(base+100)), "true").Run()
		if err == nil {
			t.Fatalf("port %d: flock(1) took its lock while its test runs", base+100)
		}
	})
	held, ok := reserve(base, []int{0, 100})
	release(held)
	if !ok {
		t.Fatalf("ports %d and %d still reserved after their test ended", base, base+100)
	}
}
