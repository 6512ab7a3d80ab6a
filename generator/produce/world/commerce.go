package world

import (
	"slices"
	"strings"

	"github.com/clickgen/clickgen/schema"
)

// cookieCommerce adds the baskets, add_to_cart and purchase events of ck's visits [first, …)
// of dst from the cookie's COMMERCE stream (world.md §4.2–§4.3): per visit with a candidate,
// in visit order, the draws of world 0.2.0's day-wide stream.
func (b *dayBuilder) cookieCommerce(dst *Day, ck *activeCookie, age int, first int) {
	w := b.w
	slot := cookieSlot(age, ck.index)
	s := b.commerce.stream(slot)
	for vi := first; vi < len(dst.visits); vi++ {
		v := &dst.visits[vi]
		ordinal := vi - first
		b.cands, b.seen = b.cands[:0], b.seen[:0]
		var confPage int32 = -1
		for p := v.firstPage; p < v.firstPage+v.nLive; p++ {
			pg := &w.pages[dst.pages[p].pid]
			switch pg.kind {
			case pageProduct:
				prod := int32(int(dst.pages[p].pid) - pidProduct)
				if !slices.Contains(b.seen, prod) {
					b.seen = append(b.seen, prod)
					b.cands = append(b.cands, candidate{prod, p})
				}
			case pageConfirmation:
				confPage = p
			}
		}
		if len(b.cands) == 0 {
			continue
		}
		// Shopping means the visit reached /cart: the first funnel page must have survived the
		// midnight cut (a planned funnel that midnight cut off before /cart is only browsing).
		browse := v.nPages - int32(v.stage)
		shopping := v.stage >= 1 && v.nLive > browse
		from := len(dst.positions)
		for _, c := range b.cands {
			demand := w.catalog.Products[c.product].Demand
			p := takeBrowsing[demand]
			if shopping {
				p = takeShopping[demand]
			}
			if s.Int(100) < p {
				dst.positions = append(dst.positions, position{product: c.product, page: c.page})
			}
		}
		restore := s.Int(len(b.cands))
		if shopping && len(dst.positions) == from {
			c := b.cands[restore]
			dst.positions = append(dst.positions, position{product: c.product, page: c.page})
		}
		basket := dst.positions[from:]
		if len(basket) == 0 {
			continue
		}
		for i := range basket {
			ps := &basket[i]
			ps.qty = uint8(1 + s.Pick(&quantityTable))
			ps.variant = uint8(s.Int(len(variants)))
			ps.kept = s.Int(100) >= abandonedPercent
			ps.sec = dst.pages[ps.page].sec + int32(s.Range(tradeDelayMin, tradeDelayMax))
			if ps.live = ps.sec < daySeconds; ps.live {
				dst.events = append(dst.events, event{watchID: b.watch.watchID(slot, ordinal, rowAddToCart+i),
					sec: ps.sec, visit: int32(vi), page: ps.page, ref: int32(from + i), kind: evAddToCart})
			}
		}
		couponIdx, used := s.Int(len(coupons)), s.Int(100) < couponPercent
		delay := int32(s.Range(tradeDelayMin, tradeDelayMax))
		restoreKept := s.Int(len(basket))
		if confPage < 0 {
			continue // no surviving /confirmation: the basket stays a cart
		}
		kept := 0
		for _, ps := range basket {
			if ps.kept {
				kept++
			}
		}
		if kept == 0 {
			basket[restoreKept].kept = true
		}
		pu := Purchase{PersonID: v.personID, ClientID: v.clientID, Coupon: -1, Assigned: v.assigned,
			visit: int32(vi), confPage: confPage, sec: dst.pages[confPage].sec + delay,
			posFrom: int32(from), posTo: int32(len(dst.positions)),
			watchID: b.watch.watchID(slot, ordinal, rowPurchase), nextStart: v.nextStart, slot: slot, ordinal: uint8(ordinal)}
		if used {
			pu.Coupon = couponIdx
		}
		for _, ps := range basket {
			if ps.kept {
				pu.Lines = append(pu.Lines, Line{Product: int(ps.product), Qty: int(ps.qty)})
				pu.Revenue += w.catalog.Products[ps.product].Price * int64(ps.qty)
			}
		}
		pu.UTCSecond = dayStartUTC(dst.N) + int64(pu.sec)
		dst.events = append(dst.events, event{watchID: pu.watchID, sec: pu.sec, visit: int32(vi), page: confPage, ref: int32(len(dst.Purchases)), kind: evPurchase})
		dst.Purchases = append(dst.Purchases, pu)
	}
}

