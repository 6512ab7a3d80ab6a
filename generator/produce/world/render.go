package world

import (
	"math"
	"strconv"
	"strings"

	"github.com/clickgen/clickgen/schema"
)

// A hit is written from parts encoded once ([schema.AppendHitColumns]) and copied: what is
// constant for a page (URL, title), an event kind, a traffic source, a device and a city.
// Only the ids, the time, YCLID and the IP address are encoded per event. The parts are the
// bytes schema's encoder writes for those columns, so a hit is byte for byte [schema.AppendHit]
// of the same values (TestFastEncoderIsSchemaEncoder checks every event of several days).

// Column positions (0-based, contract order) of the parts.
const (
	colCounterID    = 3
	colUTCEventTime = 5
	colTimeZone     = 6
	colEventType    = 7
	colURL          = 9
	colReferer      = 10
	colTitle        = 11
	colUTMSource    = 12
	colYCLID        = 19
	colBrowser      = 20
	colIPAddress    = 29
	colRegion       = 30
	colGoals        = 34
	colQuantity     = 44
)

// hitParts are the pre-encoded parts of the world's hits.
type hitParts struct {
	url    []string                // [pid]: `,"URL":"…"`
	utm    [2][len(sources)]string // [page has a query][source]: `?utm_…"` or `&utm_…"`; "" without UTM
	title  []string                // [pid]: `,"Title":"…"`
	srcRef [len(sources)]string    // [source]: the Referer column of an entry page
	kind   [numEventKinds]string   // `,"EventType":"…","Sign":1`
	source [len(sources)]string    // UTMSource … HasGCLID, then YCLID's key
	device [len(devices)]string    // Browser … ScreenHeight, then IPAddress's key
	city   [len(cities)]string     // RegionCountry … RegionCityID
	tz     [len(cities)]string     // `,"ClientTimeZone":…`
	tail   string                  // columns 35–47 of a pageview and the closing brace
	cart   []string                // [product]: columns 35–45 of its add_to_cart, to the quantity's '['
	cartQ  string                  // what follows an add_to_cart's quantity, to Ecommerce's key
	refKey string                  // `,"Referer":`
	urlKey int                     // len(`,"URL":`): a URL column minus it is the URL's value

	variant [len(variants)]string // [variant]: its value in an add_to_cart's Ecommerce, escaped
}

// columns encodes columns [from, to) of h.
func columns(h *schema.Hit, from, to int) string {
	return string(schema.AppendHitColumns(nil, h, from, to))
}

// buildParts pre-encodes the parts of every kind, source, device and city (the pages' are
// built by buildPages).
func (w *World) buildParts() {
	p := &w.parts
	for si, src := range sources {
		p.srcRef[si] = columns(&schema.Hit{Referer: src.Referer}, colReferer, colReferer+1)
		h := schema.Hit{UTMSource: src.UTM[0], UTMMedium: src.UTM[1], UTMCampaign: src.UTM[2], UTMContent: src.UTM[3],
			UTMTerm: src.UTM[4], LastTrafficSource: src.Last, HasGCLID: src.GCLID}
		p.source[si] = columns(&h, colUTMSource, colYCLID) + schema.HitKey(colYCLID)
	}
	for k := range p.kind {
		p.kind[k] = columns(&schema.Hit{EventType: eventTypeOf(uint8(k)), Sign: schema.Sign}, colEventType, colURL)
	}
	for di, dev := range devices {
		h := schema.Hit{Browser: dev.Browser, BrowserMajorVersion: dev.Major, BrowserLanguage: dev.Language, OperatingSystem: dev.OS,
			OperatingSystemRoot: dev.OSRoot, DeviceCategory: dev.Category, MobilePhoneModel: dev.Model,
			ScreenWidth: dev.Width, ScreenHeight: dev.Height}
		p.device[di] = columns(&h, colBrowser, colIPAddress) + schema.HitKey(colIPAddress)
	}
	for ci, city := range cities {
		h := schema.Hit{RegionCountry: schema.RegionCountry, RegionCity: city.Name, RegionCountryID: schema.RegionCountryID,
			RegionCityID: city.ID, ClientTimeZone: city.TZ}
		p.city[ci] = columns(&h, colRegion, colGoals)
		p.tz[ci] = columns(&h, colTimeZone, colTimeZone+1)
	}
	p.tail = columns(&schema.Hit{}, colGoals, schema.NumHitColumns)
	// An add_to_cart's tail is one product's columns, its quantity and its ecommerce JSON:
	// everything before the quantity is the product's, and what follows it up to Ecommerce's
	// value is constant (appendCartTail).
	qKey := schema.HitKey(colQuantity)
	for i := range w.catalog.Products {
		pr := &w.catalog.Products[i]
		h := schema.Hit{GoalsReached: goalCart, ProductID: []string{pr.SKU}, ProductName: []string{pr.Name},
			ProductCategory: []string{categories[pr.Category].Name}, ProductPrice: []int64{roubles(pr.Price)},
			ProductQuantity: []uint64{}, ProductEventType: addEventType}
		tail := string(schema.AppendHitTail(nil, &h))
		at := strings.Index(tail, qKey+"[]")
		if at < 0 {
			panic("world: an add_to_cart tail without " + qKey)
		}
		p.cart = append(p.cart, tail[:at+len(qKey)+1])
		p.cartQ = tail[at+len(qKey)+1 : len(tail)-len(`""}`)] // `]`, ProductEventType, Ecommerce's key
	}
	for i, v := range variants {
		s := string(schema.AppendString(nil, string(schema.AppendString(nil, v))))
		p.variant[i] = s[1 : len(s)-1]
	}
	p.refKey = schema.HitKey(colReferer)
	p.urlKey = len(schema.HitKey(colURL))
}

