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
//
// A port handed out stays reserved until the test that asked has ended, in every process on
// the machine: a lock file per port (flock(2), under the temporary directory's
// clickgen-loopback), which Base takes and no other Base call, here or in another test binary,
// hands out while it is held. A server stopped or killed by its test and started again on
// its own ports needs them: a free-looking port of a killed Kafka node was taken by another
// test's server before the node came back (its controller could not bind). The scripts that
// pick ports (.ci/kafka/kafka port, which .ci/image uses) skip a port whose lock is held.
package loopback

import (
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
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
		held, ok := reserve(base, offsets)
		if ok && free(base, offsets) {
			t.Cleanup(func() { release(held) })
			return base
		}
		release(held)
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

// lockDir holds the ports' lock files (the scripts that pick ports read the same folder).
var lockDir = filepath.Join(os.TempDir(), "clickgen-loopback")

// reserve takes the lock of base+o for every o without waiting; ok is false when another
// holder has one of them (what it took is returned still, for release). A lock that cannot
// be made at all (no writable temporary directory) reserves nothing and refuses nothing: the
// ports are then only probed, as before there were locks.
func reserve(base int, offsets []int) (held []*os.File, ok bool) {
	if err := os.MkdirAll(lockDir, 0o777); err != nil {
		return nil, true
	}
	for _, o := range offsets {
		f, err := os.OpenFile(filepath.Join(lockDir, strconv.Itoa(base+o)), os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			continue
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			return held, false
		}
		held = append(held, f)
	}
	return held, true
}

// release gives up the locks reserve took (closing a file drops its flock).
func release(held []*os.File) {
	for _, f := range held {
		f.Close()
	}
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
