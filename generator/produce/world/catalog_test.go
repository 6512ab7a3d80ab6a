package world

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/schema"
)

// The embedded catalog has the shape and statistics world.md §4.4 gives for the stand's file.
func TestEmbeddedCatalog(t *testing.T) {
	c, err := ParseCatalog(DefaultCatalogCSV)
	if err != nil {
		t.Fatalf("ParseCatalog(DefaultCatalogCSV): %v", err)
	}
	if len(c.Products) != 180 {
		t.Fatalf("%d products, want 180 (6 × 30)", len(c.Products))
	}
	sum := sha256.Sum256(DefaultCatalogCSV)
	if c.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("SHA256 = %s, want the file's %x", c.SHA256, sum)
	}
	sku := regexp.MustCompile(`^(HOME|TEXT|POSU|TECH|KIDS|WEAR)-\d{4}$`)
	brands := []string{"Домовит", "Ладный дом", "Сатин", "Кухмастер", "Ладья", "Электрон", "Малышок", "Ходики"}
	var demand [3]int
	magnets := map[string]int{}
	minP, maxP := c.Products[0], c.Products[0]
	kopecks := 0
	for i, p := range c.Products {
		cat := categories[p.Category]
		if !sku.MatchString(p.SKU) || !strings.HasPrefix(p.SKU, cat.Prefix+"-") {
			t.Errorf("row %d: SKU %q in category %s, want %s-NNNN", i, p.SKU, cat.Name, cat.Prefix)
		}
		if !slices.Contains(brands, p.Brand) {
			t.Errorf("%s: brand %q not one of %v", p.SKU, p.Brand, brands)
		}
		if p.Name == "" || p.Price <= 0 {
			t.Errorf("%s: name %q price %d", p.SKU, p.Name, p.Price)
		}
		demand[p.Demand]++
		if p.Demand == DemandMagnet {
			magnets[cat.Prefix]++
		}
		if p.Price < minP.Price {
			minP = p
		}
		if p.Price > maxP.Price {
			maxP = p
		}
		if p.Price%100 != 0 {
			kopecks++
		}
	}
	if demand != [3]int{36, 96, 48} {
		t.Errorf("demand counts (magnet, ordinary, slow) = %v, want [36 96 48]", demand)
	}
	wantMagnets := map[string]int{"HOME": 9, "TEXT": 4, "POSU": 7, "TECH": 6, "KIDS": 6, "WEAR": 4}
	for k, v := range wantMagnets {
		if magnets[k] != v {
			t.Errorf("magnets in %s = %d, want %d", k, magnets[k], v)
		}
	}
	if minP.Price != 19000 || maxP.Price != 1899000 {
		t.Errorf("prices %d (%s) … %d (%s), want 19000 … 1899000", minP.Price, minP.SKU, maxP.Price, maxP.SKU)
	}
	if kopecks == 0 {
		t.Errorf("no price carries kopecks; the client's rounding must be visible")
	}
	// categories: 30 rows each, in file order; the first 22 rows are HOME/TEXT/POSU/TECH
	// 0001–0004 and KIDS/WEAR 0001–0003, then each category's remaining block.
	var first22 []string
	for _, pre := range []string{"HOME", "TEXT", "POSU", "TECH", "KIDS", "WEAR"} {
		n := 4
		if pre == "KIDS" || pre == "WEAR" {
			n = 3
		}
		for k := 1; k <= n; k++ {
			first22 = append(first22, pre+"-000"+string(rune('0'+k)))
		}
	}
	for i, want := range first22 {
		if c.Products[i].SKU != want {
			t.Errorf("row %d: SKU %s, want %s", i, c.Products[i].SKU, want)
		}
	}
	for ci, idx := range c.ByCategory {
		if len(idx) != 30 || !slices.IsSorted(idx) {
			t.Errorf("category %s: %d products (sorted %v), want 30 in file order", categories[ci].Name, len(idx), slices.IsSorted(idx))
		}
		for _, i := range idx {
			if c.Products[i].Category != ci {
				t.Errorf("ByCategory[%d] holds %s of category %d", ci, c.Products[i].SKU, c.Products[i].Category)
			}
		}
	}
}

// minimalCatalog is a valid file with one product per category.
const minimalCatalog = `sku,name,category,brand,price,demand
HOME-0001,Ведро,Товары для дома,Ладья,30990,обычный
TEXT-0001,Полотенце,Текстиль,Ладья,49900,магнит
POSU-0001,Сковорода,Посуда,Кухмастер,29990,залёживается
TECH-0001,Чайник,Бытовая техника,Электрон,390099,обычный
KIDS-0001,Стульчик,Детские товары,Малышок,500000,обычный
WEAR-0001,Тапочки,Одежда и обувь,Ходики,65000,магнит
`

