package world

import (
	"bytes"
	"testing"

	"github.com/clickgen/clickgen/schema"
)

// TestCartEcommerceOfHostileProducts: an add_to_cart's Ecommerce column written from its
// product's pieces (cartEcomOf), the variant's and the quantity is byte for byte the JSON
// string schema writes of the whole Ecommerce JSON, for products whose fields hold the keys
// the pieces are cut at, quotes, backslashes, control characters, invalid UTF-8 and Cyrillic;
// and every event of a day on such a catalog is the schema encoder's.
func TestCartEcommerceOfHostileProducts(t *testing.T) {
	hostile := []string{
		`,"variant":""`, `,"quantity":0}]}}`, `a\`, `\"`, "tab\there\nnew line\x01\x1f",
		"\xff\xfe broken \xc3", "Полка «Сканди» \\ 2\"", `}]}}"}`, "",
	}
	c := DefaultCatalog()
	cat := &Catalog{Products: append([]Product(nil), c.Products...), ByCategory: c.ByCategory}
	for i, s := range hostile {
		p := &cat.Products[i]
		p.Name, p.Brand = s, s+"·"
		if s != "" {
			p.SKU = s + p.SKU
		}
	}
	w := freshWorld(t, Params{Catalog: cat})
	var got, want []byte
	for idx := range cat.Products {
		pieces := w.cartEcomOf(int32(idx))
		p := &cat.Products[idx]
		for v := range variants {
			for _, qty := range []uint8{1, 9, 10, 99, 255} {
				got = append(got[:0], pieces.head...)
				got = append(got, w.parts.variant[v]...)
				got = append(got, pieces.mid...)
				got = appendQty(got, qty)
				got = append(got, ecomCartEnd+`"`...)
				e := schema.Ecommerce{Action: schema.ProductAdd, Products: []schema.EcommerceProduct{{ID: p.SKU, Name: p.Name,
					Category: categories[p.Category].Name, Brand: p.Brand, Variant: variants[v], Price: p.Price, Quantity: uint64(qty)}}}
				want = schema.AppendString(want[:0], string(schema.AppendEcommerce(nil, &e)))
				if !bytes.Equal(got, want) {
					t.Fatalf("product %d %q, variant %d, quantity %d:\n got %s\nwant %s", idx, p.Name, v, qty, got, want)
				}
			}
		}
	}
	day := w.Day(1)
	carts := 0
	for i := range day.Len() {
		got = day.AppendEvent(got[:0], i)
		want = schema.AppendHit(want[:0], referenceHit(day, i))
		if !bytes.Equal(got, want) {
			t.Fatalf("day 1 event %d:\n got %s\nwant %s", i, got, want)
		}
		if day.events[i].kind == evAddToCart {
			carts++
		}
	}
	if carts == 0 {
		t.Fatal("day 1 has no add_to_cart: the comparison covers none")
	}
}

func appendQty(dst []byte, q uint8) []byte {
	if q >= 100 {
		dst = append(dst, '0'+q/100)
	}
	if q >= 10 {
		dst = append(dst, '0'+q/10%10)
	}
	return append(dst, '0'+q%10)
}
