package schema

// Keys of the raw ecommerce JSON carried in the hit's ecommerce column, as the export
// description lists them. The encoder below writes them in this order.
var (
	// EcommerceKeys are the top-level keys: the currency, then one action block.
	EcommerceKeys = [...]string{"currencyCode", "add", "purchase"}
	// EcommerceActionFieldKeys are the keys of purchase.actionField; coupon only when used.
	EcommerceActionFieldKeys = [...]string{"id", "revenue", "coupon"}
	// EcommerceProductKeys are the keys of one product object.
	EcommerceProductKeys = [...]string{"id", "name", "category", "brand", "variant", "price", "quantity"}
)

// EcommerceProduct is one product object of the raw ecommerce JSON. Price is the exact unit
// price in kopecks, written as kopecks/100.
type EcommerceProduct struct {
	ID       string
	Name     string
	Category string
	Brand    string
	Variant  string
	Price    int64 // kopecks
	Quantity uint64
}

// Ecommerce is the raw Metrica-style ecommerce block of a trade event.
type Ecommerce struct {
	// Action is ProductAdd ("add") for add_to_cart or ProductPurchase ("purchase").
	Action   string
	OrderID  string // purchase only: actionField.id
	Revenue  int64  // purchase only: actionField.revenue in kopecks
	Coupon   string // purchase only: actionField.coupon, omitted when ""
	Products []EcommerceProduct
}

// AppendEcommerce appends the canonical JSON object of e (not yet quoted as a string):
//
//	add:      {"currencyCode":"RUB","add":{"products":[P]}}
//	purchase: {"currencyCode":"RUB","purchase":{"actionField":{"id":…,"revenue":…[,"coupon":…]},"products":[P,…]}}
func AppendEcommerce(dst []byte, e *Ecommerce) []byte {
	dst = append(dst, `{"currencyCode":"RUB",`...)
	if e.Action == ProductPurchase {
		dst = append(dst, `"purchase":{"actionField":{"id":`...)
		dst = AppendString(dst, e.OrderID)
		dst = append(dst, `,"revenue":`...)
		dst = AppendKopecksFloat(dst, e.Revenue)
		if e.Coupon != "" {
			dst = append(dst, `,"coupon":`...)
			dst = AppendString(dst, e.Coupon)
		}
		dst = append(dst, `},"products":[`...)
	} else {
		dst = append(dst, `"add":{"products":[`...)
	}
	for i := range e.Products {
		p := &e.Products[i]
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"id":`...)
		dst = AppendString(dst, p.ID)
		dst = append(dst, `,"name":`...)
		dst = AppendString(dst, p.Name)
		dst = append(dst, `,"category":`...)
		dst = AppendString(dst, p.Category)
		dst = append(dst, `,"brand":`...)
		dst = AppendString(dst, p.Brand)
		dst = append(dst, `,"variant":`...)
		dst = AppendString(dst, p.Variant)
		dst = append(dst, `,"price":`...)
		dst = AppendKopecksFloat(dst, p.Price)
		dst = append(dst, `,"quantity":`...)
		dst = appendUint(dst, p.Quantity)
		dst = append(dst, '}')
	}
	return append(dst, "]}}"...)
}
