package metrics

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestProfileCPU: a profile is written to the file and complete once stopped (pprof's
// gzipped protobuf); no path profiles nothing; a file that cannot be created is an error with
// a stop that does nothing.
func TestProfileCPU(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	stop, err := ProfileCPU(path)
	if err != nil {
		t.Fatalf("ProfileCPU(%s): %v", path, err)
	}
	if _, err := ProfileCPU(filepath.Join(t.TempDir(), "second")); err == nil {
		t.Error("a second ProfileCPU while one runs: no error")
	}
	stop()
	data, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		t.Errorf("profile file: %d bytes, error %v; want a gzipped profile", len(data), err)
	}
	if stop, err := ProfileCPU(""); err != nil {
		t.Errorf(`ProfileCPU(""): %v, want nothing to do`, err)
	} else {
		stop()
	}
	stop, err = ProfileCPU(filepath.Join(t.TempDir(), "missing", "cpu.pprof"))
	if err == nil {
		t.Error("ProfileCPU into a missing directory: no error")
	}
	stop()
}
