package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataFileWhereReportCannotBe is issue 35's P15: `batch --file` in a place that takes no
// file (a read-only filesystem) exited 1 once the run was planned, where `--report` there
// exited 2 before anything was done. Both are exit 2 before anything is sent, naming their
// flag.
func TestDataFileWhereReportCannotBe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	ro := ""
	for _, d := range []string{dir, "/sys"} {
		if f, err := os.CreateTemp(d, "probe-*"); err == nil {
			f.Close()
			os.Remove(f.Name())
			continue
		}
		ro = d
		break
	}
	if ro == "" {
		t.Skip("no directory here refuses a new file")
	}
	out := filepath.Join(t.TempDir(), "out.jsonl")
	for flag, args := range map[string][]string{
		"--file":   {"--file", filepath.Join(ro, "out.jsonl")},
		"--report": {"--file", out, "--report", filepath.Join(ro, "r.json")},
	} {
		_, errs, code := clickgen(t, append([]string{"batch", "--day", "0", "--limit", "10"}, args...)...)
		if code != 2 || !strings.Contains(errs, flag+" "+ro) || !strings.Contains(errs, "it cannot be written") {
			t.Errorf("%s in %s: exit %d, %s; want exit 2 naming %s", flag, ro, code, errs, flag)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the data file was written although the report could not be")
	}
}
