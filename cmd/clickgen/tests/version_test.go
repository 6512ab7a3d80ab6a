package tests

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionLinked builds the command as the README's install recipe and the image do,
// without a VCS stamp and with -X main.version and -X main.commit, and runs its version verb.
func TestVersionLinked(t *testing.T) {
	t.Parallel() // its own processes and brokers: see the package comment
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := filepath.Join(t.TempDir(), "clickgen")
	build := exec.Command("go", "build", "-buildvcs=false", "-ldflags",
		"-X main.version=v9.8.7 -X main.commit=0123456789abcdef0123456789abcdef01234567", "-o", bin, "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if want := "clickgen v9.8.7 (commit 0123456789ab, world "; err != nil || !strings.HasPrefix(string(out), want) {
		t.Errorf("version: %q, %v; want %q…", out, err, want)
	}
}
