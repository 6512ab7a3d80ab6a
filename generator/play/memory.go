package play

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Bytes is an amount of memory, parsed from "4GiB", "512MiB", "1.5G" or a plain number of
// bytes (KiB, MiB, GiB, TiB and K, M, G, T are binary; KB, MB, GB, TB decimal). It is a
// pflag.Value and an encoding.TextUnmarshaler, so a flag and a profile hold the same parsed
// value. The zero value is "no limit".
type Bytes int64

// UnmarshalText parses a size; it must be positive.
func (b *Bytes) UnmarshalText(text []byte) error {
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}}
	num, mult := strings.TrimSpace(string(text)), 1.0
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) || v*mult >= math.MaxInt64 {
		return fmt.Errorf("%q: want a positive size such as 4GiB or 512MiB", text)
	}
	*b = Bytes(v * mult)
	return nil
}

// MarshalText writes the size as String does.
func (b Bytes) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// String is the size in the largest binary unit that keeps it readable ("1.5 GiB").
func (b Bytes) String() string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", int64(b))
}

// Set is pflag.Value's parse.
func (b *Bytes) Set(s string) error { return b.UnmarshalText([]byte(s)) }

// Type names the flag's value in help.
func (b *Bytes) Type() string { return "size" }

// MemoryError is CheckMemory's refusal: the run needs more than the smallest limit.
type MemoryError struct {
	Need, Limit Bytes
	Source      string // which limit: "the explicit limit", "the cgroup's memory limit", "the system's available memory"
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("needs about %s of memory, more than %s (%s)", e.Need, e.Source, e.Limit)
}

// CheckMemory says whether a run needing need bytes (see world.MemoryNeeded) fits under the
// smallest of max (0: none), this process's cgroup memory limit and the system's available
// memory. It is meant to run before anything is built or sent: a run that cannot fit would
// otherwise be killed by the kernel mid-way, or die with Go's "out of memory".
func CheckMemory(need int64, max Bytes) error {
	limit, from := Bytes(0), ""
	consider := func(n Bytes, what string) {
		if n > 0 && (limit == 0 || n < limit) {
			limit, from = n, what
		}
	}
	consider(max, "the explicit limit")
	consider(Bytes(addressSpaceLimit()), "the process's address-space limit (ulimit -v)")
	consider(Bytes(cgroupMemoryLimit()), "the cgroup's memory limit")
	consider(Bytes(memAvailable()), "the system's available memory")
	if limit > 0 && Bytes(need) > limit {
		return &MemoryError{Need: Bytes(need), Limit: limit, Source: from}
	}
	return nil
}

// addressSpaceLimit returns this process's RLIMIT_AS (ulimit -v), 0 when unlimited. Go maps
// more address space than it keeps resident, so a run that fits under this still may not,
// but one that needs more surely dies with "fatal error: out of memory".
func addressSpaceLimit() int64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil || rl.Cur >= 1<<62 { // RLIM_INFINITY is all ones
		return 0
	}
	return int64(rl.Cur)
}

// cgroupMemoryLimit returns the memory limit of this process's cgroup (v2 memory.max, or v1
// memory.limit_in_bytes), 0 when there is none or it cannot be read.
func cgroupMemoryLimit() int64 {
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		return parseCgroupLimit(string(b))
	}
	return 0
}

// parseCgroupLimit reads a cgroup memory limit file: "max" or a huge v1 value mean none.
func parseCgroupLimit(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 || n >= 1<<60 {
		return 0
	}
	return n
}

// memAvailable returns /proc/meminfo's MemAvailable in bytes, 0 when unknown.
func memAvailable() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	return parseMemAvailable(string(b))
}

func parseMemAvailable(meminfo string) int64 {
	for _, line := range strings.Split(meminfo, "\n") {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return n << 10
				}
			}
		}
	}
	return 0
}
