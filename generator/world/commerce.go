package world

import (
	"context"
	"slices"

	"github.com/clickgen/clickgen/schema"
)

// commerce adds baskets, add_to_cart and purchase events from the COMMERCE stream
// (world.md §4.2–§4.3), numbers the purchases in stream order (§4.6), applies the BEACONS
// stream's losses and duplicates (orders.md §4.4) and sorts the final stream.
func (day *Day) commerce(ctx context.Context) error {
	w := day.World
	s := newStream(w.seed, streamCommerce, day.N, 0)
	var trade []event // add_to_cart and purchase rows, WatchIDs drawn below
	var seen []int32  // products already a candidate in the current visit
	type candidate struct{ product, page int32 }
	var cands []candidate
	for vi := range day.visits {
		if vi%ctxEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		v := &day.visits[vi]
		cands, seen = cands[:0], seen[:0]
		var confPage int32 = -1
		for p := v.firstPage; p < v.firstPage+v.nLive; p++ {
			pg := &w.pages[day.pages[p].pid]
			switch pg.kind {
			case pageProduct:
				prod := int32(int(day.pages[p].pid) - pidProduct)
				if !slices.Contains(seen, prod) {
					seen = append(seen, prod)
					cands = append(cands, candidate{prod, p})
				}
			case pageConfirmation:
				confPage = p
			}
		}
		if len(cands) == 0 {
			continue
		}
		// Shopping means the visit reached /cart: the first funnel page must have survived the
		// midnight cut (a planned funnel that midnight cut off before /cart is only browsing).
		browse := v.nPages - int32(v.stage)
		shopping := v.stage >= 1 && v.nLive > browse
		first := len(day.positions)
		for _, c := range cands {
			demand := w.catalog.Products[c.product].Demand
			p := takeBrowsing[demand]
			if shopping {
				p = takeShopping[demand]
			}
			if s.Int(100) < p {
				day.positions = append(day.positions, position{product: c.product, page: c.page})
			}
		}
		restore := s.Int(len(cands))
		if shopping && len(day.positions) == first {
			c := cands[restore]
			day.positions = append(day.positions, position{product: c.product, page: c.page})
		}
		basket := day.positions[first:]
		if len(basket) == 0 {
			continue
		}
		for i := range basket {
			ps := &basket[i]
			ps.qty = uint8(1 + s.Pick(&quantityTable))
			ps.variant = uint8(s.Int(len(variants)))
			ps.kept = s.Int(100) >= abandonedPercent
			ps.sec = day.pages[ps.page].sec + int32(s.Range(tradeDelayMin, tradeDelayMax))
			if ps.live = ps.sec < daySeconds; ps.live {
				trade = append(trade, event{sec: ps.sec, visit: int32(vi), page: ps.page, ref: int32(first + i), kind: evAddToCart})
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
			visit: int32(vi), confPage: confPage, sec: day.pages[confPage].sec + delay,
			posFrom: int32(first), posTo: int32(len(day.positions))}
		if used {
			pu.Coupon = couponIdx
		}
		for _, ps := range basket {
			if ps.kept {
				pu.Lines = append(pu.Lines, Line{Product: int(ps.product), Qty: int(ps.qty)})
				pu.Revenue += w.catalog.Products[ps.product].Price * int64(ps.qty)
			}
		}
		pu.UTCSecond = dayStartUTC(day.N) + int64(pu.sec)
		trade = append(trade, event{sec: pu.sec, visit: int32(vi), page: confPage, ref: int32(len(day.Purchases)), kind: evPurchase})
		day.Purchases = append(day.Purchases, pu)
	}

	// Trade WatchIDs (COMMERCE), disjoint from the pageview ids.
	pageIDs := make([]uint64, 0, len(day.events))
	for _, e := range day.events {
		pageIDs = append(pageIDs, e.watchID)
	}
	tids := uniqueIDs(s, len(trade), pageIDs)
	for i := range trade {
		trade[i].watchID = tids[i]
		if trade[i].kind == evPurchase {
			day.Purchases[trade[i].ref].watchID = tids[i]
		}
	}

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
	for i := range trade {
		if trade[i].kind == evPurchase {
			trade[i].ref = where[trade[i].ref]
		}
	}

	day.beacons(&trade, append(pageIDs, tids...))

	all := append(day.events, trade...)
	day.events = sortEvents(all)
	for _, e := range day.events {
		day.Stats.ByKind[e.kind]++
	}
	st := &day.Stats
	st.Pageviews = st.ByKind[evPageview] + st.ByKind[evDupPageview]
	st.AddToCart = st.ByKind[evAddToCart]
	st.Purchases = st.ByKind[evPurchase] + st.ByKind[evDupPurchase]
	st.Orders = len(day.Purchases)
	day.buildEcommerce()
	return nil
}

// beacons draws, per numbered purchase, whether its event is lost (never for guaranteed
// orders) and whether the confirmation + purchase pair is sent twice after 30…300 s (only if
// the copy stays before midnight and more than 30 minutes before the cookie's next visit).
// Lost purchase rows leave trade; copies are added with WatchIDs disjoint from used.
func (day *Day) beacons(trade *[]event, used []uint64) {
	s := newStream(day.World.seed, streamBeacons, day.N, 0)
	var dups []int
	for i := range day.Purchases {
		pu := &day.Purchases[i]
		lostDraw, dupDraw, delay := s.Int(100), s.Int(100), int32(s.Range(duplicateDelayMin, duplicateDelayMax))
		pu.Lost = !pu.Assigned && lostDraw < lostPurchasePercent
		if pu.Lost || dupDraw >= duplicatePercent {
			continue
		}
		v := &day.visits[pu.visit]
		if pu.sec+delay >= daySeconds || v.nextStart-pu.sec <= duplicateNextVisitGap+delay {
			continue
		}
		pu.Duplicate, pu.dupDelay = true, delay
		dups = append(dups, i)
	}
	kept := (*trade)[:0]
	for _, e := range *trade {
		if e.kind == evPurchase && day.Purchases[e.ref].Lost {
			day.Stats.Lost++
			continue
		}
		kept = append(kept, e)
	}
	*trade = kept
	ids := uniqueIDs(s, 2*len(dups), used)
	for j, i := range dups {
		pu := &day.Purchases[i]
		conf := day.pages[pu.confPage].sec
		*trade = append(*trade,
			event{watchID: ids[2*j], sec: conf + pu.dupDelay, visit: pu.visit, page: pu.confPage, ref: int32(i), kind: evDupPageview},
			event{watchID: ids[2*j+1], sec: pu.sec + pu.dupDelay, visit: pu.visit, page: pu.confPage, ref: int32(i), kind: evDupPurchase})
		day.Stats.Duplicated++
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
	var prods [1]schema.EcommerceProduct
	day.cartEcom = make([]string, len(day.positions))
	for i, ps := range day.positions {
		if !ps.live {
			continue
		}
		prods[0] = product(ps.product, ps.qty, ps.variant)
		buf = schema.AppendEcommerce(buf[:0], &schema.Ecommerce{Action: schema.ProductAdd, Products: prods[:]})
		day.cartEcom[i] = string(buf)
	}
	// A purchase's products are its kept basket positions, in basket order, with their variants.
	for i := range day.Purchases {
		pu := &day.Purchases[i]
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
