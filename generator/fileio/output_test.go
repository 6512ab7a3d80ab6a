package fileio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// chdir makes dir the working directory until the test ends.
func chdir(t *testing.T, dir string) {
	t.Helper()
	old, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(old) })
}

// TestCheckClashes is issue 29 N4 and N7 in the library: every spelling of one file as two
// outputs, or as an output and an input, is one file, whether it exists yet or not. The
// same-file guard used to compare existing files only: with dl → d1.jsonl and no d1.jsonl
// yet, --file d1.jsonl --report dl wrote the report over 500 acknowledged messages.
func TestCheckClashes(t *testing.T) {
	dir := t.TempDir()
	chdir(t, dir)
	os.Mkdir("sub", 0o755)
	os.WriteFile("mycat.csv", []byte("x"), 0o644)
	os.Symlink("d1.jsonl", "dl")                       // dangling: d1.jsonl does not exist
	os.Symlink("d2.jsonl", "dl2")                      // dangling too
	os.Symlink(".", "here")                            // a symbolic link to the directory itself
	os.Symlink("sub/../d3.jsonl", "dl3")               // dangling through a real directory
	os.Symlink("nowhere/x", "dl4")                     // dangling into a missing directory
	os.Link("mycat.csv", "hard.csv")                   // a hard link to the catalog
	os.Symlink(filepath.Join(dir, "mycat.csv"), "abs") // an absolute link to it
	for _, tc := range []struct {
		name string
		uses []Use
		want string // "" for no refusal
	}{
		{"dangling report link to the data file", []Use{Output("--file", "d1.jsonl"), Output("--report", "dl")},
			"--report dl: it is the file --file d1.jsonl writes (d1.jsonl): one output would overwrite the other"},
		{"dangling data link to the report", []Use{Output("--file", "dl2"), Output("--report", "d2.jsonl")},
			"--report d2.jsonl: it is the file --file dl2 writes (d2.jsonl): one output would overwrite the other"},
		{"through a linked directory", []Use{Output("--file", "here/a.jsonl"), Output("--report", "a.jsonl")},
			"--report a.jsonl: it is the file --file here/a.jsonl writes (a.jsonl)"},
		{"through /proc/self/cwd", []Use{Output("--file", "d1.jsonl"), Output("--report", "/proc/self/cwd/d1.jsonl")},
			"--report /proc/self/cwd/d1.jsonl: it is the file --file d1.jsonl writes"},
		{"absolute and relative", []Use{Output("--file", filepath.Join(dir, "x.jsonl")), Output("--report", "./x.jsonl")},
			"--report ./x.jsonl: it is the file --file " + filepath.Join(dir, "x.jsonl") + " writes"},
		{"a dangling link through ..", []Use{Output("--file", "d3.jsonl"), Output("--report", "dl3")},
			"--report dl3: it is the file --file d3.jsonl writes (sub/../d3.jsonl)"},
		{"the catalog as data", []Use{Input("--catalog", "mycat.csv"), Output("--file", "mycat.csv")},
			"--file mycat.csv: it is the file --catalog mycat.csv reads (mycat.csv): writing it would destroy an input of the run"},
		{"a hard link to the catalog", []Use{Input("--catalog", "mycat.csv"), Output("--report", "hard.csv")},
			"--report hard.csv: it is the file --catalog mycat.csv reads"},
		{"an absolute link to the catalog, listed first", []Use{Output("--report", "abs"), Input("--catalog", "mycat.csv")},
			"--report abs: it is the file --catalog mycat.csv reads (" + filepath.Join(dir, "mycat.csv") + ")"},
		{"a directory", []Use{Output("--report", "sub")}, "--report sub: it is a directory"},
		{"a linked directory", []Use{Output("--report", "here")}, "--report here: it is a directory"},
		{"a trailing slash", []Use{Output("--report", "new/")}, "--report new/: ends in a slash: the path of a directory, not of a file"},
		{"a missing directory", []Use{Output("--report", "nowhere/r.json")}, "--report nowhere/r.json: its directory nowhere: no such file or directory"},
		{"a dangling link into a missing directory", []Use{Output("--report", "dl4")}, "--report dl4: its directory nowhere: no such file or directory"},
		{"two devices", []Use{Output("--file", "/dev/null"), Output("CLICKGEN_CPUPROFILE", "/dev/null")}, ""},
		{"two inputs", []Use{Input("--catalog", "mycat.csv"), Input("--profile-file", "hard.csv")}, ""},
		{"different files", []Use{Input("--catalog", "mycat.csv"), Output("--file", "d1.jsonl"), Output("--report", "d2.jsonl")}, ""},
		{"empty paths", []Use{Output("--file", ""), Output("--report", "")}, ""},
	} {
		err := Check(tc.uses...)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: Check = %v, want no refusal", tc.name, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%s: Check = %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := Check(Output("--report", "loop")); err != nil {
		t.Errorf("Check(a new file) = %v", err)
	}
	os.Symlink("loop", "loop")
	if err := Check(Output("--report", "loop")); !errors.Is(err, syscall.ELOOP) {
		t.Errorf("Check(a link to itself) = %v, want ELOOP", err)
	}
}

