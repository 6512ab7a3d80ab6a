package tests

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestModelWaitHearsSignal: the days a snapshot needs were built deaf to signals (a SIGTERM
// during `snapshot --day 7 --scale 100`'s seven days took 23.5 s to be heard); each is now
// built within the run's context, and the first signal ends the wait with exit 130.
func TestModelWaitHearsSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and models days at scale 100")
	}
	bin := buildClickgen(t)
	p := start(t, bin, "", nil, "snapshot", "--day", "7", "--scale", "100", "--file", os.DevNull)
	p.await(t, "clickgen: modelling day ", 120*time.Second)
	sent := time.Now()
	p.cmd.Process.Signal(syscall.SIGTERM)
	code, errs := p.exit(t, 30*time.Second)
	if code != 130 {
		t.Errorf("SIGTERM while modelling: exit %d, want 130:\n%s", code, errs)
	}
	if took := time.Since(sent); took > 5*time.Second {
		t.Errorf("SIGTERM while modelling was heard %v later, want at once:\n%s", took, errs)
	}
}
