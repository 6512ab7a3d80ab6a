// Package loopback finds free ports on 127.0.0.1 for the servers that the test tiers start
// as separate processes (real Kafka, real ClickHouse, the commands of the docs).
//
// A port is free only when asked, and such a server binds it seconds later. The ports are
// therefore taken outside Linux's ephemeral range (net.ipv4.ip_local_port_range, 32768–60999
// by default), below it where there is room: the kernel hands ports of that range to every
// outgoing connection on the machine, and with tests opening connections all the time one of
// them took a broker's port between the probe and the bind. Outside the range only another
// test's probe can pick the same port; the callers that start servers also retry on "Address
// already in use".
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

// lowest is the first port tried, above the ports services usually take.
const lowest = 20000

// Base returns a port p such that p+o is free on 127.0.0.1 for every offset o (none means
// p alone), outside the ephemeral range when there is room for it. It fails t when 100 tries
// find none.
func Base(t testing.TB, offsets ...int) int {
	t.Helper()
	if len(offsets) == 0 {
		offsets = []int{0}
	}
	low, high := ephemeralRange()
	from, to := window(low, high, slices.Max(offsets))
	for range 100 {
		base := from + rand.IntN(to-from)
		if free(base, offsets) {
			return base
		}
	}
	t.Fatalf("loopback: no free ports with offsets %v between %d and %d", offsets, from, to)
	return 0
}

// window is where bases are drawn from, [from, to), for offsets up to span, given the
// ephemeral range [low, high]: below the range, else above it, else (a range that takes
// nearly every port, as some containers set) anywhere from lowest, where only the callers'
// retry on a taken port helps.
func window(low, high, span int) (from, to int) {
	switch {
	case low-span-lowest >= 1000:
		return lowest, low - span
	case 65535-span-high >= 1000:
		return high + 1, 65536 - span
	}
	return lowest, 65536 - span
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

// ephemeralRange is the kernel's ephemeral port range, 32768–60999 (Linux's default) when it
// cannot be read.
func ephemeralRange() (low, high int) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768, 60999
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 32768, 60999
	}
	low, err1 := strconv.Atoi(f[0])
	high, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || low <= 0 || high < low || high > 65535 {
		return 32768, 60999
	}
	return low, high
}