// dayPart is CounterID and EventDate of day d's hits, then UTCEventTime's key.
func dayPart(d int) string {
	return columns(&schema.Hit{CounterID: schema.CounterID, EventDate: DayDate(d)}, colCounterID, colUTCEventTime) +
		schema.HitKey(colUTCEventTime)
}

// appendURL appends the URL column of event e's page (with prev, of the page before it in
// its visit), or with key false only its value (a Referer's): the entry page carries the
// source's UTM query, appended to the page's URL before its closing quote. That is byte for
// byte the column of the URL with the query, as JSON escapes character by character and the
// query needs no escaping (buildPages checks).
func (day *Day) appendURL(dst []byte, e *event, prev, key bool) []byte {
	w := day.World
	pid, entry := e.pid, e.at&atEntry != 0
	if prev {
		pid, entry = e.prevPid, e.at&afterEntry != 0
	}
	col := w.parts.url[pid]
	if !key {
		col = col[w.parts.urlKey:]
	}
	if entry {
		q := 0
		if w.pages[pid].query {
			q = 1
		}
		if utm := w.parts.utm[q][e.source]; utm != "" {
			dst = append(dst, col[:len(col)-1]...)
			return append(dst, utm...)
		}
	}
	return append(dst, col...)
}

// AppendEvent appends the canonical bytes of event i (0 ≤ i < Len), without a newline. It is
// safe to call from several goroutines at once.
func (day *Day) AppendEvent(dst []byte, i int) []byte { return day.appendEvent(dst, i, nil, nil, nil) }

// eventMarks holds, for the columns where the renderer begins a part of an event, the offset
// of that part in the event's bytes: at or before the column's key (0: no part begins there).
// A maker of malformed hits searches a column's key from the nearest mark before it
// ([defect.locate]) rather than from the event's start.
type eventMarks [schema.NumHitColumns]int32

// set records that column col's part begins at offset at.
func (m *eventMarks) set(col, at int) {
	if m != nil {
		m[col] = int32(at)
	}
}

// before returns the mark of column col or of the nearest column before it with one.
func (m *eventMarks) before(col int) int {
	for ; col > 0; col-- {
		if m[col] > 0 {
			return int(m[col])
		}
	}
	return 0
}

// visitCache remembers, while one batch is rendered, where the bytes that are the same for
// every event of a visit were written for its first event: its VisitID and ClientID, and its
// columns 13–34 (source, device, address, city). A later event of the visit copies them
// instead of formatting them again. Most of a visit's events fall into one batch: of day 0's
// 52 100 events in 10 289 visits, 34 354 copy their visit's bytes in batches of 1024 events
// (39 884 in batches of 4096; 41 811 would if batches never cut a visit). Offsets are into
// the batch's Data; reset it for each batch.
type visitCache struct {
	slots []visitSpan // open addressing on the visit's index, a power of two long
}

// visitSpan is what one visit's first event wrote, as [from, to) offsets; zero: not yet.
type visitSpan struct {
	visit int32    // the visit's index + 1; 0: a free slot
	key   [2]int32 // the ClientID, written as the message's key
	ids   [2]int32 // `,"VisitID":…,"ClientID":…`
	part  [2]int32 // columns 13–34 (appendVisitPart)
}

