package sysmem

import "testing"

// TestLimit: an explicit limit below the machine's is the limit, named as explicit; without
// one, some limit of the machine applies (no machine holds 4 EiB); the cgroup and meminfo
// readers read the kernel's spellings.
func TestLimit(t *testing.T) {
	if n, src := Limit(100 << 20); n != 100<<20 || src != Explicit {
		t.Errorf("Limit(100 MiB) = %d, %q; want the explicit limit", n, src)
	}
	if n, src := Limit(0); n <= 0 || n >= 1<<62 || src == "" || src == Explicit {
		t.Errorf("Limit(0) = %d, %q; want a limit of the machine below 4 EiB", n, src)
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
