package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