// finish numbers the day's purchases in stream order (world.md §4.6), applies the BEACONS
// stream's losses and duplicates (orders.md §4.4), sorts the events and counts them. Every
// purchase of the day takes part, also in a segment's day: numbering is the one serial step.
func (b *dayBuilder) finish() {
	day := b.day
	// Numbering: purchases in stream order, (second, WatchID), before any loss.
	order := make([]int, len(day.Purchases))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		pa, pb := &day.Purchases[a], &day.Purchases[b]
		if pa.sec != pb.sec {
			return int(pa.sec - pb.sec)
		}
		if pa.watchID < pb.watchID {
			return -1
		}
		return 1
	})
	numbered := make([]Purchase, len(order))
	where := make([]int32, len(order)) // old index → new index
	for n, old := range order {
		numbered[n] = day.Purchases[old]
		numbered[n].OrderID = orderID(day.N, n+1)
		where[old] = int32(n)
	}
	day.Purchases = numbered
	for i := range day.events {
		if e := &day.events[i]; e.kind == evPurchase {
			e.ref = where[e.ref]
		}
	}

	day.beacons(b)

	day.fillRender()
	day.events = sortEvents(day.events)
	for _, e := range day.events {
		day.Stats.ByKind[e.kind]++
	}
	st := &day.Stats
	st.Pageviews = st.ByKind[evPageview] + st.ByKind[evDupPageview]
	st.AddToCart = st.ByKind[evAddToCart]
	st.Purchases = st.ByKind[evPurchase] + st.ByKind[evDupPurchase]
	st.Orders = len(day.Purchases)
	day.buildEcommerce()
}

// fillRender copies into every event what rendering reads of its page, the page before it and
// its visit; run before the events are sorted by time, while they are still in visit order.
func (day *Day) fillRender() {
	for i := range day.events {
		e := &day.events[i]
		v := &day.visits[e.visit]
		e.source, e.city, e.pid = v.source, v.city, day.pages[e.page].pid
		switch e.page {
		case v.firstPage:
			e.at = atEntry
		case v.firstPage + 1:
			e.at = afterEntry
		}
		if e.page != v.firstPage {
			e.prevPid = day.pages[e.page-1].pid
		}
	}
}

// beacons draws, per numbered purchase, whether its event is lost (never for guaranteed
// orders) and whether the confirmation + purchase pair is sent twice after 30…300 s (only if
// the copy stays before midnight and more than 30 minutes before the cookie's next visit).
// Lost purchase events leave the day; the copies of the purchases the day holds join it.
func (day *Day) beacons(b *dayBuilder) {
	s := newStream(day.World.seed, streamBeacons, day.N, 0)
	for i := range day.Purchases {
		pu := &day.Purchases[i]
		lostDraw, dupDraw, delay := s.Int(100), s.Int(100), int32(s.Range(duplicateDelayMin, duplicateDelayMax))
		pu.Lost = !pu.Assigned && lostDraw < lostPurchasePercent
		if pu.Lost {
			day.Stats.Lost++
		}
		if pu.Lost || dupDraw >= duplicatePercent {
			continue
		}
		if pu.sec+delay >= daySeconds || pu.nextStart-pu.sec <= duplicateNextVisitGap+delay {
			continue
		}
		pu.Duplicate, pu.dupDelay = true, delay
		day.Stats.Duplicated++
	}
	kept := day.events[:0]
	for _, e := range day.events {
		if e.kind == evPurchase && day.Purchases[e.ref].Lost {
			continue
		}
		kept = append(kept, e)
	}
	day.events = kept
	for i := range day.Purchases {
		pu := &day.Purchases[i]
		if !pu.Duplicate || pu.visit < 0 {
			continue
		}
		conf := day.pages[pu.confPage].sec
		day.events = append(day.events,
			event{watchID: b.watch.watchID(pu.slot, int(pu.ordinal), rowDupPageview), sec: conf + pu.dupDelay, visit: pu.visit, page: pu.confPage, ref: int32(i), kind: evDupPageview},
			event{watchID: b.watch.watchID(pu.slot, int(pu.ordinal), rowDupPurchase), sec: pu.sec + pu.dupDelay, visit: pu.visit, page: pu.confPage, ref: int32(i), kind: evDupPurchase})
	}
}

