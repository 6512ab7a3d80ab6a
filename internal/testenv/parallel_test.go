package testenv

import (
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// parallelProbeEnv makes the test binary print the -parallel its tests would run with after
// DefaultParallel(4), instead of running them.
const parallelProbeEnv = "CLICKGEN_TESTENV_PARALLEL_PROBE"

func TestMain(m *testing.M) {
	if os.Getenv(parallelProbeEnv) != "" {
		DefaultParallel(4)
		flag.Parse()
		os.Stdout.WriteString(flag.Lookup("test.parallel").Value.String())
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestDefaultParallel: DefaultParallel's n is the -parallel of a run that gives none, and a
// -parallel given on the command line (as go test passes its own on) wins over it.
func TestDefaultParallel(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "4"},
		{[]string{"-test.parallel=7"}, "7"},
		{[]string{"-test.v", "-test.parallel", "1"}, "1"},
	} {
		cmd := exec.Command(self, tc.args...)
		cmd.Env = append(os.Environ(), parallelProbeEnv+"=1")
		out, err := cmd.Output()
		if got := strings.TrimSpace(string(out)); err != nil || got != tc.want {
			t.Errorf("arguments %q: -parallel %q (%v), want %s", tc.args, got, err, tc.want)
		}
	}
}
