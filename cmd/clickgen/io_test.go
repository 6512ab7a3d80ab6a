package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// Issue 29, round four of hostile input: every input is read one way (a size limit, a
// deadline for streams, the first signal ends the wait) and every output path is resolved in
// one place, which refuses an output that is an input or another output.

// TestFIFOInputsAreRead: a FIFO a process writes is read to its end like a file: the world
// of a catalog written into a FIFO is the world of the same catalog in a file.
func TestFIFOInputsAreRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "catalog.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(standCatalog)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Write(data)
			f.Close()
		}
	}()
	viaFIFO := inventoryOf(t, "--day", "0", "--scale", "0.01", "--catalog", fifo)
	viaFile := inventoryOf(t, "--day", "0", "--scale", "0.01", "--catalog", standCatalog)
	if viaFIFO.CatalogSHA256 != viaFile.CatalogSHA256 || viaFIFO.Days[0].SHA256 != viaFile.Days[0].SHA256 {
		t.Errorf("catalog through a FIFO: catalog %s, day 0 %s; through a file: %s, %s", viaFIFO.CatalogSHA256, viaFIFO.Days[0].SHA256, viaFile.CatalogSHA256, viaFile.Days[0].SHA256)
	}
}

// TestOutputClashesRefused is issue 29 N4 and N7: an output that is the same file as another
// output or as an input, however its path is spelt, is a usage error before anything is
// sent. With dl → d1.jsonl and no d1.jsonl yet, `batch --day 0 --limit 500 --file d1.jsonl
// --report dl` exited 0 after 500 acknowledged and d1.jsonl held only the report; the same
// through a dangling data link, a linked directory, /proc/self/cwd and ..; --catalog
// mycat.csv --file mycat.csv overwrote the catalog.
func TestOutputClashesRefused(t *testing.T) {
	catalog, err := os.ReadFile(standCatalog)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir("real", 0o755)
	os.Symlink("real", "sub")
	os.Symlink("d1.jsonl", "dl")
	os.Symlink("d2.jsonl", "dl2")
	os.WriteFile("mycat.csv", catalog, 0o644)
	os.Link("mycat.csv", "hard.csv")
	limit := []string{"batch", "--day", "0", "--scale", "0.01", "--limit", "500"}
	for _, tc := range []struct {
		args    []string
		env     map[string]string
		want    string
		created string // a file that must not exist afterwards
	}{
		{[]string{"--file", "d1.jsonl", "--report", "dl"}, nil, "--report dl: it is the file --file d1.jsonl writes (d1.jsonl)", "d1.jsonl"},
		{[]string{"--file", "dl2", "--report", "d2.jsonl"}, nil, "--report d2.jsonl: it is the file --file dl2 writes (d2.jsonl)", "d2.jsonl"},
		{[]string{"--file", "sub/x.jsonl", "--report", "real/x.jsonl"}, nil, "--report real/x.jsonl: it is the file --file sub/x.jsonl writes", "real/x.jsonl"},
		{[]string{"--file", "d1.jsonl", "--report", "/proc/self/cwd/d1.jsonl"}, nil, "--report /proc/self/cwd/d1.jsonl: it is the file --file d1.jsonl writes", "d1.jsonl"},
		{[]string{"--file", "d3.jsonl", "--report", "sub/../d3.jsonl"}, nil, "--report sub/../d3.jsonl: it is the file --file d3.jsonl writes", "d3.jsonl"},
		{[]string{"--file", filepath.Join(dir, "d4.jsonl"), "--report", "./d4.jsonl"}, nil, "--report ./d4.jsonl: it is the file --file " + filepath.Join(dir, "d4.jsonl") + " writes", "d4.jsonl"},
		{[]string{"--catalog", "mycat.csv", "--file", "mycat.csv"}, nil, "--file mycat.csv: it is the file --catalog mycat.csv reads (mycat.csv): writing it would destroy an input of the run", ""},
		{[]string{"--catalog", "mycat.csv", "--file", "d5.jsonl", "--report", "hard.csv"}, nil, "--report hard.csv: it is the file --catalog mycat.csv reads", "d5.jsonl"},
		{nil, map[string]string{"GENERATOR_CATALOG": "mycat.csv", "GENERATOR_FILE": "./mycat.csv"}, "--file ./mycat.csv: it is the file --catalog mycat.csv reads", ""},
		{[]string{"--file", "real"}, nil, "--file real: it is a directory", ""},
	} {
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		args := append(append([]string{}, limit...), tc.args...)
		_, errs, code := clickgen(t, args...)
		for k := range tc.env {
			t.Setenv(k, "")
		}
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v %v: exit %d, stderr %q; want exit 2 saying %q", tc.env, tc.args, code, errs, tc.want)
		}
		if _, err := os.Stat(tc.created); tc.created != "" && err == nil {
			t.Errorf("%v: %s was written", tc.args, tc.created)
		}
		if b, _ := os.ReadFile("mycat.csv"); string(b) != string(catalog) {
			t.Fatalf("%v %v: the catalog was overwritten", tc.env, tc.args)
		}
	}
	// The run clickgen is for still runs: a report, a data file and a catalog, all distinct.
	if _, errs, code := clickgen(t, append(limit, "--catalog", "mycat.csv", "--file", "d1.jsonl", "--report", "r.json")...); code != 0 {
		t.Errorf("distinct files: exit %d, %s", code, errs)
	}
}

