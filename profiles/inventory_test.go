package profiles

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// TestMergeInventoryFiles: the segments' inventory files merge into the whole run's counts;
// a missing or broken file is refused naming it an inventory file (the command says --merge).
func TestMergeInventoryFiles(t *testing.T) {
	w, err := world.NewWorld(world.Params{Seed: world.CanonicalSeed, Scale: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var paths []string
	for i := range 2 {
		inv, err := w.Inventory(context.Background(), world.Range{From: 0, Days: 1, Segment: world.Segment{I: i, N: 2}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(inv)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Join(dir, "segment"+strconv.Itoa(i)+".json"))
		if err := os.WriteFile(paths[i], data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	whole, err := w.Inventory(context.Background(), world.Range{From: 0, Days: 1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := MergeInventoryFiles(t.Context(), paths)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := merged.Days[0].Events, whole.Days[0].Events; got != want {
		t.Errorf("merged day 0 events = %d, want the whole run's %d", got, want)
	}
	if _, err := MergeInventoryFiles(t.Context(), []string{filepath.Join(dir, "none.json")}); !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "inventory file: ") {
		t.Errorf("a missing file: %v, want an error starting inventory file: and wrapping fs.ErrNotExist", err)
	}
	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := MergeInventoryFiles(t.Context(), []string{broken}); err == nil || !strings.HasPrefix(err.Error(), "inventory file "+broken+": ") {
		t.Errorf("a broken file: %v, want an error naming inventory file %s", err, broken)
	}
}
