package profiles

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadFileNamesTheProfile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "my-run.yml")
	if err := os.WriteFile(file, []byte("play:\n  day: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadFile(t.Context(), file)
	if err != nil || p.Name != "my-run" || p.Play.Day != 1 {
		t.Errorf("LoadFile(%s) = name %q day %d, %v; want my-run, 1", file, p.Name, p.Play.Day, err)
	}
	missing := filepath.Join(t.TempDir(), "none.yaml")
	if _, err := LoadFile(t.Context(), missing); !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "profile file: open "+missing) {
		t.Errorf("LoadFile(missing) = %v, want profile file: open …, wrapping fs.ErrNotExist", err)
	}
}

// TestSourceFile: a profile file that parses comes back byte for byte, comments included; a
// broken one is refused naming the file and the field, and so is one whose world.catalog
// cannot be read.
func TestSourceFile(t *testing.T) {
	dir := t.TempDir()
	good, bad, nocat := filepath.Join(dir, "good.yaml"), filepath.Join(dir, "bad.yaml"), filepath.Join(dir, "nocat.yaml")
	src := "# my run\nplay:\n  day: 1 # the second day\n"
	for file, text := range map[string]string{good: src, bad: "play:\n  dya: 1\n", nocat: "world:\n  catalog: /nonexistent\n"} {
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := SourceFile(t.Context(), good); err != nil || string(got) != src {
		t.Errorf("SourceFile(good) = %q, %v; want the file as it is", got, err)
	}
	if _, err := SourceFile(t.Context(), bad); err == nil || !strings.HasPrefix(err.Error(), "profile file "+bad+": ") || !strings.Contains(err.Error(), "dya") {
		t.Errorf("SourceFile(bad) = %v, want an error naming the file and the field", err)
	}
	if _, err := SourceFile(t.Context(), nocat); !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "profile file "+nocat+": world.catalog: open /nonexistent") {
		t.Errorf("SourceFile(nocat) = %v, want the file and world.catalog named, wrapping fs.ErrNotExist", err)
	}
}

func TestWriteList(t *testing.T) {
	var b strings.Builder
	if err := WriteList(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(List()) || !strings.Contains(b.String(), Default+" (default)  ") {
		t.Errorf("WriteList wrote %q; want a line per profile, %s marked as the default", b.String(), Default)
	}
}
