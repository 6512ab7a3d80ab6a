package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReportOntoSpecialFilesRefused is issue 24 item 2 at the command line: --report onto a
// character device (a twin of /dev/null made with mknod), a FIFO or a link to /proc/self/fd/1
// replaced it with a regular file. Each is refused with exit 2 before anything is sent, and
// stays what it was. (The test makes its own nodes; it never touches /dev.)
func TestReportOntoSpecialFilesRefused(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "h.jsonl")
	nodes := map[string]string{"FIFO": filepath.Join(dir, "fifo")}
	if err := syscall.Mkfifo(nodes["FIFO"], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		nodes["character device"] = filepath.Join(dir, "null")
		nodes["link to a character device"] = filepath.Join(dir, "to-null")
		os.Symlink(filepath.Join(dir, "null"), nodes["link to a character device"])
	} else if os.Geteuid() == 0 {
		t.Fatalf("mknod as root: %v", err)
	} else {
		t.Logf("no character device: mknod needs root (%v)", err)
	}
	nodes["link to /proc/self/fd/1"] = filepath.Join(dir, "stdout")
	os.Symlink("/proc/self/fd/1", nodes["link to /proc/self/fd/1"])
	for name, path := range nodes {
		before, err := os.Stat(path)
		if err != nil || before.Mode().IsRegular() {
			continue // stdout of this test is a regular file: nothing to protect
		}
		line := refused(t, data, "it is not a regular file", "batch", "--day", "0", "--limit", "5", "--file", data, "--report", path)
		t.Logf("%s: %s", name, line)
		if after, err := os.Stat(path); err != nil || after.Mode().Type() != before.Mode().Type() {
			t.Errorf("%s %s: now %v (%v), was %v", name, path, after.Mode(), err, before.Mode())
		}
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
