package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// Issue 29, round four of hostile input: every input is read one way (a size limit, a
// deadline for streams, the first signal ends the wait) and every output path is resolved in
// one place, which refuses an output that is an input or another output.

// started is a clickgen process whose stderr is read line by line.
type started struct {
	cmd   *exec.Cmd
	lines chan string // stderr, closed at its end
	seen  []string
	done  chan error
}

// start runs bin with args (env added to the environment) in dir ("" for the test's).
func start(t *testing.T, bin, dir string, env []string, args ...string) *started {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &started{cmd: cmd, lines: make(chan string, 100), done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
		s.done <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	return s
}

// await waits up to limit for a stderr line containing want, failing the test (and killing
// the process) if the process ends or the time passes first.
func (s *started) await(t *testing.T, want string, limit time.Duration) {
	t.Helper()
	timeout := time.After(limit)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				t.Fatalf("%v ended without saying %q:\n%s", s.cmd.Args[1:], want, strings.Join(s.seen, "\n"))
			}
			s.seen = append(s.seen, line)
			if strings.Contains(line, want) {
				return
			}
		case <-timeout:
			s.cmd.Process.Kill()
			t.Fatalf("%v: no %q within %v:\n%s", s.cmd.Args[1:], want, limit, strings.Join(s.seen, "\n"))
		}
	}
}

// exit waits up to limit for the process to end and returns its exit code and the rest of
// stderr; a process still running then is killed and fails the test.
func (s *started) exit(t *testing.T, limit time.Duration) (int, string) {
	t.Helper()
	timeout := time.After(limit)
	for {
		select {
		case line, ok := <-s.lines:
			if ok {
				s.seen = append(s.seen, line)
				continue
			}
			err := <-s.done
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return ee.ExitCode(), strings.Join(s.seen, "\n")
			}
			return 0, strings.Join(s.seen, "\n")
		case <-timeout:
			s.cmd.Process.Kill()
			t.Fatalf("%v: still running %v later (it needed SIGKILL):\n%s", s.cmd.Args[1:], limit, strings.Join(s.seen, "\n"))
		}
	}
}

// inputSites are the ways a run reads a file, each with path where the file goes: issue 29
// N1's list (--catalog, GENERATOR_CATALOG, --profile-file, plot REPORT, plot --inventory,
// inventory --merge, --tls-ca) and the profile's check (profiles show --profile-file).
func inputSites(path, report string) []struct {
	name string
	env  []string
	args []string
} {
	return []struct {
		name string
		env  []string
		args []string
	}{
		{"--catalog", nil, []string{"inventory", "--day", "0", "--catalog", path}},
		{"GENERATOR_CATALOG", []string{"GENERATOR_CATALOG=" + path}, []string{"batch", "--day", "0", "--file", os.DevNull}},
		{"--profile-file", nil, []string{"run", "--profile-file", path}},
		{"profiles show --profile-file", nil, []string{"profiles", "show", "--profile-file", path}},
		{"plot REPORT", nil, []string{"plot", path}},
		{"plot --inventory", nil, []string{"plot", report, "--inventory", path}},
		{"inventory --merge", nil, []string{"inventory", "--merge", path}},
		{"--tls-ca", nil, []string{"batch", "--day", "0", "--brokers", "127.0.0.1:1", "--topic", "hits", "--tls-ca", path}},
		{"verify --tls-ca", nil, []string{"verify", "--day", "0", "--brokers", "127.0.0.1:1", "--tls-ca", path}},
	}
}

// aReport writes a small run's report and returns its path.
func aReport(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	report := filepath.Join(dir, "r.json")
	if _, errs, code := clickgen(t, "batch", "--day", "0", "--scale", "0.01", "--limit", "10", "--file", filepath.Join(dir, "h.jsonl"), "--report", report); code != 0 {
		t.Fatalf("batch --report: exit %d, %s", code, errs)
	}
	return report
}

