package tests

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTwoSignalsTogetherAreOneStop is issue 24 Medium 1: GNU timeout signals the child and
// its process group, so one request to stop arrives as two SIGTERMs a moment apart; the
// second was taken for "exit at once" and the flush and the report were lost (3 of 3 times
// with two kill -TERM a millisecond apart). Two signals together now stop the run once:
// exit 130, the summary and the report written.
func TestTwoSignalsTogetherAreOneStop(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	if testing.Short() {
		t.Skip("builds the command")
	}
	report := filepath.Join(t.TempDir(), "r.json")
	cmd, sc, lines := startSendingStress(t, report)
	cmd.Process.Signal(syscall.SIGTERM)
	time.Sleep(time.Millisecond) // the gap of kill -TERM; kill -TERM
	cmd.Process.Signal(syscall.SIGTERM)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err := cmd.Wait()
	errs := strings.Join(lines, "\n")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 || strings.Contains(errs, "second signal") {
		t.Fatalf("after two SIGTERMs 1ms apart: %v; want exit 130 without 'second signal'\n%s", err, errs)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("no report after two SIGTERMs together: %v\n%s", err, errs)
	}
	var rep struct {
		Topics map[string]struct{ Sent, Acked int64 } `json:"topics"`
	}
	if err := json.Unmarshal(data, &rep); err != nil || rep.Topics["hits"].Acked == 0 || rep.Topics["hits"].Acked != rep.Topics["hits"].Sent {
		t.Errorf("report %s: %v, hits %+v; want every sent hit acked (the flush ran)", data, err, rep.Topics["hits"])
	}
	if !strings.Contains(errs, "clickgen: hits: ") {
		t.Errorf("no summary on stderr:\n%s", errs)
	}
}
