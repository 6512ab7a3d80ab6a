// Package loopback finds free ports on 127.0.0.1 for the servers that the test tiers start
// as separate processes (real Kafka, real ClickHouse, the commands of the docs).
//
// A port is free only when asked, and such a server binds it seconds later. The ports are
// therefore taken below Linux's ephemeral range (net.ipv4.ip_local_port_range, 32768… by
// default): the kernel hands ports of that range to every outgoing connection on the machine,
// and with tests opening connections all the time one of them took a broker's port between
// the probe and the bind. Below the range only another test's probe can pick the same port; the
// callers that start servers also retry on "Address already in use".
package loopback

import (
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// lowest is the first port tried.
const lowest = 20000

// Base returns a port p such that p+o is free on 127.0.0.1 for every offset o (none means
// p alone) and below the ephemeral range. It fails t when 100 tries find none.
func Base(t testing.TB, offsets ...int) int {
	t.Helper()
	if len(offsets) == 0 {
		offsets = []int{0}
	}
	top := ephemeralStart() - slices.Max(offsets)
	if top <= lowest {
		t.Fatalf("loopback: the ephemeral ports start at %d, too low for ports from %d with offsets %v", ephemeralStart(), lowest, offsets)
	}
	for range 100 {
		base := lowest + rand.IntN(top-lowest)
		if free(base, offsets) {
			return base
		}
	}
	t.Fatalf("loopback: no free ports with offsets %v between %d and %d", offsets, lowest, top)
	return 0
}

// Port is one free port, Base with no offsets.
func Port(t testing.TB) int {
	t.Helper()
	return Base(t)
}

// free says whether base+o can be listened on for every o.
func free(base int, offsets []int) bool {
	for _, o := range offsets {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(base+o)))
		if err != nil {
			return false
		}
		l.Close()
	}
	return true
}

// ephemeralStart is the first port of the kernel's ephemeral range, 32768 when it cannot be
// read.
func ephemeralStart() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 32768
	}
	p, err := strconv.Atoi(f[0])
	if err != nil || p <= 0 {
		return 32768
	}
	return p
}