// TestDanglingReportLinkFollowed is issue 29 N8: a dangling --report link was replaced by the
// report. It is followed, as a shell's > follows it: the report is written where the link
// leads, atomically, and the link stays.
func TestDanglingReportLinkFollowed(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "reports"), 0o755)
	link := filepath.Join(dir, "r.json")
	os.Symlink("reports/run.json", link)
	if _, errs, code := clickgen(t, "batch", "--day", "0", "--scale", "0.01", "--limit", "5", "--file", filepath.Join(dir, "h.jsonl"), "--report", link); code != 0 {
		t.Fatalf("exit %d, %s", code, errs)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("--report %s is now %v (%v), want the link kept", link, fi.Mode(), err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "reports", "run.json"))
	if err != nil || !strings.Contains(string(b), `"acked": 5`) {
		t.Errorf("the link's target: %q, %v; want the report of 5 acknowledged messages", b, err)
	}
}

// TestCatalogFileFullDisk is issue 29 N13: `catalog --file` on a full disk left a 0-byte file
// (os.WriteFile truncates first). It writes a temporary file and renames it into place: a full
// disk leaves the previous file whole, nothing new, and exit 1; /dev/full, a device written
// in place, is exit 1 too.
func TestCatalogFileFullDisk(t *testing.T) {
	if _, errs, code := clickgen(t, "catalog", "--file", "/dev/full"); code != 1 || !strings.Contains(errs, "write /dev/full: no space left on device") {
		t.Errorf("catalog --file /dev/full: exit %d, %q; want exit 1, no space left", code, errs)
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("no small file system to fill: mount -t tmpfs needs root (%v: %s)", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	old := filepath.Join(dir, "catalog.csv")
	before := "sku,name,category,brand,price\n"
	os.WriteFile(old, []byte(before), 0o644)
	filler, _ := os.Create(filepath.Join(dir, "filler"))
	for {
		if _, err := filler.Write(make([]byte, 4096)); err != nil {
			break // the disk is full
		}
	}
	filler.Close()
	_, errs, code := clickgen(t, "catalog", "--file", old)
	if code != 1 || !strings.Contains(errs, "no space left on device") {
		t.Errorf("catalog --file on a full disk: exit %d, %q; want exit 1, no space left", code, errs)
	}
	if b, _ := os.ReadFile(old); string(b) != before {
		t.Errorf("after the failed write the catalog holds %d bytes %.40q, want the previous %d", len(b), b, len(before))
	}
	fresh := filepath.Join(dir, "new.csv")
	if _, _, code := clickgen(t, "catalog", "--file", fresh); code != 1 {
		t.Errorf("catalog --file new.csv on a full disk: exit %d, want 1", code)
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Errorf("catalog --file new.csv on a full disk left a file")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the disk holds %d entries, want the catalog and the filler (no temporary file left)", len(entries))
	}
	os.Remove(filepath.Join(dir, "filler"))
	if _, errs, code := clickgen(t, "catalog", "--file", old); code != 0 {
		t.Errorf("catalog --file with room: exit %d, %s", code, errs)
	}
	if b, _ := os.ReadFile(old); string(b) != string(world.DefaultCatalogCSV) {
		t.Errorf("catalog --file wrote %d bytes, want the %d of the embedded catalog", len(b), len(world.DefaultCatalogCSV))
	}
}