func TestMalformedCatalog(t *testing.T) {
	if _, err := ParseCatalog([]byte(minimalCatalog)); err != nil {
		t.Fatalf("the valid base file: %v", err)
	}
	lines := strings.Split(minimalCatalog, "\n")
	with := func(line int, text string) string { // replace 1-based line
		l := slices.Clone(lines)
		l[line-1] = text
		return strings.Join(l, "\n")
	}
	for _, c := range []struct {
		name       string
		file       string
		line, col  int // col: 1-based field number, 0 for the whole line
		field, msg string
	}{
		{"bad price", with(3, "TEXT-0001,Полотенце,Текстиль,Ладья,499.00,магнит"), 3, 5, "price", "499.00"},
		{"zero price", with(3, "TEXT-0001,Полотенце,Текстиль,Ладья,0,магнит"), 3, 5, "price", ""},
		{"unknown category", with(4, "POSU-0001,Сковорода,Кухня,Кухмастер,29990,магнит"), 4, 3, "category", "Кухня"},
		{"unknown demand", with(5, "TECH-0001,Чайник,Бытовая техника,Электрон,390099,хит"), 5, 6, "demand", "хит"},
		{"wrong field count", with(6, "KIDS-0001,Стульчик,Детские товары,Малышок,500000"), 6, 0, "", ""},
		{"duplicate SKU", with(7, "HOME-0001,Тапочки,Одежда и обувь,Ходики,65000,магнит"), 7, 1, "sku", "line 2"},
		{"bad header name", with(1, "sku,name,category,brand,cost,demand"), 1, 5, "price", "cost"},
		{"header too short", with(1, "sku,name,category"), 1, 0, "", ""},
		{"missing category", strings.Join(slices.Delete(slices.Clone(lines), 5, 6), "\n"), 6, 0, "", "Детские товары"},
		{"SKU with a space", with(2, "HOME 0001,Ведро,Товары для дома,Ладья,30990,обычный"), 2, 1, "sku", ""},
		{"empty name", with(2, "HOME-0001,,Товары для дома,Ладья,30990,обычный"), 2, 2, "name", ""},
		{"invalid UTF-8", with(2, "HOME-0001,\xff\xfe,Товары для дома,Ладья,30990,обычный"), 2, 2, "name", ""},
		{"empty file", "", 1, 0, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseCatalog([]byte(c.file))
			var ce *CatalogError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T), want a *CatalogError", err, err)
			}
			if ce.Line != c.line || ce.Column != c.col || ce.Field != c.field {
				t.Errorf("error at line %d column %d field %q (%v), want line %d column %d field %q", ce.Line, ce.Column, ce.Field, err, c.line, c.col, c.field)
			}
			if !strings.Contains(err.Error(), "line ") || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("message %q does not name the line and %q", err, c.msg)
			}
		})
	}
}

// A five-column file (the stand's older dictionary) gives every product DefaultDemand, and a
// world built on it sells only its SKUs.
func TestFiveColumnCatalog(t *testing.T) {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(minimalCatalog), "\n") {
		f := strings.Split(line, ",")
		b.WriteString(strings.Join(f[:5], ","))
		b.WriteByte('\n')
	}
	c, err := ParseCatalog([]byte(b.String()))
	if err != nil {
		t.Fatalf("five-column file: %v", err)
	}
	for _, p := range c.Products {
		if p.Demand != DefaultDemand {
			t.Errorf("%s: demand %d, want DefaultDemand %d", p.SKU, p.Demand, DefaultDemand)
		}
	}
	w := freshWorld(t, Params{Catalog: c})
	day := w.Day(0)
	skus := catalogBySKU(c)
	trade := 0
	var buf []byte
	for i := range day.Len() {
		if day.EventType(i) == schema.EventPageview {
			continue
		}
		trade++
		buf = day.AppendEvent(buf[:0], i)
		h, err := decodeHit(buf)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := checkEcommerce(h, skus); err != nil {
			t.Errorf("event %d: %v", i, err)
		}
	}
	if trade == 0 || len(day.Purchases) == 0 {
		t.Errorf("a world on a six-product catalog had %d trade events and %d purchases, want some", trade, len(day.Purchases))
	}
}

// catalogWith is the embedded catalog with row line (1-based, the header is line 1) replaced.
func catalogWith(line int, row string) []byte {
	lines := strings.Split(string(DefaultCatalogCSV), "\n")
	lines[line-1] = row
	return []byte(strings.Join(lines, "\n"))
}