// reset empties c for a batch of up to n events.
func (c *visitCache) reset(n int) {
	size := 1
	for size < 2*n {
		size <<= 1
	}
	if cap(c.slots) < size {
		c.slots = make([]visitSpan, size)
	}
	c.slots = c.slots[:size]
	clear(c.slots)
}

// span returns visit's slot (a new one, zero but for visit, when the visit is not cached),
// or nil when c is nil or full.
func (c *visitCache) span(visit int32) *visitSpan {
	if c == nil {
		return nil
	}
	mask := uint32(len(c.slots) - 1)
	for i, h := 0, uint32(visit)*0x9E3779B1&mask; i < len(c.slots); i, h = i+1, (h+1)&mask {
		sp := &c.slots[h]
		if sp.visit == visit+1 {
			return sp
		}
		if sp.visit == 0 {
			sp.visit = visit + 1
			return sp
		}
	}
	return nil
}

// appendSpan appends dst[at[0]:at[1]] to dst (bytes written before, never overlapping the
// end they are appended to).
func appendSpan(dst []byte, at [2]int32) []byte { return append(dst, dst[at[0]:at[1]]...) }

// appendEvent is AppendEvent; clientID, if not nil, is the event's ClientID in decimal, already
// written for its key: copying it is cheaper than formatting it again. It may alias dst. With
// vc, the bytes of the event's visit written earlier into dst are copied (see visitCache).
// With marks, it records where its parts begin, from the event's first byte.
func (day *Day) appendEvent(dst []byte, i int, clientID []byte, vc *visitCache, marks *eventMarks) []byte {
	e := &day.events[i]
	v := &day.visits[e.visit]
	w := day.World
	p := &w.parts

	base := len(dst)
	dst = append(dst, schema.HitKey(0)...)
	dst = strconv.AppendUint(dst, e.watchID, 10)
	marks.set(1, len(dst)-base)
	sp := vc.span(e.visit)
	if sp != nil && sp.ids[1] > 0 {
		dst = appendSpan(dst, sp.ids)
	} else {
		from := len(dst)
		dst = append(dst, schema.HitKey(1)...)
		dst = strconv.AppendUint(dst, v.visitID, 10)
		dst = append(dst, schema.HitKey(2)...)
		if clientID != nil {
			dst = append(dst, clientID...)
		} else {
			dst = strconv.AppendUint(dst, v.clientID, 10)
		}
		if sp != nil {
			sp.ids = [2]int32{int32(from), int32(len(dst))}
		}
	}
	marks.set(3, len(dst)-base)
	dst = append(dst, day.part...)
	dst = append(dst, '"')
	dst = day.clock.append(dst, dayStartUTC(day.N)+int64(e.sec))
	dst = append(dst, '"')
	marks.set(colTimeZone, len(dst)-base)
	dst = append(dst, p.tz[e.city]...)
	marks.set(colEventType, len(dst)-base)
	dst = append(dst, p.kind[e.kind]...)
	marks.set(colURL, len(dst)-base)
	dst = day.appendURL(dst, e, false, true)
	marks.set(colReferer, len(dst)-base)
	switch {
	case e.kind == evDupPageview || e.kind == evDupPurchase:
		dst = append(dst, p.refKey...)
		dst = day.appendURL(dst, e, false, false)
	case e.at&atEntry != 0:
		dst = append(dst, p.srcRef[e.source]...)
	default:
		dst = append(dst, p.refKey...)
		dst = day.appendURL(dst, e, true, false)
	}
	marks.set(colTitle, len(dst)-base)
	dst = append(dst, p.title[e.pid]...)
	if sp != nil && sp.part[1] > 0 {
		dst = appendSpan(dst, sp.part)
	} else {
		from := len(dst)
		dst = day.appendVisitPart(dst, v, marks, base)
		if sp != nil {
			sp.part = [2]int32{int32(from), int32(len(dst))}
		}
	}
	marks.set(colGoals, len(dst)-base)

	switch e.kind {
	case evAddToCart:
		return day.appendCartTail(dst, e)
	case evPurchase, evDupPurchase:
		return day.appendPurchaseTail(dst, e)
	}
	return append(dst, p.tail...)
}

