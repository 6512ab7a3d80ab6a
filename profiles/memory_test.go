package profiles

import (
	"errors"
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
	// NaN passed every comparison and became "no limit", as did sizes under a byte.
	for _, bad := range []string{"", "lots", "-1GiB", "0", "1e30TiB", "GiB", "NaN", "nanGiB", "-NaN", "0.5", "1e-12GiB", "Inf", "+InfKiB"} {
		var b Bytes
		if err := b.Set(bad); err == nil {
			t.Errorf("Set(%q) = %d, want an error", bad, b)
		}
	}
	if s := Bytes(3 << 29).String(); s != "1.5 GiB" {
		t.Errorf("String = %q", s)
	}
}

// TestMemoryLimitCheck: a need above the limit is refused naming the limit's source and both
// sizes; one below it passes; the zero limit is none.
func TestMemoryLimitCheck(t *testing.T) {
	var me *MemoryError
	l := MemoryLimit{Bytes: 100 << 20, Source: "the explicit limit"}
	if err := l.Check(200 << 20); !errors.As(err, &me) || me.Source != "the explicit limit" ||
		err.Error() != "needs about 200 MiB of memory, more than the explicit limit (100 MiB)" {
		t.Errorf("Check(200 MiB) under 100 MiB = %v", err)
	}
	if err := l.Check(1 << 20); err != nil {
		t.Errorf("Check(1 MiB) under 100 MiB = %v", err)
	}
	if err := (MemoryLimit{}).Check(1 << 62); err != nil {
		t.Errorf("the zero limit refused 4 EiB: %v", err)
	}
}