// TestCatalogPriceBounded is issue 24 medium item 5: a price of 9223372036854775807 was
// accepted, hits carried a negative productPrice and the snapshot could not be encoded. Prices
// above MaxPrice are refused at load, naming the bound; at the bound, the dearest basket the
// world can form (MaxVisitPages products × MaxQuantity, the dearest delivery) stays below 2^53.
func TestCatalogPriceBounded(t *testing.T) {
	for _, price := range []string{"9223372036854775807", "99999999999999999999", "214457125111476"} {
		_, err := ParseCatalog(catalogWith(2, "HOME-0001,Органайзер,Товары для дома,Домовит,"+price+",обычный"))
		var ce *CatalogError
		if !errors.As(err, &ce) || ce.Line != 2 || ce.Field != "price" || !strings.Contains(err.Error(), "want at most 214457125111475 kopecks") {
			t.Errorf("price %s: %v; want line 2, column price, naming the bound 214457125111475", price, err)
		}
	}
	c, err := ParseCatalog(catalogWith(2, "HOME-0001,Органайзер,Товары для дома,Домовит,214457125111475,обычный"))
	if err != nil || c.Products[0].Price != MaxPrice {
		t.Fatalf("a price at the bound: %v", err)
	}
	if worst := int64(MaxPrice)*MaxVisitPages*MaxQuantity + MaxDelivery; worst >= 1<<53 || worst < 0 {
		t.Errorf("the dearest order at MaxPrice is %d kopecks, not below 2^53", worst)
	}
}

// TestMaxPriceBasket checks the constants MaxPrice is derived from against the tables the
// world draws baskets from: a visit's pages, the quantities and the deliveries.
func TestMaxPriceBasket(t *testing.T) {
	if n := visitPagesTable.Len(); n != MaxVisitPages {
		t.Errorf("visitPagesTable has %d choices (1 … %d pages), MaxVisitPages says %d", n, n, MaxVisitPages)
	}
	if n := quantityTable.Len(); n != MaxQuantity {
		t.Errorf("quantityTable has %d choices, MaxQuantity says %d", n, MaxQuantity)
	}
	if d := slices.Max(deliveryKopecks[:]); d != MaxDelivery {
		t.Errorf("the dearest delivery is %d kopecks, MaxDelivery says %d", d, MaxDelivery)
	}
	// Every basket of the canonical world's first days is within the bound it assumes.
	w := canonical(t)
	for d := range 3 {
		for _, pu := range w.Day(d).Purchases {
			if len(pu.Lines) > MaxVisitPages {
				t.Errorf("day %d: order %s has %d lines, more than MaxVisitPages %d", d, pu.OrderID, len(pu.Lines), MaxVisitPages)
			}
		}
	}
}

// TestSKUBounded is issue 24 low item 15: SKUs with "\%<>' made product URLs that are not
// valid URLs. A SKU is refused unless it is what a URL path segment carries unescaped (RFC
// 3986's unreserved characters), and not a dot segment; the embedded catalog loads.
func TestSKUBounded(t *testing.T) {
	for _, sku := range []string{`HOME"1`, `HOME\1`, "HOME%41", "HOME<1>", "HOME'1", "HOME 1", "HOME/1", "HOME?1", "HOME#1", "HOME&1",
		"ДОМ-1", ".", "..", "HOME:1", "HOME@1", "HOME+1", "HOME=1", "HOME;1"} {
		row := `"` + strings.ReplaceAll(sku, `"`, `""`) + `",Органайзер,Товары для дома,Домовит,129000,обычный`
		_, err := ParseCatalog(catalogWith(2, row))
		var ce *CatalogError
		if !errors.As(err, &ce) || ce.Field != "sku" || !strings.Contains(err.Error(), "as a URL path segment carries it unescaped") {
			t.Errorf("SKU %q: %v; want it refused as a URL path segment", sku, err)
		}
	}
	for _, sku := range []string{"HOME-0001", "a.b_c~d-9", "...", "X"} {
		if _, err := ParseCatalog(catalogWith(2, sku+",Органайзер,Товары для дома,Домовит,129000,обычный")); err != nil {
			t.Errorf("SKU %q: %v; want it accepted", sku, err)
		}
	}
	if _, err := ParseCatalog(DefaultCatalogCSV); err != nil {
		t.Errorf("embedded catalog: %v", err)
	}
}

// TestCatalogRowsBounded is issue 24 item 7 (the cap): more than MaxCatalogRows products are
// refused with the bound named. (That MaxCatalogRows load and play is measured with the
// command: a 1 000 000-row catalog, see BenchmarkCatalogRows and the README.)
func TestCatalogRowsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("parses a catalog of a million rows and one")
	}
	if _, err := ParseCatalog(bigCatalogCSV(MaxCatalogRows + 1)); err == nil || !strings.Contains(err.Error(), "more than 1000000 products") {
		t.Errorf("%d rows: %v; want the bound named", MaxCatalogRows+1, err)
	}
}
