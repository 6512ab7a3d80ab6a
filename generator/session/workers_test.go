package session

import (
	"runtime"
	"testing"
)

// TestRenderWorkers: into a file every core renders, Kafka's client keeps one for itself;
// workers asked for are taken as given.
func TestRenderWorkers(t *testing.T) {
	n := runtime.GOMAXPROCS(0)
	if got := renderWorkers(0, false); got != n {
		t.Errorf("renderWorkers(0, no Kafka) = %d, want all %d cores", got, n)
	}
	if got := renderWorkers(0, true); got != max(1, n-1) {
		t.Errorf("renderWorkers(0, Kafka) = %d, want %d", got, max(1, n-1))
	}
	if got := renderWorkers(3, true); got != 3 {
		t.Errorf("renderWorkers(3, Kafka) = %d, want 3 (--workers as given)", got)
	}
}
