package tests

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// TestFIFOInputsHearSignals is issue 29 N1: a FIFO given where a file is read blocked the
// open for ever and the first SIGTERM or SIGINT was ignored (`timeout 5 clickgen inventory
// --day 0 --catalog fifo` needed SIGKILL). Every input is now opened without blocking; after
// a second the run says what it waits for and how long at most, and the first signal ends it
// with exit 130.
func TestFIFOInputsHearSignals(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
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

// TestEndlessInputsBounded is issue 29 N2: --catalog /dev/zero reached 2.8 GB in 6 s, and
// --merge and --tls-ca had no limit at all (the catalog's applied to regular files only).
// Every input is read one byte past its limit at most, and refused naming the limit; the
// catalog's refusal (the largest limit, 256 MiB) leaves the process under 512 MiB.
func TestEndlessInputsBounded(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
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
			p, peak := startMeasured(t, bin, site.env, site.args...)
			code, errs := p.exit(t, 60*time.Second)
			if code == 0 || !strings.Contains(errs, want[site.name]) {
				t.Errorf("%v: exit %d, stderr:\n%s\nwant a refusal saying %q", site.args, code, errs, want[site.name])
			}
			if site.name == "--catalog" {
				rss := peakOf(t, peak)
				t.Logf("%s: exit %d, peak resident %d MiB: %s", site.name, code, rss>>20, errs)
				if rss > 512<<20 {
					t.Errorf("--catalog /dev/zero: peak resident %d MiB, want under 512 MiB", rss>>20)
				}
			}
		})
	}
}

// TestCPUProfileIsAnOutput: CLICKGEN_CPUPROFILE is one of a run's outputs. Named as the
// catalog, it was created (truncating the catalog) before the run started; the run is now
// refused with exit 2 and the catalog stays whole.
func TestCPUProfileIsAnOutput(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := buildClickgen(t)
	dir := t.TempDir()
	cat := filepath.Join(dir, "cat.csv")
	os.WriteFile(cat, world.DefaultCatalogCSV, 0o644)
	p := start(t, bin, "", []string{"CLICKGEN_CPUPROFILE" + "=" + cat}, "inventory", "--day", "0", "--scale", "0.01", "--catalog", cat)
	code, errs := p.exit(t, 60*time.Second)
	if code != 2 || !strings.Contains(errs, "CLICKGEN_CPUPROFILE"+" "+cat+": it is the file --catalog "+cat+" reads") {
		t.Errorf("%s as the catalog: exit %d, %s; want exit 2 naming both", "CLICKGEN_CPUPROFILE", code, errs)
	}
	if b, _ := os.ReadFile(cat); string(b) != string(world.DefaultCatalogCSV) {
		t.Errorf("the catalog now holds %d bytes, want it whole", len(b))
	}
	prof := filepath.Join(dir, "cpu.pprof")
	p = start(t, bin, "", []string{"CLICKGEN_CPUPROFILE" + "=" + prof}, "inventory", "--day", "0", "--scale", "0.01", "--catalog", cat)
	if code, errs := p.exit(t, 60*time.Second); code != 0 {
		t.Fatalf("a profile beside the catalog: exit %d, %s", code, errs)
	}
	if b, err := os.ReadFile(prof); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Errorf("the profile: %d bytes, %v; want pprof's gzip", len(b), err)
	}
}
