package tests

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMemoryRefusedUnderUlimit is issue 11 item 2 end to end, with a real memory limit: the
// clickgen binary under `ulimit -v 4 GiB` refuses --scale 300 with exit 2 and a message before
// anything is built (it used to die with Go's "fatal error: out of memory", a stack trace and
// exit 2), and still plays scale 1 under the same limit.
func TestMemoryRefusedUnderUlimit(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildClickgen(t)
	limited := func(args ...string) (string, int) {
		cmd := exec.Command("sh", append([]string{"-c", `ulimit -v 4194304 && exec "$0" "$@"`, bin}, args...)...)
		out, err := cmd.CombinedOutput()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	out, code := limited("batch", "--day", "0", "--scale", "300", "--limit", "10", "--file", os.DevNull)
	if code != 2 || !strings.Contains(out, "address-space limit (ulimit -v) (4.0 GiB)") || strings.Contains(out, "fatal error") {
		t.Errorf("--scale 300 under ulimit -v 4 GiB: exit %d, output %q; want exit 2 naming the limit", code, out)
	}
	if out, code := limited("batch", "--day", "0", "--limit", "10", "--file", os.DevNull); code != 0 {
		t.Errorf("scale 1 under ulimit -v 4 GiB: exit %d, %s", code, out)
	}
}