// TestFIFOInputsHearSignals is issue 29 N1: a FIFO given where a file is read blocked the
// open for ever and the first SIGTERM or SIGINT was ignored (`timeout 5 clickgen inventory
// --day 0 --catalog fifo` needed SIGKILL). Every input is now opened without blocking; after
// a second the run says what it waits for and how long at most, and the first signal ends it
// with exit 130.
func TestFIFOInputsHearSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := buildClickgen(t)
	report := aReport(t)
	for i, site := range inputSites(filepath.Join(t.TempDir(), "fifo"), report) {
		t.Run(site.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "fifo")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			args := inputSites(fifo, report)[i].args
			env := inputSites(fifo, report)[i].env
			p := start(t, bin, "", env, args...)
			p.await(t, "clickgen: waiting for "+fifo+" (a FIFO) to be written to its end, at most 30s (Ctrl-C stops)", 30*time.Second)
			sig := syscall.SIGTERM
			if i%2 == 1 {
				sig = syscall.SIGINT
			}
			p.cmd.Process.Signal(sig)
			code, errs := p.exit(t, 10*time.Second)
			// The verb says where it was interrupted (issue 31), never a bare "context canceled".
			if code != 130 || !strings.Contains(errs, "interrupted while reading "+fifo) || strings.Contains(errs, "context canceled") {
				t.Errorf("%v after %v: exit %d, stderr:\n%s\nwant exit 130, the read interrupted", args, sig, code, errs)
			}
		})
	}
}

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

// TestEndlessInputsBounded is issue 29 N2: --catalog /dev/zero reached 2.8 GB in 6 s, and
// --merge and --tls-ca had no limit at all (the catalog's applied to regular files only).
// Every input is read one byte past its limit at most, and refused naming the limit; the
// catalog's refusal (the largest limit, 256 MiB) leaves the process under 512 MiB.
func TestEndlessInputsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := buildClickgen(t)
	report := aReport(t)
	want := map[string]string{
		"--catalog":                    "--catalog: read /dev/zero: larger than 256 MiB",
		"GENERATOR_CATALOG":            "--catalog: read /dev/zero: larger than 256 MiB",
		"--profile-file":               "--profile-file /dev/zero: larger than 1 MiB: a profile is a few dozen lines",
		"profiles show --profile-file": "--profile-file /dev/zero: larger than 1 MiB",
		"plot REPORT":                  "read /dev/zero: larger than 256 MiB",
		"plot --inventory":             "read /dev/zero: larger than 64 MiB",
		"inventory --merge":            "--merge: read /dev/zero: larger than 64 MiB",
		"--tls-ca":                     "TLS CA file: read /dev/zero: larger than 1 MiB",
		"verify --tls-ca":              "TLS CA file: read /dev/zero: larger than 1 MiB",
	}
	for _, site := range inputSites("/dev/zero", report) {
		t.Run(site.name, func(t *testing.T) {
			p := start(t, bin, "", site.env, site.args...)
			code, errs := p.exit(t, 60*time.Second)
			if code == 0 || !strings.Contains(errs, want[site.name]) {
				t.Errorf("%v: exit %d, stderr:\n%s\nwant a refusal saying %q", site.args, code, errs, want[site.name])
			}
			if site.name == "--catalog" {
				rss := p.cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
				t.Logf("%s: exit %d, peak resident %d MiB: %s", site.name, code, rss>>20, errs)
				if rss > 512<<20 {
					t.Errorf("--catalog /dev/zero: peak resident %d MiB, want under 512 MiB", rss>>20)
				}
			}
		})
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

// TestCPUProfileIsAnOutput: CLICKGEN_CPUPROFILE is one of a run's outputs. Named as the
// catalog, it was created (truncating the catalog) before the run started; the run is now
// refused with exit 2 and the catalog stays whole.
func TestCPUProfileIsAnOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := buildClickgen(t)
	dir := t.TempDir()
	cat := filepath.Join(dir, "cat.csv")
	os.WriteFile(cat, world.DefaultCatalogCSV, 0o644)
	p := start(t, bin, "", []string{cpuProfileEnv + "=" + cat}, "inventory", "--day", "0", "--scale", "0.01", "--catalog", cat)
	code, errs := p.exit(t, 60*time.Second)
	if code != 2 || !strings.Contains(errs, cpuProfileEnv+" "+cat+": it is the file --catalog "+cat+" reads") {
		t.Errorf("%s as the catalog: exit %d, %s; want exit 2 naming both", cpuProfileEnv, code, errs)
	}
	if b, _ := os.ReadFile(cat); string(b) != string(world.DefaultCatalogCSV) {
		t.Errorf("the catalog now holds %d bytes, want it whole", len(b))
	}
	prof := filepath.Join(dir, "cpu.pprof")
	p = start(t, bin, "", []string{cpuProfileEnv + "=" + prof}, "inventory", "--day", "0", "--scale", "0.01", "--catalog", cat)
	if code, errs := p.exit(t, 60*time.Second); code != 0 {
		t.Fatalf("a profile beside the catalog: exit %d, %s", code, errs)
	}
	if b, err := os.ReadFile(prof); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("the profile: %d bytes, %v; want pprof's gzip", len(b), err)
	}
}
