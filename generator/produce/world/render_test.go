package world

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/schema"
)

// referenceHit is event i of day as a schema.Hit, built field by field the plain way: what the
// pre-encoded parts of render.go must reproduce.
func referenceHit(day *Day, i int) *schema.Hit {
	e := &day.events[i]
	v := &day.visits[e.visit]
	w := day.World
	pageURL := func(p int32) string {
		if p == v.firstPage {
			return entryURLOf(w, day.pages[p].pid, v.source)
		}
		u, _ := plainPage(w, day.pages[p].pid)
		return u
	}
	src, dev, city := &sources[v.source], &devices[v.device], &cities[v.city]
	ip := city.IPPrefix
	if dev.Category == devicePhone {
		ip = "100." + strconv.Itoa(int(v.ip[0])) + "." + strconv.Itoa(int(v.ip[1])) + "."
	}
	ip += strconv.Itoa(int(v.ip[2]))
	h := &schema.Hit{
		WatchID: e.watchID, VisitID: v.visitID, ClientID: v.clientID, CounterID: schema.CounterID,
		EventDate: DayDate(day.N), UTCEventTime: schema.DateTime(dayStartUTC(day.N) + int64(e.sec)),
		ClientTimeZone: city.TZ, EventType: eventTypeOf(e.kind), Sign: schema.Sign,
		URL: pageURL(e.page), Title: plainTitle(w, day.pages[e.page].pid),
		UTMSource: src.UTM[0], UTMMedium: src.UTM[1], UTMCampaign: src.UTM[2], UTMContent: src.UTM[3], UTMTerm: src.UTM[4],
		LastTrafficSource: src.Last, HasGCLID: src.GCLID, YCLID: v.yclid,
		Browser: dev.Browser, BrowserMajorVersion: dev.Major, BrowserLanguage: dev.Language, OperatingSystem: dev.OS,
		OperatingSystemRoot: dev.OSRoot, DeviceCategory: dev.Category, MobilePhoneModel: dev.Model,
		ScreenWidth: dev.Width, ScreenHeight: dev.Height, IPAddress: ip,
		RegionCountry: schema.RegionCountry, RegionCity: city.Name, RegionCountryID: schema.RegionCountryID, RegionCityID: city.ID,
		GoalsReached: []uint32{}, ParsedParamsKey1: []string{},
	}
	switch {
	case e.kind == evDupPageview || e.kind == evDupPurchase:
		h.Referer = h.URL
	case e.page == v.firstPage:
		h.Referer = src.Referer
	default:
		h.Referer = pageURL(e.page - 1)
	}
	switch e.kind {
	case evAddToCart:
		ps := &day.positions[e.ref]
		p := &w.catalog.Products[ps.product]
		h.GoalsReached = []uint32{schema.GoalCart}
		h.ProductID, h.ProductName, h.ProductCategory = []string{p.SKU}, []string{p.Name}, []string{categories[p.Category].Name}
		h.ProductPrice, h.ProductQuantity, h.ProductEventType = []int64{roubles(p.Price)}, []uint64{uint64(ps.qty)}, []string{schema.ProductAdd}
		h.Ecommerce = day.cartEcommerce(e.ref)
	case evPurchase, evDupPurchase:
		pu := &day.Purchases[e.ref]
		h.GoalsReached = []uint32{schema.GoalPurchase}
		h.PurchaseID, h.PurchaseRevenue, h.PurchaseCurrency = []string{pu.OrderID}, []int64{pu.Revenue}, []string{schema.Currency}
		h.PurchaseCoupon = []string{""}
		if pu.Coupon >= 0 {
			h.PurchaseCoupon = []string{coupons[pu.Coupon].Code}
		}
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
	}
	return h
}

// plainPage is the URL and title of page pid, built the plain way from the page id layout
// (HOME, CATALOG×6, SEARCH×8, PRODUCT×len(catalog), STATIC×3, CART, CHECKOUT, CONFIRMATION),
// independently of buildPages.
func plainPage(w *World, pid uint16) (url, title string) {
	i := int(pid)
	nProd := len(w.catalog.Products)
	path, heading := "", ""
	switch {
	case i == pidHome:
		path, heading = "/", homeHeading
	case i < pidSearch:
		c := categories[i-pidCatalog]
		path, heading = "/catalog/"+c.Slug, c.Name
	case i < pidProduct:
		path, heading = "/search?text="+percentEncode(searchQueries[i-pidSearch]), searchHeading
	case i < pidProduct+nProd:
		p := w.catalog.Products[i-pidProduct]
		path, heading = "/product/"+p.SKU, p.Name
	case i < pidProduct+nProd+len(staticPages):
		s := staticPages[i-pidProduct-nProd]
		path, heading = s.path, s.heading
	default:
		k := i - pidProduct - nProd - len(staticPages)
		path = [3]string{"/cart", "/checkout", "/confirmation"}[k]
		heading = [3]string{cartHeading, checkoutHeading, confirmationHeading}[k]
	}
	return SiteURL + path, heading + " — " + SiteName
}

func plainTitle(w *World, pid uint16) string { _, t := plainPage(w, pid); return t }

// entryURLOf is the URL of page pid entered from source si: the page's URL with the
// source's UTM query, built the plain way.
func entryURLOf(w *World, pid uint16, si uint8) string {
	u, _ := plainPage(w, pid)
	var q []string
	for i, v := range sources[si].UTM {
		if v != "" {
			q = append(q, utmNames[i]+"="+v)
		}
	}
	if len(q) > 0 {
		sep := "?"
		if strings.Contains(u, "?") {
			sep = "&"
		}
		u += sep + strings.Join(q, "&")
	}
	return u
}

// TestFastEncoderIsSchemaEncoder renders every event of a few days (weekday, weekend, a
// larger scale) from pre-encoded parts and compares it with schema.AppendHit of the same
// values built field by field.
func TestFastEncoderIsSchemaEncoder(t *testing.T) {
	cases := []struct {
		scale float64
		day   int
	}{{1, 0}, {1, 5}, {3, 2}}
	if testing.Short() {
		cases = cases[:1]
	}
	for _, c := range cases {
		w, err := NewWorld(Params{Scale: c.scale})
		if err != nil {
			t.Fatal(err)
		}
		day := w.Day(c.day)
		kinds := map[uint8]int{}
		var got, want []byte
		for i := range day.Len() {
			got = day.AppendEvent(got[:0], i)
			want = schema.AppendHit(want[:0], referenceHit(day, i))
			if !bytes.Equal(got, want) {
				t.Fatalf("scale %v day %d event %d:\n got %s\nwant %s", c.scale, c.day, i, got, want)
			}
			kinds[day.events[i].kind]++
		}
		if len(kinds) != int(numEventKinds) {
			t.Fatalf("scale %v day %d: only event kinds %v: the comparison must cover all %d", c.scale, c.day, kinds, numEventKinds)
		}
	}
}

// cartEcommerce is the Ecommerce JSON of the add_to_cart of position i, unescaped, encoded
// whole by schema (what appendCartTail writes escaped, in pieces): the test's reference.
func (day *Day) cartEcommerce(i int32) string {
	ps := &day.positions[i]
	p := &day.World.catalog.Products[ps.product]
	prods := []schema.EcommerceProduct{{ID: p.SKU, Name: p.Name, Category: categories[p.Category].Name, Brand: p.Brand,
		Variant: variants[ps.variant], Price: p.Price, Quantity: uint64(ps.qty)}}
	return string(schema.AppendEcommerce(nil, &schema.Ecommerce{Action: schema.ProductAdd, Products: prods}))
}
