package cpuprofile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestStart: a profile is written to the file and complete once stopped (pprof's
// gzipped protobuf); until then, and after a stop that does not keep it, the file is as it
// was (a run refused because its profile is its catalog leaves the catalog whole); no path
// profiles nothing; a file that cannot be created is an error with a stop that does nothing.
func TestStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	os.WriteFile(path, []byte("before"), 0o644)
	stop, err := Start(path)
	if err != nil {
		t.Fatalf("Start(%s): %v", path, err)
	}
	if _, err := Start(filepath.Join(t.TempDir(), "second")); err == nil {
		t.Error("a second Start while one runs: no error")
	}
	if b, _ := os.ReadFile(path); string(b) != "before" {
		t.Errorf("while profiling the file holds %q, want it untouched", b)
	}
	if err := stop(true); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		t.Errorf("profile file: %d bytes, error %v; want a gzipped profile", len(data), err)
	}
	os.WriteFile(path, []byte("before"), 0o644)
	if stop, err = Start(path); err != nil {
		t.Fatal(err)
	}
	stop(false)
	if b, _ := os.ReadFile(path); string(b) != "before" {
		t.Errorf("after stop(false) the file holds %q, want it untouched", b)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("the directory holds %d entries, want the file alone (no temporary file left)", len(entries))
	}
	if stop, err := Start(""); err != nil {
		t.Errorf(`Start(""): %v, want nothing to do`, err)
	} else {
		stop(true)
	}
	for _, bad := range []string{filepath.Join(t.TempDir(), "missing", "cpu.pprof"), t.TempDir()} {
		stop, err = Start(bad)
		if err == nil {
			t.Errorf("Start(%s): no error", bad)
		}
		stop(true)
	}
}
