package main

import (
	"strings"
	"testing"
)

// TestWarmupAsLongAsTheRun is issue 35's P14: a warm-up covering the whole run measured
// everything apart and judged the thresholds on nothing ("the run has no target rate"). Only
// one as long as --duration was refused; a rate shape that ends by itself (steps down to 0/s)
// and --messages at a rate end the run too, and a warm-up as long as that is exit 2 before
// anything is sent.
func TestWarmupAsLongAsTheRun(t *testing.T) {
	for _, args := range [][]string{
		{"--rate", "steps:1000/s@2s,0/s@1s", "--warmup", "2s"},
		{"--rate", "1000/s", "--messages", "3000", "--warmup", "3s"},
		{"--rate", "1000/s", "--messages", "3000", "--warmup", "1h", "--duration", "2h"},
	} {
		_, errs, code := clickgen(t, append([]string{"run", "stress"}, args...)...)
		if code != 2 || !strings.Contains(errs, "is not shorter than the run") || !strings.Contains(errs, "nothing would be measured after it") {
			t.Errorf("run stress %q: exit %d, %s; want exit 2, the warm-up refused", args, code, errs)
		}
	}
}
