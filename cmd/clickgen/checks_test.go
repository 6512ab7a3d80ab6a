package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyEnvIsAbsent is issue 11 item 3: GENERATOR_DAY= (a template rendering an unset
// variable) is not day 0; GENERATOR_FILE= and KAFKA_BOOTSTRAP_SERVERS= are no sink either.
func TestEmptyEnvIsAbsent(t *testing.T) {
	t.Setenv("GENERATOR_DAY", "")
	_, errs, code := clickgen(t, "batch", "--file", filepath.Join(t.TempDir(), "h.jsonl"), "--limit", "1")
	if code != 2 || !strings.Contains(errs, "--day is required") {
		t.Errorf("GENERATOR_DAY=: exit %d, stderr %q; want exit 2, --day is required", code, errs)
	}
	t.Setenv("GENERATOR_FILE", "")
	t.Setenv("KAFKA_BOOTSTRAP_SERVERS", "")
	_, errs, code = clickgen(t, "batch", "--day", "0", "--limit", "1")
	if code != 2 {
		t.Errorf("GENERATOR_FILE= KAFKA_BOOTSTRAP_SERVERS=: exit %d, stderr %q; want exit 2 (no sink)", code, errs)
	}
}

// TestDaysOutOfRange is issue 11 item 6: days the wire formats cannot carry are usage errors
// (exit 2) naming the last model day; the last day itself plays.
func TestDaysOutOfRange(t *testing.T) {
	for _, args := range [][]string{
		{"batch", "--day", "9223372036854775807"},
		{"batch", "--day", "29105"},
		{"batch", "--day", "29100", "--days", "9223372036854775807"},
		{"inventory", "--day", "29104", "--days", "2"},
		{"snapshot", "--day", "40000"},
	} {
		if args[0] != "inventory" {
			args = append(args, "--file", filepath.Join(t.TempDir(), "x.jsonl"))
		}
		_, errs, code := clickgen(t, args...)
		if code != 2 || !strings.Contains(errs, "the last model day is 29104 (2106-02-06)") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming the last model day", args, code, errs)
		}
	}
	out, errs, code := clickgen(t, "batch", "--day", "29104", "--limit", "3", "--file", "-")
	if code != 0 || !strings.Contains(out, `"UTCEventTime":"2106-02-05T20:`) {
		t.Errorf("day 29104: exit %d, stderr %q, out %.200q; want its events in 2106", code, errs, out)
	}
}

// TestInjectCountBounded is issue 11 item 4: --count 1000000000 asked for 96 GB and crashed
// with exit 2 as if it were a usage error; it now is one, refused before anything is built.
func TestInjectCountBounded(t *testing.T) {
	_, errs, code := clickgen(t, "inject", "--kind", "hits", "--class", "not_an_object", "--count", "1000000000", "--file", filepath.Join(t.TempDir(), "x.jsonl"))
	if code != 2 || !strings.Contains(errs, "--count 1000000000: want 1 to 100000") {
		t.Errorf("inject --count 1000000000: exit %d, stderr %q; want exit 2 naming the bound", code, errs)
	}
}

// TestReportCheckedBeforeSending is issue 11 item 8: an unwritable --report, or a --report
// that is also the --file, is refused with exit 2 before anything is written or sent (it used
// to send everything and then exit 1, and a scheduler's retry duplicated the run).
func TestReportCheckedBeforeSending(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "hits.jsonl")
	for _, tc := range []struct {
		report, want string
	}{
		{filepath.Join(dir, "no-such-dir", "r.json"), "cannot be written"},
		{data, "it is the file --file " + data + " writes"},
		{filepath.Join(dir, ".", "hits.jsonl"), "one output would overwrite the other"},
		{dir, "is a directory"},
	} {
		_, errs, code := clickgen(t, "batch", "--day", "0", "--limit", "5", "--file", data, "--report", tc.report)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("--report %s: exit %d, stderr %q; want exit 2 saying %q", tc.report, code, errs, tc.want)
		}
		if _, err := os.Stat(data); err == nil {
			t.Fatalf("--report %s: the data file was written before the report was checked", tc.report)
		}
	}
	rep := filepath.Join(dir, "r.json")
	if _, errs, code := clickgen(t, "batch", "--day", "0", "--limit", "5", "--file", data, "--report", rep); code != 0 {
		t.Fatalf("a good --report: exit %d, %s", code, errs)
	}
	if b, err := os.ReadFile(rep); err != nil || !strings.HasSuffix(string(b), "}\n") {
		t.Errorf("report %q, %v; want the whole JSON document", b, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// TestIgnoredSinkFlagsRefused is part of issue 11 item 10: flags that were silently ignored.
func TestIgnoredSinkFlagsRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "h.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--file", file, "--linger", "-1s"}, "--linger -1s"},
		{[]string{"--file", file, "--tls"}, "--tls applies to Kafka (--brokers), not to a file (--file)"},
		{[]string{"--brokers", "127.0.0.1:1", "--topic", "hits", "--sasl-user", "u"}, "--sasl-user needs --sasl-mechanism"},
	} {
		_, errs, code := clickgen(t, append([]string{"batch", "--day", "0", "--limit", "1"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestIgnoredCombinationsRefused is part of issue 11 item 10: combinations that were accepted
// and silently meant nothing, or sent one kind into the other kind's topic.
func TestIgnoredCombinationsRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"batch", "--day", "0", "--file", file, "--workers", "-1"}, "--workers -1"},
		{[]string{"batch", "--day", "0", "--file", file, "--garbage-mix", "not_an_object=1"}, "--garbage-mix without --garbage"},
		{[]string{"batch", "--day", "0", "--brokers", "127.0.0.1:1", "--topic", "orders"}, "topic orders is for orders"},
		{[]string{"snapshot", "--day", "1", "--brokers", "127.0.0.1:1", "--topic", "hits"}, "topic hits is for hits"},
		{[]string{"run", "--workers", "-2"}, "--workers -2"},
	} {
		_, errs, code := clickgen(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, errs, tc.want)
		}
	}
	out, _, _ := clickgen(t, "help")
	if !strings.Contains(out, "130 interrupted") {
		t.Errorf("top-level help does not list exit code 130:\n%s", out)
	}
}

