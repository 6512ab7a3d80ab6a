package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clickgen/clickgen/generator/world"
)

// envSet reports whether the environment variable name is set to something. An empty value
// counts as absent: a scheduler template that renders an unset variable as "" must not make
// GENERATOR_DAY= mean day 0 and replay (duplicate) it.
func envSet(name string) bool { return os.Getenv(name) != "" }

// checkDays refuses model days the wire formats cannot carry (see [world.MaxDay]) as a usage
// error: --day 9223372036854775807 used to exit 0 having sent nothing, and from day 29 105 on
// UTCEventTime wrapped to 1970.
func checkDays(verb string, from, n int) error {
	if err := world.CheckDays(from, n); err != nil {
		return usagef(verb, "--day/--days: %v", err)
	}
	return nil
}

// checkSinkFlags refuses the sink settings that were silently ignored or meant nothing, and
// checks the outputs before anything is sent: the report must be writable and must not be
// the data file (--report X --file X overwrote the data with the report), and an unwritable
// report must not be found only after a day was sent (a scheduler then retries and
// duplicates the run).
func checkSinkFlags(verb string, sf *sinkFlags) error {
	switch {
	case sf.linger < 0:
		return usagef(verb, "--linger %v: want 0 or more", sf.linger)
	case sf.file != "" && (sf.tls || sf.tlsCA != "" || sf.tlsCert != "" || sf.saslMechanism != "" || sf.saslUser != ""):
		return usagef(verb, "TLS and SASL flags apply to --brokers, not --file")
	case sf.saslUser != "" && sf.saslMechanism == "":
		return usagef(verb, "--sasl-user needs --sasl-mechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)")
	}
	return checkReportPath(verb, sf.report, sf.file)
}

// checkReportPath checks that report (if set) can be written and is not data.
func checkReportPath(verb, report, data string) error {
	if report == "" {
		return nil
	}
	if report == "-" {
		return usagef(verb, "--report -: the report is a file; give a path")
	}
	if data != "" && data != "-" && samePath(report, data) {
		return usagef(verb, "--report %s is also --file: the report would overwrite the data", report)
	}
	if st, err := os.Stat(report); err == nil && st.IsDir() {
		return usagef(verb, "--report %s is a directory", report)
	}
	f, err := os.CreateTemp(filepath.Dir(report), ".clickgen-report-check-*")
	if err != nil {
		return usagef(verb, "--report %s cannot be written: %v", report, errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// samePath reports whether a and b name the same file: the same cleaned absolute path, or
// the same existing file (links).
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == bb {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// writeFileAtomic writes data to path through a temporary file in the same directory and a
// rename, so a full disk or a crash leaves the old file or none, never a truncated one.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// checkTopicKind refuses to send one kind into the other kind's topic: batch --topic orders
// put hits into the orders topic, where the stand's intake reads every one as garbage.
func checkTopicKind(verb, topic, kind string) error {
	for _, other := range []string{world.KindHits, world.KindOrders} {
		if other != kind && topic == other {
			return usagef(verb, "--topic %s: %s sends %s, and topic %s is for %s", topic, verb, kind, topic, other)
		}
	}
	return nil
}

// checkMemory refuses, before anything is built or sent, a run whose estimated memory
// ([world.MemoryNeeded]) does not fit under the smallest of --max-memory, the cgroup's memory
// limit and the system's available memory. --scale 1000 used to draw 24 GB and set off the
// OOM killer; under a ulimit it died with "fatal error: out of memory" and exit 2, the code
// that promises nothing was sent. maxMemory is --max-memory ("" for none).
func checkMemory(verb string, scale float64, g world.Garbage, maxMemory string) error {
	need := world.MemoryNeeded(scale, g)
	limit, from := int64(0), ""
	consider := func(n int64, what string) {
		if n > 0 && (limit == 0 || n < limit) {
			limit, from = n, what
		}
	}
	if maxMemory != "" {
		n, err := parseBytes(maxMemory)
		if err != nil {
			return usagef(verb, "--max-memory %q: %v", maxMemory, err)
		}
		consider(n, "--max-memory")
	}
	consider(cgroupMemoryLimit(), "the cgroup's memory limit")
	consider(memAvailable(), "the system's available memory")
	if limit > 0 && need > limit {
		return usagef(verb, "--scale %v%s needs about %s of memory, more than %s (%s): lower --scale or --garbage, or raise --max-memory",
			scale, garbageNote(g), formatBytes(need), from, formatBytes(limit))
	}
	return nil
}

func garbageNote(g world.Garbage) string {
	if g.Rate == 0 && g.Redeliver == 0 {
		return ""
	}
	return fmt.Sprintf(" with --garbage %v --redeliver %v", g.Rate, g.Redeliver)
}

// parseBytes reads a size: a number of bytes, or a number with a unit (KiB, MiB, GiB, TiB
// or KB, MB, GB, TB, or K, M, G, T meaning the binary units).
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}}
	num, mult := strings.TrimSpace(s), 1.0
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 || math.IsInf(v, 0) || v*mult >= math.MaxInt64 {
		return 0, errors.New("want a positive size such as 4GiB or 512MiB")
	}
	return int64(v * mult), nil
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
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