// TestCheckFileDescriptors: /proc/self/fd/N is the file descriptor's file, as the kernel opens
// it: a data file written through fd 3 and a report named by its path are one file.
func TestCheckFileDescriptors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	alias := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
	err = Check(Output("--file", alias), Output("--report", path))
	var ce *ClashError
	if !errors.As(err, &ce) || ce.File != path {
		t.Errorf("Check(%s and its file) = %v, want a clash on %s", alias, err, path)
	}
	tg, err := Resolve(alias)
	if err != nil || tg.Path != path {
		t.Errorf("Resolve(%s) = %+v, %v; want the file's own path", alias, tg, err)
	}
}

// TestReplaceFollowsDanglingLink is issue 29 N8: a dangling --report link was replaced by the
// report. It is followed: the report is written where it leads, the link stays.
func TestReplaceFollowsDanglingLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "reports", "run.json")
	os.Mkdir(filepath.Join(dir, "reports"), 0o755)
	link := filepath.Join(dir, "r.json")
	os.Symlink("reports/run.json", link)
	if err := CheckReplace(link); err != nil {
		t.Fatalf("CheckReplace(dangling link) = %v", err)
	}
	if err := Replace(link, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link is now %v (%v), want the link kept", fi.Mode(), err)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "{}\n" {
		t.Errorf("the link's target holds %q (%v), want the report", b, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "reports")); len(entries) != 1 {
		t.Errorf("reports/ holds %d entries, want the report alone (no temporary file left)", len(entries))
	}
	os.Chmod(target, 0o600)
	Replace(link, []byte("[]\n"))
	if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("a replaced file has mode %v (%v), want its own 0600 kept", fi.Mode(), err)
	}
}

// TestReplaceRefusesNodes: a device, a FIFO or a directory is not replaced by a regular file
// (as root, --report /dev/null replaced the host's /dev/null); WriteFile writes into a
// device in place.
func TestReplaceRefusesNodes(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o644)
	for path, want := range map[string]string{
		fifo:        "it is not a regular file (a FIFO)",
		"/dev/null": "it is not a regular file (a character device)",
		dir:         "it is a directory",
	} {
		if err := CheckReplace(path); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("CheckReplace(%s) = %v, want %q", path, err, want)
		}
		if err := Replace(path, []byte("x")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Replace(%s) = %v, want %q", path, err, want)
		}
	}
	if fi, err := os.Stat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v (%v)", fi.Mode(), err)
	}
	if err := WriteFile("/dev/null", []byte("x")); err != nil {
		t.Errorf("WriteFile(/dev/null) = %v", err)
	}
	if err := WriteFile("/dev/full", []byte("x")); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("WriteFile(/dev/full) = %v, want ENOSPC", err)
	}
	if err := WriteFile(fifo, []byte("x")); err == nil || err.Error() != "write "+fifo+": a FIFO no process reads" {
		t.Errorf("WriteFile(a FIFO nobody reads) = %v", err)
	}
}

// TestReplaceFullDisk is issue 29 N13 in the library: on a full file system the previous file
// stays whole (and no temporary file is left); a new file is not created at all. It needs a
// small tmpfs, which only root can mount.
func TestReplaceFullDisk(t *testing.T) {
	dir := smallDisk(t, 64<<10)
	path := filepath.Join(dir, "catalog.csv")
	before := []byte("sku,name\n")
	if err := Replace(path, before); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 128<<10)
	err := Replace(path, big)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Replace(128 KiB on a 64 KiB disk) = %v, want ENOSPC", err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(before) {
		t.Errorf("after the failed write the file holds %d bytes, want the previous %d", len(b), len(before))
	}
	fresh := filepath.Join(dir, "new.csv")
	if err := Replace(fresh, big); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("Replace(a new file, full disk) = %v, want ENOSPC", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the disk holds %d entries, want the previous file alone", len(entries))
	}
}

// smallDisk mounts a tmpfs of size bytes until the test ends, or skips the test saying why
// when mounting is not permitted.
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("no small file system to fill: mount -t tmpfs needs root (%v: %s)", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}
