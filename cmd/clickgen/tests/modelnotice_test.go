package tests

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestModelWaitHearsSignal: the days a snapshot needs were built deaf to signals (a SIGTERM
// during `snapshot --day 7 --scale 100`'s seven days took 23.5 s to be heard, the days after
// the signal modelled all the same); each is now built within the run's context, and the
// first signal ends the wait with exit 130: no day is modelled after it.
func TestModelWaitHearsSignal(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	if testing.Short() {
		t.Skip("builds the command and models days at scale 100")
	}
	bin := buildClickgen(t)
	p := start(t, bin, "", nil, "snapshot", "--day", "7", "--scale", "100", "--file", os.DevNull)
	p.await(t, "clickgen: modelling day ", 120*time.Second)
	day := modelledDay(p.seen[len(p.seen)-1])
	seen := len(p.seen)
	p.cmd.Process.Signal(syscall.SIGTERM)
	code, errs := p.exit(t, 30*time.Second)
	if code != 130 {
		t.Errorf("SIGTERM while modelling: exit %d, want 130:\n%s", code, errs)
	}
	for _, line := range p.seen[seen:] {
		if d := modelledDay(line); d != "" && d != day {
			t.Errorf("SIGTERM while modelling day %s: day %s was modelled after it:\n%s", day, d, errs)
		}
	}
}

// modelledDay is the day a notice of the model names ("clickgen: modelling day 3…": "3"), ""
// for another line.
func modelledDay(line string) string {
	rest, ok := strings.CutPrefix(line, "clickgen: modelling day ")
	if !ok {
		return ""
	}
	day, _, _ := strings.Cut(rest, ",")
	day, _, _ = strings.Cut(day, ":")
	return day
}
