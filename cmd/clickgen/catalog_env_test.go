package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// standCatalog is a catalog in the stand's older five-column format (sku,name,category,brand,
// price): the stand's data/catalog/products.csv is not part of this project's material, so
// this fixture has its shape — the same 180 SKUs and categories, other names and prices.
const standCatalog = "testdata/stand-products.csv"

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func inventoryCatalogSHA(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := clickgen(t, append(raceScaled("inventory", "--day", "7", "--days", "1"), args...)...)
	if code != 0 {
		t.Fatalf("inventory %q: exit %d, %s", args, code, errs)
	}
	var inv world.Inventory
	if err := json.Unmarshal([]byte(out), &inv); err != nil {
		t.Fatal(err)
	}
	return inv.CatalogSHA256
}

// GENERATOR_CATALOG is --catalog for the verbs the stand's image runs, and catalog_sha256 is
// the SHA-256 of the file's bytes, as upstream's passport has it; the flag wins over the
// variable, and an empty variable means the embedded catalog.
func TestGeneratorCatalogEnv(t *testing.T) {
	want := fileSHA256(t, standCatalog)
	embedded := world.DefaultCatalog().SHA256
	if want == embedded {
		t.Fatal("the fixture is the embedded catalog: the test could not tell them apart")
	}
	t.Setenv("GENERATOR_CATALOG", standCatalog)
	if got := inventoryCatalogSHA(t); got != want {
		t.Errorf("GENERATOR_CATALOG=%s: catalog_sha256 %s, want the file's %s", standCatalog, got, want)
	}
	catalogFile := t.TempDir() + "/ours.csv"
	if _, errs, code := clickgen(t, "catalog", "--file", catalogFile); code != 0 {
		t.Fatalf("catalog --file: exit %d, %s", code, errs)
	}
	if got := inventoryCatalogSHA(t, "--catalog", catalogFile); got != embedded {
		t.Errorf("--catalog over GENERATOR_CATALOG: catalog_sha256 %s, want %s", got, embedded)
	}
	t.Setenv("GENERATOR_CATALOG", "")
	if got := inventoryCatalogSHA(t); got != embedded {
		t.Errorf("empty GENERATOR_CATALOG: catalog_sha256 %s, want the embedded %s", got, embedded)
	}

	// The playing verbs read it too: the stand's catalog names are in the hits.
	t.Setenv("GENERATOR_CATALOG", standCatalog)
	out := t.TempDir() + "/hits.ndjson"
	if _, errs, code := clickgen(t, raceScaled("batch", "--day", "0", "--limit", "20000", "--file", out)...); code != 0 {
		t.Fatalf("batch: exit %d, %s", code, errs)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), " (стенд)") {
		t.Errorf("batch with GENERATOR_CATALOG=%s: no product name of that catalog in 20000 events", standCatalog)
	}

	t.Setenv("GENERATOR_CATALOG", "testdata/no-such-catalog.csv")
	for _, verb := range [][]string{{"inventory", "--day", "0"}, {"batch", "--day", "0", "--file", os.DevNull}, {"run", "smoke"}} {
		if _, errs, code := clickgen(t, verb...); code != 2 || !strings.Contains(errs, "no-such-catalog.csv") {
			t.Errorf("%s with a missing GENERATOR_CATALOG file: exit %d, %q; want 2 naming the file", verb[0], code, errs)
		}
	}
}
