package plot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAddReportFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	var p Page
	if err := p.AddReportFile(t.Context(), bad, "x"); err == nil || !strings.HasPrefix(err.Error(), bad+": ") || len(p.Runs) != 0 {
		t.Errorf("AddReportFile(broken) = %v, %d runs; want an error naming the file and no run", err, len(p.Runs))
	}
	if err := p.SetInventoryFile(t.Context(), filepath.Join(dir, "none.json")); !os.IsNotExist(err) {
		t.Errorf("SetInventoryFile(missing) = %v, want the open error", err)
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"topics":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.AddReportFile(t.Context(), good, "mine"); err != nil || len(p.Runs) != 1 || p.Runs[0].Label != "mine" {
		t.Errorf("AddReportFile(good) = %v, runs %+v; want one run labelled mine", err, p.Runs)
	}
}

// TestAddReportFiles: each report is labelled by the label in its position, the rest by
// their file names.
func TestAddReportFiles(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, name := range []string{"a.json", "b.json", "c.json"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(`{"topics":{}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	var p Page
	if err := p.AddReportFiles(t.Context(), paths, []string{"first"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p.Runs {
		got = append(got, r.Label)
	}
	if strings.Join(got, ",") != "first,b.json,c.json" {
		t.Errorf("labels %q, want first, b.json, c.json", got)
	}
}
