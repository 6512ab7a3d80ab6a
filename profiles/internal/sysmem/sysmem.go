// Package sysmem measures how much memory this process may take: the address-space limit
// (ulimit -v), the cgroup's memory limit and the system's available memory. A caller asks it
// (profiles.MachineLimit) before a run is built (profiles.Profile.NewWorld takes the result as
// a value), so that a run that cannot fit is refused instead of being killed by the kernel
// mid-way.
package sysmem

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Explicit is the Source of a limit the caller gave (Limit's explicit).
const Explicit = "the explicit limit"

// Limit is the smallest of explicit (0: none), this process's address-space limit, its
// cgroup's memory limit and the system's available memory, with which of them it is
// (source: [Explicit], "the process's address-space limit (ulimit -v)", "the cgroup's memory
// limit" or "the system's available memory"); 0 and "" when none is known. It is read anew at
// each call: available memory changes.
func Limit(explicit int64) (limit int64, source string) {
	consider := func(n int64, what string) {
		if n > 0 && (limit == 0 || n < limit) {
			limit, source = n, what
		}
	}
	consider(explicit, Explicit)
	consider(addressSpaceLimit(), "the process's address-space limit (ulimit -v)")
	consider(cgroupMemoryLimit(), "the cgroup's memory limit")
	consider(memAvailable(), "the system's available memory")
	return limit, source
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