// appendVisitPart appends columns 13–34 of visit v: constant within the visit. With marks, it
// records where its parts begin, from offset base of dst.
func (day *Day) appendVisitPart(dst []byte, v *visit, marks *eventMarks, base int) []byte {
	p := &day.World.parts
	marks.set(colUTMSource, len(dst)-base)
	dst = append(dst, p.source[v.source]...)
	dst = strconv.AppendUint(dst, v.yclid, 10)
	marks.set(colBrowser, len(dst)-base)
	dst = append(dst, p.device[v.device]...)
	var ipBuf [24]byte
	ip := ipBuf[:0]
	if devices[v.device].Category == devicePhone {
		ip = append(ip, "100."...)
		ip = strconv.AppendUint(ip, uint64(v.ip[0]), 10)
		ip = append(ip, '.')
		ip = strconv.AppendUint(ip, uint64(v.ip[1]), 10)
		ip = append(ip, '.')
	} else {
		ip = append(ip, cities[v.city].IPPrefix...)
	}
	ip = strconv.AppendUint(ip, uint64(v.ip[2]), 10)
	dst = append(dst, '"')
	dst = append(dst, ip...) // digits and dots: nothing to escape
	dst = append(dst, '"')
	marks.set(colRegion, len(dst)-base)
	return append(dst, p.city[v.city]...)
}

// appendCartTail appends columns 35–47 of add_to_cart event e: the product's pre-encoded
// columns, its quantity, and its ecommerce JSON (schema.AppendHitTail's bytes).
func (day *Day) appendCartTail(dst []byte, e *event) []byte {
	p := &day.World.parts
	ps := &day.positions[e.ref]
	dst = append(dst, p.cart[ps.product]...)
	dst = strconv.AppendUint(dst, uint64(ps.qty), 10)
	dst = append(dst, p.cartQ...)
	c := &day.cartParts[day.cartOf[e.ref]]
	dst = append(dst, c.head...)
	dst = append(dst, p.variant[ps.variant]...)
	dst = append(dst, c.mid...)
	dst = strconv.AppendUint(dst, uint64(ps.qty), 10)
	return append(dst, ecomCartEnd+`"}`...)
}

// appendPurchaseTail appends columns 35–47 of purchase event e (or its duplicate copy).
func (day *Day) appendPurchaseTail(dst []byte, e *event) []byte {
	w := day.World
	pu := &day.Purchases[e.ref]
	var ids, names, cats, types [16]string
	var prices [16]int64
	var qtys [16]uint64
	var orderID [1]string
	var revenue [1]int64
	var coupon [1]string
	h := schema.Hit{GoalsReached: goalPurchase}
	orderID[0], revenue[0] = pu.OrderID, pu.Revenue
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

var (
	goalCart     = []uint32{schema.GoalCart}
	goalPurchase = []uint32{schema.GoalPurchase}
	currency     = []string{schema.Currency}
	noCoupon     = []string{""}
	addEventType = []string{schema.ProductAdd}
)

// roubles is the client's whole-rouble price: kopecks rounded half-up (hits.md productPrice).
func roubles(kopecks int64) int64 { return (kopecks + 50) / 100 }

// dayClock writes the UTC times of a day's events as schema.DateTime does, from the dates
// they fall on encoded once: a day's events fall on two UTC dates (it starts at 20:00 UTC), so
// the calendar arithmetic of every event was the same few dates again.
type dayClock struct {
	first int64             // the first pre-encoded date, in days since 1970-01-01
	dates [clockDays][]byte // "YYYY-MM-DDT" of dates first, first+1, …
}

const clockDays = 4 // the day's two dates and one on either side

func newDayClock(d int) dayClock {
	c := dayClock{first: floorDiv(dayStartUTC(d), daySeconds) - 1}
	for i := range c.dates {
		at := (c.first + int64(i)) * daySeconds
		if at < 0 || at+daySeconds-1 > math.MaxUint32 {
			continue // past what a DateTime holds: append falls back to it
		}
		t := schema.DateTime(at).Append(nil) // YYYY-MM-DDT00:00:00Z
		c.dates[i] = t[:len("YYYY-MM-DDT")]
	}
	return c
}

// append appends UTC second t as schema.DateTime(t).Append does.
func (c *dayClock) append(dst []byte, t int64) []byte {
	i := floorDiv(t, daySeconds) - c.first
	if t < 0 || t > math.MaxUint32 || i < 0 || i >= clockDays || c.dates[i] == nil { // DateTime is 32 bits
		return schema.DateTime(t).Append(dst)
	}
	dst = append(dst, c.dates[i]...)
	rem := t - (c.first+i)*daySeconds
	h, m, s := rem/3600, rem/60%60, rem%60
	return append(dst, byte('0'+h/10), byte('0'+h%10), ':', byte('0'+m/10), byte('0'+m%10), ':', byte('0'+s/10), byte('0'+s%10), 'Z')
}

// floorDiv is a / b rounded down (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}
