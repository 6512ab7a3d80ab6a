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
	if err := p.AddReportFile(bad, "x"); err == nil || !strings.HasPrefix(err.Error(), bad+": ") || len(p.Runs) != 0 {
		t.Errorf("AddReportFile(broken) = %v, %d runs; want an error naming the file and no run", err, len(p.Runs))
	}
	if err := p.SetInventoryFile(filepath.Join(dir, "none.json")); !os.IsNotExist(err) {
		t.Errorf("SetInventoryFile(missing) = %v, want the open error", err)
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"topics":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.AddReportFile(good, "mine"); err != nil || len(p.Runs) != 1 || p.Runs[0].Label != "mine" {
		t.Errorf("AddReportFile(good) = %v, runs %+v; want one run labelled mine", err, p.Runs)
	}
}
