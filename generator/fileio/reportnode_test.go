package fileio

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// specialFiles makes, in a temporary directory, the files issue 24 item 2 saw replaced by a
// report: a character device (a twin of /dev/null, when the test may mknod), a FIFO, a link to
// /proc/self/fd/1 and a link to the device. It returns them by name, with a check that each is
// still what it was.
func specialFiles(t *testing.T) (map[string]string, func(name, path string) bool) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{}
	kinds := map[string]os.FileMode{}
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err == nil {
		files["char device"], kinds["char device"] = null, os.ModeCharDevice
		link := filepath.Join(dir, "to-null")
		os.Symlink(null, link)
		files["link to a char device"], kinds["link to a char device"] = link, os.ModeCharDevice
	} else {
		t.Logf("no character device: mknod: %v (needs root)", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	files["FIFO"], kinds["FIFO"] = fifo, os.ModeNamedPipe
	stdout := filepath.Join(dir, "stdout")
	os.Symlink("/proc/self/fd/1", stdout)
	if st, err := os.Stat(stdout); err == nil && !st.Mode().IsRegular() {
		files["link to /proc/self/fd/1"], kinds["link to /proc/self/fd/1"] = stdout, st.Mode().Type()
	}
	same := func(name, path string) bool {
		st, err := os.Stat(path)
		return err == nil && st.Mode().Type()&kinds[name] != 0
	}
	return files, same
}

// TestReportNeverReplacesSpecialFiles is issue 24 item 2: as root, --report onto a character
// device, a FIFO or a link to /proc/self/fd/1 turned it into a regular file holding the
// report. CheckReport and WriteReport refuse what is not a regular file, and leave it
// as it was; a link to a regular file is followed and the link kept.
func TestReportNeverReplacesSpecialFiles(t *testing.T) {
	files, same := specialFiles(t)
	for name, path := range files {
		if err := CheckReport(path); err == nil || !strings.Contains(err.Error(), "it is not a regular file") {
			t.Errorf("CheckReport(%s) = %v; want it refused as not a regular file", name, err)
		}
		if err := WriteReport(path, map[string]int{"sent": 1}, ReportMeta{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("WriteReport(%s) = %v; want it refused", name, err)
		}
		if !same(name, path) {
			t.Errorf("%s %s was replaced", name, path)
		}
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "real.json")
	os.WriteFile(target, []byte("old\n"), 0o644)
	link := filepath.Join(dir, "link.json")
	os.Symlink("real.json", link)
	if err := CheckReport(link); err != nil {
		t.Errorf("CheckReport(link to a regular file) = %v", err)
	}
	if err := WriteReport(link, map[string]int{"sent": 1}, ReportMeta{}); err != nil {
		t.Fatal(err)
	}
	if lst, err := os.Lstat(link); err != nil || lst.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link %s was replaced (%v)", link, err)
	}
	if b, _ := os.ReadFile(target); !strings.Contains(string(b), `"sent": 1`) {
		t.Errorf("the link's target holds %q; want the report", b)
	}
}
