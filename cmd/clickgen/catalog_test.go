package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// catalogFile writes the embedded catalog with its first product's row replaced by row.
func catalogFile(t *testing.T, row string) string {
	t.Helper()
	lines := strings.Split(string(world.DefaultCatalogCSV), "\n")
	lines[1] = row
	path := filepath.Join(t.TempDir(), "catalog.csv")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCatalogValuesBounded is issue 24 medium item 5 and low item 15: a price of
// 9223372036854775807 made a negative productPrice and an unencodable snapshot, SKUs with
// "\%<>' made invalid product URLs. Both are refused at load, naming the line, the column and
// the bound; the dearest allowed price plays a whole snapshot, and the stand's fixture and the
// built-in catalog still load.
func TestCatalogValuesBounded(t *testing.T) {
	file := filepath.Join(t.TempDir(), "h.jsonl")
	for _, tc := range []struct{ row, want string }{
		{"HOME-0001,Органайзер,Товары для дома,Домовит,9223372036854775807,обычный", "line 2, column 5 (price): price 9223372036854775807: want at most 214457125111475 kopecks"},
		{`"HOME""1",Органайзер,Товары для дома,Домовит,129000,обычный`, `line 2, column 1 (sku): SKU "HOME\"1": want a code of A–Z a–z 0–9 - . _ ~`},
		{`HOME\%<>'1,Органайзер,Товары для дома,Домовит,129000,обычный`, `as a URL path segment carries it unescaped`},
	} {
		cat := catalogFile(t, tc.row)
		t.Logf("%s", refused(t, file, tc.want, "batch", "--day", "0", "--file", file, "--catalog", cat))
	}
	// Every product at MaxPrice: day 1's snapshot (the orders of day 0) is encoded whole.
	lines := strings.Split(strings.TrimSpace(string(world.DefaultCatalogCSV)), "\n")
	for i := 1; i < len(lines); i++ {
		f := strings.Split(lines[i], ",")
		f[4] = "214457125111475" // world.MaxPrice
		lines[i] = strings.Join(f, ",")
	}
	dear := filepath.Join(t.TempDir(), "dear.csv")
	os.WriteFile(dear, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	if _, errs, code := clickgen(t, "snapshot", "--day", "1", "--catalog", dear, "--file", file); code != 0 {
		t.Errorf("snapshot --day 1 with every price at the bound: exit %d, %s", code, errs)
	}
	for _, cat := range []string{standCatalog, ""} {
		args := []string{"inventory", "--day", "0", "--scale", "0.01"}
		if cat != "" {
			args = append(args, "--catalog", cat)
		}
		if _, errs, code := clickgen(t, args...); code != 0 {
			t.Errorf("%v: exit %d, %s", args, code, errs)
		}
	}
}

// TestCatalogCountedInMemory is issue 24 item 7 (the check): the memory check counts the
// catalog's rows and file, so a catalog the machine cannot hold is refused before the run
// starts, naming it (a 1 000 000-row catalog died with Go's out of memory 53 s in).
func TestCatalogCountedInMemory(t *testing.T) {
	var b strings.Builder
	b.WriteString("sku,name,category,brand,price,demand\n")
	cats := []string{"Товары для дома", "Текстиль", "Посуда", "Бытовая техника", "Детские товары", "Одежда и обувь"}
	for i := range 100_000 {
		fmt.Fprintf(&b, "P-%07d,Товар номер %d,%s,Бренд,%d,обычный\n", i, i, cats[i%6], 1000+i)
	}
	cat := filepath.Join(t.TempDir(), "big.csv")
	os.WriteFile(cat, []byte(b.String()), 0o644)
	line := refused(t, "", "with a catalog of 100000 products", "inventory", "--day", "0", "--catalog", cat, "--max-memory", "150MiB")
	t.Logf("%s", line)
	if _, errs, code := clickgen(t, "inventory", "--day", "0", "--catalog", standCatalog, "--max-memory", "150MiB"); code != 0 {
		t.Errorf("the stand's catalog under --max-memory 150MiB: exit %d, %s", code, errs)
	}
}
