package world

import (
	"strconv"

	"github.com/clickgen/clickgen/schema"
)

// pageviewTail is columns 35–47 of every pageview: all empty.
var pageviewTail = schema.AppendHitTail(nil, &schema.Hit{})

var (
	goalCart     = []uint32{schema.GoalCart}
	goalPurchase = []uint32{schema.GoalPurchase}
	currency     = []string{schema.Currency}
	noCoupon     = []string{""}
	addEventType = []string{schema.ProductAdd}
)

// visitSegments encodes columns 13–34 of the visits once (they are constant within a visit):
// of every visit, or, with owned, of the visits a segment owns (the first call decides). A
// visit left out has an empty segment and is encoded on the fly ([Day.AppendEvent]).
func (day *Day) visitSegments(owned []bool) {
	day.segOnce.Do(func() {
		day.segOff = make([]uint32, len(day.visits)+1)
		n := len(day.visits)
		if owned != nil {
			n = 0
			for _, o := range owned {
				if o {
					n++
				}
			}
		}
		day.segs = make([]byte, 0, n*600)
		for i := range day.visits {
			if owned == nil || owned[i] {
				day.segs = day.appendVisitSegment(day.segs, i)
			}
			day.segOff[i+1] = uint32(len(day.segs))
		}
	})
}

// appendVisitSegment appends columns 13–34 of visit i.
func (day *Day) appendVisitSegment(dst []byte, i int) []byte {
	var ipBuf [24]byte
	ip := ipBuf[:0]
	v := &day.visits[i]
	src, dev, city := &sources[v.source], &devices[v.device], &cities[v.city]
	if dev.Category == devicePhone {
		ip = append(ip, "100."...)
		ip = strconv.AppendUint(ip, uint64(v.ip[0]), 10)
		ip = append(ip, '.')
		ip = strconv.AppendUint(ip, uint64(v.ip[1]), 10)
		ip = append(ip, '.')
	} else {
		ip = append(ip, city.IPPrefix...)
	}
	ip = strconv.AppendUint(ip, uint64(v.ip[2]), 10)
	h := schema.Hit{
		UTMSource: src.UTM[0], UTMMedium: src.UTM[1], UTMCampaign: src.UTM[2], UTMContent: src.UTM[3], UTMTerm: src.UTM[4],
		LastTrafficSource: src.Last, HasGCLID: src.GCLID, YCLID: v.yclid,
		Browser: dev.Browser, BrowserMajorVersion: dev.Major, BrowserLanguage: dev.Language, OperatingSystem: dev.OS,
		OperatingSystemRoot: dev.OSRoot, DeviceCategory: dev.Category, MobilePhoneModel: dev.Model,
		ScreenWidth: dev.Width, ScreenHeight: dev.Height, IPAddress: string(ip),
		RegionCountry: schema.RegionCountry, RegionCity: city.Name, RegionCountryID: schema.RegionCountryID, RegionCityID: city.ID,
	}
	return schema.AppendHitVisit(dst, &h)
}

// pageURL is the URL of page p of its visit: the entry page carries the source's UTM query.
func (day *Day) pageURL(v *visit, p int32) string {
	pid := day.pages[p].pid
	if p == v.firstPage {
		return day.World.entryURL[pid][v.source]
	}
	return day.World.pages[pid].url
}

// AppendEvent appends the canonical bytes of event i (0 ≤ i < Len), without a newline. It is
// safe to call from several goroutines at once.
func (day *Day) AppendEvent(dst []byte, i int) []byte {
	day.visitSegments(nil)
	e := &day.events[i]
	v := &day.visits[e.visit]
	w := day.World
	pg := &day.pages[e.page]
	var h schema.Hit
	h.WatchID = e.watchID
	h.VisitID = v.visitID
	h.ClientID = v.clientID
	h.CounterID = schema.CounterID
	h.EventDate = DayDate(day.N)
	h.UTCEventTime = schema.DateTime(dayStartUTC(day.N) + int64(e.sec))
	h.ClientTimeZone = cities[v.city].TZ
	h.EventType = eventTypeOf(e.kind)
	h.Sign = schema.Sign
	h.URL = day.pageURL(v, e.page)
	switch {
	case e.kind == evDupPageview || e.kind == evDupPurchase:
		h.Referer = h.URL
	case e.page == v.firstPage:
		h.Referer = sources[v.source].Referer
	default:
		h.Referer = day.pageURL(v, e.page-1)
	}
	h.Title = w.pages[pg.pid].title
	dst = schema.AppendHitHead(dst, &h)
	if lo, hi := day.segOff[e.visit], day.segOff[e.visit+1]; lo < hi {
		dst = append(dst, day.segs[lo:hi]...)
	} else {
		dst = day.appendVisitSegment(dst, int(e.visit)) // a visit the segment does not own
	}

	switch e.kind {
	case evAddToCart:
		ps := &day.positions[e.ref]
		p := &w.catalog.Products[ps.product]
		ids, names, cats := [1]string{p.SKU}, [1]string{p.Name}, [1]string{categories[p.Category].Name}
		prices, qtys := [1]int64{roubles(p.Price)}, [1]uint64{uint64(ps.qty)}
		h.GoalsReached = goalCart
		h.ProductID, h.ProductName, h.ProductCategory = ids[:], names[:], cats[:]
		h.ProductPrice, h.ProductQuantity, h.ProductEventType = prices[:], qtys[:], addEventType
		h.Ecommerce = day.cartEcom[e.ref]
		return schema.AppendHitTail(dst, &h)
	case evPurchase, evDupPurchase:
		pu := &day.Purchases[e.ref]
		var ids, names, cats, types [16]string
		var prices [16]int64
		var qtys [16]uint64
		var orderID [1]string
		var revenue [1]int64
		var coupon [1]string
		orderID[0], revenue[0] = pu.OrderID, pu.Revenue
		h.GoalsReached = goalPurchase
		h.PurchaseID, h.PurchaseRevenue, h.PurchaseCurrency = orderID[:], revenue[:], currency
		h.PurchaseCoupon = noCoupon
		if pu.Coupon >= 0 {
			coupon[0] = coupons[pu.Coupon].Code
			h.PurchaseCoupon = coupon[:]
		}
		h.ProductID, h.ProductName, h.ProductCategory = ids[:0], names[:0], cats[:0]
		h.ProductPrice, h.ProductQuantity, h.ProductEventType = prices[:0], qtys[:0], types[:0]
		for _, l := range pu.Lines {
			p := &w.catalog.Products[l.Product]
			h.ProductID = append(h.ProductID, p.SKU)
			h.ProductName = append(h.ProductName, p.Name)
			h.ProductCategory = append(h.ProductCategory, categories[p.Category].Name)
			h.ProductPrice = append(h.ProductPrice, roubles(p.Price))
			h.ProductQuantity = append(h.ProductQuantity, uint64(l.Qty))
			h.ProductEventType = append(h.ProductEventType, schema.ProductPurchase)
		}
		h.Ecommerce = pu.ecommerce
		return schema.AppendHitTail(dst, &h)
	}
	return append(dst, pageviewTail...)
}

// roubles is the client's whole-rouble price: kopecks rounded half-up (hits.md productPrice).
func roubles(kopecks int64) int64 { return (kopecks + 50) / 100 }
