package world

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestMixWeightBounded is issue 24 item 4: weights are summed into a 32-bit pick table, so
// field_invalid=4294967296 wrapped the orders' sum to zero (a panic after every hit was sent)
// and two weights of MaxInt64 drew 5210 and 0. They are refused where the mix is parsed (and
// in Validate, for a profile's mapping); weights up to the bound still parse.
func TestMixWeightBounded(t *testing.T) {
	for _, text := range []string{
		"key_field_unparsed=1,field_invalid=4294967296",
		"not_an_object=4294967296",
		"not_an_object=9223372036854775807,keyset_mismatch=9223372036854775807",
		"not_an_object=1000001",
	} {
		_, err := ParseMix(text)
		if err == nil || !strings.Contains(err.Error(), "want at most 1000000") {
			t.Errorf("ParseMix(%q) = %v; want an error naming the bound 1000000", text, err)
		}
	}
	g := Garbage{Rate: 0.1, Mix: Mix{GarbageNotAnObject: math.MaxInt64}}
	if err := g.Validate(); err == nil || !strings.Contains(err.Error(), "garbage class not_an_object: weight 9223372036854775807, want at most 1000000") {
		t.Errorf("Validate(not_an_object=MaxInt64) = %v", err)
	}
	m, err := ParseMix("not_an_object=1000000,keyset_mismatch=1000000,key_field_unparsed=1000000,accepted_bad=1000000,vanishing=1000000,field_invalid=1000000")
	if err != nil {
		t.Fatalf("every class at the bound: %v", err)
	}
	for _, classes := range [][]string{HitGarbageClasses, OrderGarbageClasses} {
		_, tab, ok := Garbage{Rate: 1, Mix: m}.mixFor(classes)
		if !ok || tab.Total() != 1_000_000*len(classes) {
			t.Errorf("mix at the bound over %v: table total %d, want %d", classes, tab.Total(), 1_000_000*len(classes))
		}
	}
}

// TestInjectDayBounded is issue 24 item 5 in the library: Inject refuses a day the wire
// formats cannot carry, as CheckDays does (day 2147483647 panicked with an index out of range).
func TestInjectDayBounded(t *testing.T) {
	w := canonical(t)
	for _, d := range []int{MaxDay + 1, math.MaxInt32, math.MaxInt} {
		if _, err := w.Inject(KindHits, GarbageAcceptedBad, d, 1); err == nil || !strings.Contains(err.Error(), "the last model day is 29104") {
			t.Errorf("Inject(hits, day %d) = %v; want the last model day named", d, err)
		}
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