// TestMemoryRefusedBeforeSending is issue 11 item 2 (the refusal): a run whose estimated
// memory does not fit under --max-memory, the cgroup limit or the available memory is a usage
// error before anything is built (--scale 1000 drew 24 GB and set off the OOM killer). The
// limit here is --max-memory, standing in for a small container.
func TestMemoryRefusedBeforeSending(t *testing.T) {
	file := filepath.Join(t.TempDir(), "h.jsonl")
	for _, args := range [][]string{
		{"--scale", "2", "--max-memory", "100MiB"},
		{"--scale", "1", "--garbage", "3", "--max-memory", "256MiB"},
		{"--scale", "300", "--max-memory", "4GiB"},
	} {
		_, errs, code := clickgen(t, append([]string{"batch", "--day", "0", "--limit", "10", "--file", file}, args...)...)
		if code != 2 || !strings.Contains(errs, "of memory, more than") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying the memory does not fit", args, code, errs)
		}
		if _, err := os.Stat(file); err == nil {
			t.Fatalf("%v: the data file was created before the memory check", args)
		}
	}
	// A scale beyond any world is refused as out of range before the memory is counted, in
	// run's words as in batch's (it used to be refused for its memory, beyond any machine).
	for _, args := range [][]string{
		{"batch", "--day", "0", "--limit", "10", "--file", file, "--scale", "1000000"},
		{"run", "--scale", "1000000"},
	} {
		if _, errs, code := clickgen(t, args...); code != 2 || !strings.Contains(errs, ": --scale 1e+06: want a factor in (0, 1000]\n") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 refusing the scale as out of range", args, code, errs)
		}
		if _, err := os.Stat(file); err == nil {
			t.Fatalf("%v: the data file was created before the scale check", args)
		}
	}
	if _, errs, code := clickgen(t, "batch", "--day", "0", "--limit", "10", "--file", file, "--max-memory", "1GiB"); code != 0 {
		t.Errorf("scale 1 under --max-memory 1GiB: exit %d, %s", code, errs)
	}
	if _, errs, code := clickgen(t, "batch", "--day", "0", "--file", file, "--max-memory", "lots"); code != 2 || !strings.Contains(errs, "--max-memory") {
		t.Errorf("--max-memory lots: exit %d, %s; want a usage error", code, errs)
	}
	// verify builds the days it expects and inject one day: they are refused too (they
	// used to build whatever --scale asked for).
	for _, args := range [][]string{
		{"verify", "--brokers", "127.0.0.1:1", "--day", "0", "--scale", "100", "--max-memory", "1GiB"},
		{"inject", "--kind", "hits", "--class", "not_an_object", "--file", file, "--scale", "500", "--max-memory", "1GiB"},
	} {
		if _, errs, code := clickgen(t, args...); code != 2 || !strings.Contains(errs, "of memory, more than --max-memory") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying the memory does not fit", args, code, errs)
		}
	}
}

// TestMemoryRefusedUnderUlimit is issue 11 item 2 end to end, with a real memory limit: the
// clickgen binary under `ulimit -v 4 GiB` refuses --scale 300 with exit 2 and a message before
// anything is built (it used to die with Go's "fatal error: out of memory", a stack trace and
// exit 2), and still plays scale 1 under the same limit.
func TestMemoryRefusedUnderUlimit(t *testing.T) {
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
