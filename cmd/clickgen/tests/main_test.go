// Package tests holds the tests of the built command: each runs clickgen as a separate
// process, as a user, a script or the stand's DAG does (its exit code, its signals, its
// stdout and stderr as they leave the process), against files, franz-go's kfake and, in the
// real tiers, Apache Kafka and ClickHouse. The tests of the command's parts (its flag table,
// its help, its wording of the libraries' errors) are package main's.
//
// Every test runs beside the others (t.Parallel): each starts its own processes, brokers and
// servers on ports of its own, and most of their time is waiting on them. So that the real
// tiers' waits overlap, four run at once unless -parallel says otherwise (go test's default is
// GOMAXPROCS, two on the CI machine, which left one lane of five server tests back to back).
package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clickgen/clickgen/internal/cmdtest"
	"github.com/clickgen/clickgen/internal/testenv"
)

// defaultParallel is how many tests run at once unless -parallel says.
const defaultParallel = 4

// TestMain runs the tests (defaultParallel at once unless -parallel says) and says which test
// tiers ran and which were skipped, and why; the command built for them is removed afterwards.
func TestMain(m *testing.M) {
	if file := os.Getenv(peakEnv); file != "" {
		os.Exit(measurePeak(file, os.Args[1:]))
	}
	testenv.DefaultParallel(defaultParallel)
	code := testenv.Main(m)
	built.Remove()
	os.Exit(code)
}

// peakEnv makes the test binary a small parent (measurePeak) instead of running tests.
const peakEnv = "CLICKGEN_TESTS_PEAK_FILE"

// measurePeak runs the command after "--" in args with this process's standard streams and
// environment (less peakEnv), writes its peak resident size in bytes into file, and returns its
// exit code. A child's peak as rusage tells it (ru_maxrss) counts what its parent held when it
// started it: Linux carries the high-water mark of the memory a vfork'd child shares with its
// parent across the exec, and this package's parallel tests hold hundreds of MiB. Started by
// this process, small, the command's peak is its own.
func measurePeak(file string, args []string) int {
	i := slices.Index(args, "--")
	if i < 0 || i+1 >= len(args) {
		fmt.Fprintf(os.Stderr, "%s: want -- COMMAND ARGS...\n", peakEnv)
		return 2
	}
	cmd := exec.Command(args[i+1], args[i+2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, peakEnv+"=") })
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", peakEnv, err)
		return 2
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	if werr := os.WriteFile(file, []byte(strconv.FormatInt(peak, 10)), 0o644); werr != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", peakEnv, werr)
		return 2
	}
	return cmd.ProcessState.ExitCode()
}

// startMeasured is start, with the process started by a small parent (measurePeak), and the
// path of the file where its peak resident size will be once it has ended (peakOf).
func startMeasured(t *testing.T, bin string, env []string, args ...string) (*started, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "peak")
	return start(t, self, "", append(env, peakEnv+"="+file), append([]string{"--", bin}, args...)...), file
}

// peakOf reads the peak resident size, in bytes, that measurePeak wrote into file.
func peakOf(t *testing.T, file string) int64 {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the peak resident size: %v", err)
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		t.Fatalf("the peak resident size %q: %v", b, err)
	}
	return n
}

// built is the command, compiled once per run of the tests.
var built cmdtest.Built

// buildClickgen compiles the command once per test binary run and returns its path.
func buildClickgen(t *testing.T) string {
	t.Helper()
	return built.Path(t)
}

// clickgen runs the built command with args and returns stdout, stderr and the exit code.
func clickgen(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, buildClickgen(t), args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return out.String(), errb.String(), ee.ExitCode()
	case err != nil:
		t.Fatalf("clickgen %q: %v", args, err)
	}
	return out.String(), errb.String(), 0
}
