package profiles

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/profiles/internal/sysmem"
)

// Bytes is an amount of memory, parsed from "4GiB", "512MiB", "1.5G" or a plain number of
// bytes (KiB, MiB, GiB, TiB and K, M, G, T are binary; KB, MB, GB, TB decimal). It is a
// pflag.Value and an encoding.TextUnmarshaler, so a flag and a profile hold the same parsed
// value. The zero value is "no limit".
type Bytes int64

// UnmarshalText parses a size; it must be at least one byte.
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
	// !(v*mult >= 1) also refuses NaN, which no comparison holds for: int64(NaN) is
	// unspecified (MinInt64 on amd64, read as "no limit"), as is anything under a byte
	// (0.5 became the zero value, "no limit").
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || !(v*mult >= 1) || math.IsInf(v, 0) || v*mult >= math.MaxInt64 {
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

// MemoryLimit is the most memory a run may need and what sets it, as a caller measured it
// ([MachineLimit]: the smallest of an explicit limit, the address-space limit, the cgroup's
// limit and the system's available memory): [Profile.NewWorld] reads no limit of the machine
// itself, so a program chooses its own. The zero value is no limit.
type MemoryLimit struct {
	Bytes  Bytes
	Source string // which limit: "the explicit limit", "the cgroup's memory limit", "the system's available memory"
	// Explicit says the limit is the caller's own choice (the field memory.limit,
	// [FieldMemoryLimit]), not the machine's: a refusal names it so.
	Explicit bool
}

// Check refuses a run needing need bytes (see world.Footprint.Need) above the limit, as a
// *[MemoryError]. It is meant to run before anything is built or sent: a run that cannot fit
// would otherwise be killed by the kernel mid-way, or die with Go's "out of memory".
func (l MemoryLimit) Check(need int64) error {
	if l.Bytes > 0 && Bytes(need) > l.Bytes {
		return &MemoryError{Need: Bytes(need), Limit: l.Bytes, Source: l.Source, Explicit: l.Explicit}
	}
	return nil
}

// MemoryError is [MemoryLimit.Check]'s refusal: the run needs more than the limit.
type MemoryError struct {
	Need, Limit Bytes
	Source      string // which limit (MemoryLimit.Source)
	Explicit    bool   // the limit is the caller's own (MemoryLimit.Explicit)
}

func (e *MemoryError) Error() string { return e.Say(nil) }

// Say is the refusal with an explicit limit named by names (field memory.limit).
func (e *MemoryError) Say(names field.Names) string {
	source := e.Source
	if e.Explicit {
		source = field.Name(names, FieldMemoryLimit, e.Source)
	}
	return fmt.Sprintf("needs about %s of memory, more than %s (%s)", e.Need, source, e.Limit)
}

// MachineLimit is the memory limit of this process as the machine sets it, and explicit
// (0: none) if it is lower: the smallest of explicit, the address-space limit (ulimit -v),
// the cgroup's memory limit and the system's available memory (internal/sysmem), with which
// it is. It is measured anew at each call: available memory changes.
func MachineLimit(explicit Bytes) MemoryLimit {
	limit, source := sysmem.Limit(int64(explicit))
	return MemoryLimit{Bytes: Bytes(limit), Source: source, Explicit: source == sysmem.Explicit}
}
