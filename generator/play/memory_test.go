package play

import (
	"errors"
	"strings"
	"testing"
)

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Bytes
	}{{"4GiB", 4 << 30}, {"512MiB", 512 << 20}, {"1.5G", 3 << 29}, {"2KB", 2000}, {"100", 100}, {" 3 MiB ", 3 << 20}} {
		var b Bytes
		if err := b.Set(tc.in); err != nil || b != tc.want {
			t.Errorf("Set(%q) = %d, %v; want %d", tc.in, b, err, tc.want)
		}
	}
	for _, bad := range []string{"", "lots", "-1GiB", "0", "1e30TiB", "GiB"} {
		var b Bytes
		if err := b.Set(bad); err == nil {
			t.Errorf("Set(%q) = %d, want an error", bad, b)
		}
	}
	if s := Bytes(3 << 29).String(); s != "1.5 GiB" {
		t.Errorf("String = %q", s)
	}
}

// TestCheckMemory: a need above the explicit limit is refused naming it; one below every
// limit passes; the cgroup and meminfo readers read the kernel's spellings.
func TestCheckMemory(t *testing.T) {
	var me *MemoryError
	if err := CheckMemory(200<<20, 100<<20); !errors.As(err, &me) || me.Source != "the explicit limit" || !strings.Contains(err.Error(), "200 MiB") {
		t.Errorf("CheckMemory(200 MiB, limit 100 MiB) = %v", err)
	}
	if err := CheckMemory(1<<20, 100<<20); err != nil {
		t.Errorf("CheckMemory(1 MiB, limit 100 MiB) = %v", err)
	}
	if err := CheckMemory(1<<62, 0); !errors.As(err, &me) {
		t.Errorf("CheckMemory(4 EiB) = %v, want no machine to fit it", err)
	}
	if got := parseCgroupLimit("max\n"); got != 0 {
		t.Errorf(`cgroup limit "max" = %d, want 0 (none)`, got)
	}
	if got := parseCgroupLimit("536870912\n"); got != 512<<20 {
		t.Errorf("cgroup limit 536870912 = %d", got)
	}
	if got := parseMemAvailable("MemTotal: 100 kB\nMemAvailable:    2048 kB\n"); got != 2<<20 {
		t.Errorf("MemAvailable 2048 kB = %d bytes", got)
	}
}
