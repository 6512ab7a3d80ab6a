package fileio

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// unwritableDir returns a directory that refuses new files: a read-only one when the test is
// not root, else /sys (sysfs takes no file, even from root); the test is skipped when
// neither refuses one.
func unwritableDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, "/sys"} {
		if f, err := os.CreateTemp(d, "probe-*"); err == nil {
			f.Close()
			os.Remove(f.Name())
			continue
		}
		return d
	}
	t.Skip("no directory here refuses a new file")
	return ""
}

// TestCheckWrite: a data file that cannot be written (a directory that takes no file, as a
// read-only filesystem is) is refused before anything is written, as CheckReplace refuses a
// report there; an existing file is checked without changing a byte of it, a FIFO is left to
// its opening, a directory is refused.
func TestCheckWrite(t *testing.T) {
	if err := CheckWrite(filepath.Join(unwritableDir(t), "out.jsonl")); err == nil || !strings.HasPrefix(err.Error(), "it cannot be written: ") {
		t.Errorf("CheckWrite in a directory that takes no file = %v; want refused", err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "kept.jsonl")
	os.WriteFile(file, []byte("kept\n"), 0o644)
	if err := CheckWrite(file); err != nil {
		t.Errorf("CheckWrite(an existing file) = %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "kept\n" {
		t.Errorf("CheckWrite changed the file: %q", b)
	}
	if err := CheckWrite(filepath.Join(dir, "new.jsonl")); err != nil {
		t.Errorf("CheckWrite(a new file) = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("CheckWrite left files behind: %v", entries)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err == nil {
		if err := CheckWrite(fifo); err != nil {
			t.Errorf("CheckWrite(a FIFO) = %v; want it left to its opening", err)
		}
	}
	if err := CheckWrite(dir); err == nil {
		t.Error("CheckWrite(a directory) passed")
	}
}