// buildEcommerce encodes the raw ecommerce JSON of every add_to_cart and purchase once.
func (day *Day) buildEcommerce() {
	cat := day.World.catalog
	product := func(idx int32, qty uint8, variant uint8) schema.EcommerceProduct {
		p := &cat.Products[idx]
		return schema.EcommerceProduct{ID: p.SKU, Name: p.Name, Category: categories[p.Category].Name, Brand: p.Brand,
			Variant: variants[variant], Price: p.Price, Quantity: uint64(qty)}
	}
	var buf []byte
	// An add_to_cart's Ecommerce differs from product to product only in its variant and
	// quantity: each product bought on the day is encoded once (cartEcomOf), not each position.
	day.cartOf = make([]int32, len(day.positions))
	parts := map[int32]int32{} // product → index into cartParts; lookup only, never iterated
	for i, ps := range day.positions {
		if !ps.live {
			continue
		}
		k, ok := parts[ps.product]
		if !ok {
			k = int32(len(day.cartParts))
			parts[ps.product] = k
			day.cartParts = append(day.cartParts, day.World.cartEcomOf(ps.product))
		}
		day.cartOf[i] = k
	}
	// A purchase's products are its kept basket positions, in basket order, with their variants.
	for i := range day.Purchases {
		pu := &day.Purchases[i]
		if pu.visit < 0 {
			continue // another segment's: its events are not in this day
		}
		var ps []schema.EcommerceProduct
		for pi := pu.posFrom; pi < pu.posTo; pi++ {
			pos := &day.positions[pi]
			if pos.kept {
				ps = append(ps, product(pos.product, pos.qty, pos.variant))
			}
		}
		e := schema.Ecommerce{Action: schema.ProductPurchase, OrderID: pu.OrderID, Revenue: pu.Revenue, Products: ps}
		if pu.Coupon >= 0 {
			e.Coupon = coupons[pu.Coupon].Code
		}
		buf = schema.AppendEcommerce(buf[:0], &e)
		pu.ecommerce = string(buf)
	}
}

// cartEcom is the Ecommerce column of an add_to_cart of one product as the hit writes it (a
// JSON string holding the JSON), in the pieces around the variant's and the quantity's values:
// head is the string's opening quote and the escaped JSON up to "variant":, mid the escaped
// JSON from the price to "quantity":. Escaping writes a JSON string character by character,
// and the pieces are cut at ASCII characters of valid UTF-8, so the pieces of the escaped
// JSON are the escaped pieces of the JSON (TestFastEncoderIsSchemaEncoder checks every
// add_to_cart of several days against schema.AppendHit).
type cartEcom struct{ head, mid string }

// Keys of an add_to_cart's Ecommerce JSON where cartEcomOf cuts it. In schema.AppendEcommerce's
// output they occur only as keys: a quote inside a string value is written \".
const (
	ecomVariantKey  = `,"variant":`
	ecomQuantityKey = `,"quantity":`
	ecomCartEnd     = `}]}}`
)

// cartEcomOf encodes the pieces of product idx's add_to_cart Ecommerce column.
func (w *World) cartEcomOf(idx int32) cartEcom {
	p := &w.catalog.Products[idx]
	prods := []schema.EcommerceProduct{{ID: p.SKU, Name: p.Name, Category: categories[p.Category].Name, Brand: p.Brand, Price: p.Price}}
	raw := string(schema.AppendEcommerce(nil, &schema.Ecommerce{Action: schema.ProductAdd, Products: prods}))
	v := strings.Index(raw, ecomVariantKey+`""`)
	q := strings.LastIndex(raw, ecomQuantityKey)
	if v < 0 || q < v || raw[q+len(ecomQuantityKey):] != "0"+ecomCartEnd {
		panic("world: an add_to_cart Ecommerce not cut at its variant and quantity: " + raw)
	}
	head := string(schema.AppendString(nil, raw[:v+len(ecomVariantKey)]))
	mid := string(schema.AppendString(nil, raw[v+len(ecomVariantKey)+len(`""`):q+len(ecomQuantityKey)]))
	return cartEcom{head: head[:len(head)-1], mid: mid[1 : len(mid)-1]}
}
