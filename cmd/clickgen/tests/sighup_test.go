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
)

// TestSIGHUPEndsLikeSIGTERM is issue 35's P13: SIGHUP (a closed terminal or ssh session, a
// supervisor's stop) ended a run with exit 129 and no summary or report: its default
// disposition killed the process. It ends a run as SIGTERM does: the flush, the summary, the
// report (interrupted, ok false), exit 130.
func TestSIGHUPEndsLikeSIGTERM(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	if testing.Short() {
		t.Skip("builds the command")
	}
	report := filepath.Join(t.TempDir(), "r.json")
	cmd, sc, lines := startSendingStress(t, report)
	cmd.Process.Signal(syscall.SIGHUP)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err := cmd.Wait()
	errs := strings.Join(lines, "\n")
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("after SIGHUP: %v; want exit 130\n%s", err, errs)
	}
	if !strings.Contains(errs, "clickgen: hits: ") {
		t.Errorf("no summary on stderr:\n%s", errs)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("no report after SIGHUP: %v\n%s", err, errs)
	}
	var rep struct {
		Interrupted bool                                   `json:"interrupted"`
		OK          bool                                   `json:"ok"`
		Topics      map[string]struct{ Sent, Acked int64 } `json:"topics"`
	}
	if err := json.Unmarshal(data, &rep); err != nil || !rep.Interrupted || rep.OK || rep.Topics["hits"].Acked == 0 {
		t.Errorf("report %s: %v; want interrupted, not ok, hits acknowledged", data, err)
	}
}
