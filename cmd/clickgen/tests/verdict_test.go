package tests

import (
	"strings"
	"testing"
)

// verdictOnBroker is the real-Kafka case of the verdict: a stress run into the brokers at addr
// with a 2 s warm-up whose thresholds hold exits 0, the same with p99<1us exits 3. The 4 s
// after the warm-up keep rate>=0.9 clear of a slow final flush on a loaded machine (it would
// take 0.4 s to cross it).
func verdictOnBroker(t *testing.T, addr string) {
	for _, tc := range []struct {
		threshold string
		code      int
	}{{"p99<5s", 0}, {"p99<1us", 3}} {
		_, errs, code := clickgen(t, "run", "stress", "--brokers", addr, "--rate", "2000/s", "--duration", "6s", "--scale", "0.05",
			"--warmup", "2s", "--threshold", tc.threshold, "--threshold", "rate>=0.9")
		if code != tc.code {
			t.Errorf("--threshold %s: exit %d, want %d\n%s", tc.threshold, code, tc.code, errs)
		}
		if got := verdicts(errs); len(got) != 2 || got[tc.threshold] != (tc.code == 0) || !got["rate>=0.9"] {
			t.Errorf("--threshold %s: verdicts %v\n%s", tc.threshold, got, errs)
		}
		if !strings.Contains(errs, "clickgen: stress warm-up: 4000 records acked of those due in the first 2s") {
			t.Errorf("stderr lacks the warm-up's line:\n%s", errs)
		}
		for _, l := range strings.Split(errs, "\n") {
			if strings.HasPrefix(l, "clickgen: threshold") || strings.HasPrefix(l, "clickgen: stress warm-up") || strings.HasPrefix(l, "clickgen: stress total") {
				t.Log(l)
			}
		}
	}
}

// TestVerdictIntoBrokers is verdictOnBroker on kfake.
func TestVerdictIntoBrokers(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	_, addr := kfakeCluster(t)
	verdictOnBroker(t, addr)
}
