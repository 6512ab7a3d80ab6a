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
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/clickgen/clickgen/internal/testenv"
)

// defaultParallel is how many tests run at once unless -parallel says.
const defaultParallel = 4

// TestMain runs the tests (defaultParallel at once unless -parallel says) and says which test
// tiers ran and which were skipped, and why; the command built for them is removed afterwards.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		flag.Set("test.parallel", strconv.Itoa(defaultParallel))
	}
	code := testenv.Main(m)
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// built is the command, compiled once per run of the tests.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
	out  []byte
}

// buildClickgen compiles the command once per test binary run and returns its path.
func buildClickgen(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "clickgen-tests-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "clickgen")
		built.out, built.err = exec.Command("go", "build", "-o", built.bin, "..").CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.bin
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
