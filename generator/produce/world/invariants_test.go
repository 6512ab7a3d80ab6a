package world

// Invariants of the hits contract (hits.md) and of the world's sessions and commerce
// (world.md §3.4, §4), checked on the decoded JSON of every event of days 0–7.

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/internal/testenv"
	"github.com/clickgen/clickgen/schema"
)

const invariantDays = 8 // days 0–7: the stand's starting world

// invariantRaceScale is the scale of the world TestDayInvariants checks under the race
// detector. There it watches two days built in parallel on one world (the cohort cache, the
// workers that compute a day's cohorts), which a tenth of the canonical volume drives as well;
// every invariant it checks holds event by event at any scale. The plain run checks the
// canonical world.
const invariantRaceScale = 0.1

func TestDayInvariants(t *testing.T) {
	w := canonical(t)
	if testenv.Race {
		w = freshWorld(t, Params{Scale: invariantRaceScale})
	}
	visitIDs := make([]map[uint64]bool, invariantDays)
	t.Run("day", func(t *testing.T) {
		for d := range invariantDays {
			if testing.Short() && d != 0 && d != invariantDays-1 {
				continue // -short: the first and the last day only
			}
			t.Run(strconv.Itoa(d), func(t *testing.T) {
				t.Parallel()
				visitIDs[d] = checkDayInvariants(t, w, d)
			})
		}
	})
	// A visit never crosses counter midnight: no VisitID of day d continues on day d+1.
	for d := 0; d+1 < invariantDays; d++ {
		if visitIDs[d] == nil || visitIDs[d+1] == nil {
			continue
		}
		n := 0
		for id := range visitIDs[d+1] {
			if visitIDs[d][id] {
				n++
			}
		}
		if n != 0 {
			t.Errorf("days %d and %d share %d VisitIDs, want 0 (visits are cut at counter midnight)", d, d+1, n)
		}
	}
}

// evRec is what the cross-event checks need to know about one event.
type evRec struct {
	idx     int
	sec     int64
	watch   uint64
	typ     string
	url     string
	ref     string
	page    uint64 // hash of the columns a trade event copies from its page (all but WatchID, UTCEventTime, EventType, Referer and the tail)
	client  uint64
	product string // productID[0] of add_to_cart
	oid     string // purchaseID[0] of purchase
	revenue int64  // purchaseRevenue[0] of purchase, kopecks
	dupConf bool   // a /confirmation pageview with Referer == URL: the copy of a page refresh
	cat     string // category prefix of a product page or slug of a catalog page, "" otherwise
}

// pageColumns are the 0-based wire positions a trade event copies from its pageview, Referer
// aside (duplicate copies change it).
var pageColumns = func() []int {
	var cols []int
	for i, c := range schema.HitColumns {
		switch c.Name {
		case "WatchID", "UTCEventTime", "EventType", "Referer":
			continue
		}
		if i >= 34 { // GoalsReached … ecommerce: the trade columns
			break
		}
		cols = append(cols, i)
	}
	return cols
}()

// alwaysFilled are the columns hits.md never allows to be empty on any event.
var alwaysFilled = []string{"WatchID", "VisitID", "ClientID", "CounterID", "EventDate", "UTCEventTime",
	"ClientTimeZone", "EventType", "Sign", "URL", "Title", "LastTrafficSource", "Browser",
	"BrowserMajorVersion", "BrowserLanguage", "OperatingSystem", "OperatingSystemRoot", "DeviceCategory",
	"ScreenWidth", "ScreenHeight", "IPAddress", "RegionCountry", "RegionCity", "RegionCountryID", "RegionCityID"}

func colIndex(name string) int {
	_, i, ok := schema.HitColumn(name)
	if !ok {
		panic("no column " + name)
	}
	return i
}

// checkDayInvariants checks every event of day d on the wire and returns the day's VisitIDs.
func checkDayInvariants(t *testing.T, w *World, d int) map[uint64]bool {
	day := w.Day(d)
	L := newLimited(t)
	defer L.summary()
	cat := catalogBySKU(w.catalog)
	keys := schema.HitKeys()
	date := DayDate(d).String()
	start := dayStartUTC(d)
	confURL := SiteURL + "/confirmation"

	// The people behind the day's visits and purchases (unexported: person_id never reaches
	// the wire, which is the point).
	persons := map[uint64]bool{}
	for i := range day.visits {
		persons[day.visits[i].personID] = true
	}
	for _, p := range day.Purchases {
		persons[p.PersonID] = true
	}
	filled := make([]int, len(alwaysFilled))
	for i, n := range alwaysFilled {
		filled[i] = colIndex(n)
	}
	var (
		visits     = map[uint64][]evRec{}
		watchSeen  = make(map[uint64]bool, day.Len())
		byOID      = map[string][]evRec{}
		byType     = map[string]int{}
		prevSec    = int64(-1)
		prevWatch  uint64
		confPages  int // original /confirmation pageviews
		dupConfs   int
		lastSeq    = 0
		buf        []byte
		stdChecked int
	)
	for i := range day.Len() {
		buf = day.AppendEvent(buf[:0], i)
		b := buf
		if slices.Contains(b, '\n') {
			L.errorf("newline", "event %d contains a newline", i)
		}
		ks, vals, err := scanObject(b)
		if err != nil {
			L.errorf("json", "event %d: %v: %s", i, err, b)
			continue
		}
		if !slices.Equal(ks, keys) {
			L.errorf("keys", "event %d: %s", i, keyDiff(ks, keys))
			continue
		}
		h, err := decodeHit(b)
		if err != nil {
			L.errorf("decode", "event %d: %v: %s", i, err, b)
			continue
		}
		if h.EventType != schema.EventPageview || i%97 == 0 {
			// An independent reading of the key order (encoding/json's tokenizer) on every
			// trade event and a deterministic sample of pageviews.
			sk, err := stdlibKeys(b)
			if err != nil || !slices.Equal(sk, keys) {
				L.errorf("keys-stdlib", "event %d (%s): %v %s", i, h.EventType, err, keyDiff(sk, keys))
			}
			stdChecked++
		}
		byType[h.EventType]++

		// The Kafka key and the event type agree with the compact model.
		if h.ClientID != day.ClientID(i) {
			L.errorf("key", "event %d: ClientID %d, Day.ClientID %d", i, h.ClientID, day.ClientID(i))
		}
		if h.EventType != day.EventType(i) {
			L.errorf("type", "event %d: EventType %q, Day.EventType %q", i, h.EventType, day.EventType(i))
		}

		// Emptiness by event type, exactly as the contract table says.
		for c, col := range schema.HitColumns {
			if col.Empty.Has(h.EventType) && !isEmptyRaw(vals[c]) {
				L.errorf("empty", "event %d (%s): %s = %s, want empty", i, h.EventType, col.Name, vals[c])
			}
		}
		for _, c := range filled {
			if isEmptyRaw(vals[c]) {
				L.errorf("filled", "event %d (%s): %s is empty, want a value", i, h.EventType, keys[c])
			}
		}
		checkConstants(L, i, h)
		checkPassport(L, i, h)

		// Array groups and the "1 element" / "≥ 1" cells of the emptiness table.
		np, nq := len(h.PurchaseID), len(h.ProductID)
		if len(h.PurchaseRevenue) != np || len(h.PurchaseCurrency) != np || len(h.PurchaseCoupon) != np {
			L.errorf("purchase-arrays", "event %d: purchase* lengths %d/%d/%d/%d, want equal", i,
				np, len(h.PurchaseRevenue), len(h.PurchaseCurrency), len(h.PurchaseCoupon))
		}
		if len(h.ProductName) != nq || len(h.ProductCategory) != nq || len(h.ProductPrice) != nq ||
			len(h.ProductQuantity) != nq || len(h.ProductEventType) != nq {
			L.errorf("product-arrays", "event %d: product* lengths %d/%d/%d/%d/%d/%d, want equal", i, nq,
				len(h.ProductName), len(h.ProductCategory), len(h.ProductPrice), len(h.ProductQuantity), len(h.ProductEventType))
		}
		switch h.EventType {
		case schema.EventPageview:
		case schema.EventAddToCart:
			if !slices.Equal(h.GoalsReached, []uint32{schema.GoalCart}) || nq != 1 || np != 0 || h.Ecommerce == "" {
				L.errorf("cart-shape", "event %d: add_to_cart with goals %v, %d products, %d purchases, ecommerce %d bytes; want [%d], 1, 0, non-empty",
					i, h.GoalsReached, nq, np, len(h.Ecommerce), schema.GoalCart)
			}
		case schema.EventPurchase:
			if !slices.Equal(h.GoalsReached, []uint32{schema.GoalPurchase}) || nq < 1 || np != 1 || h.Ecommerce == "" {
				L.errorf("purchase-shape", "event %d: purchase with goals %v, %d products, %d purchases, ecommerce %d bytes; want [%d], ≥1, 1, non-empty",
					i, h.GoalsReached, nq, np, len(h.Ecommerce), schema.GoalPurchase)
			}
			if np == 1 && h.PurchaseCurrency[0] != schema.Currency {
				L.errorf("currency", "event %d: purchaseCurrency %q, want %q", i, h.PurchaseCurrency[0], schema.Currency)
			}
		default:
			L.errorf("type", "event %d: EventType %q", i, h.EventType)
			continue
		}

		// Date and time: the model day's date, a second inside the counter day.
		if h.EventDate != date {
			L.errorf("date", "event %d: EventDate %s, want %s", i, h.EventDate, date)
		}
		sec, err := utcSecond(h.UTCEventTime)
		if err != nil {
			L.errorf("time", "event %d: UTCEventTime %q: %v", i, h.UTCEventTime, err)
			continue
		}
		if sec < start || sec >= start+daySeconds {
			L.errorf("time", "event %d: UTCEventTime %s outside day %d [%d, %d)", i, h.UTCEventTime, d, start, start+daySeconds)
		}

		// Ids and stream order.
		if h.WatchID < 1 || h.WatchID >= maxID {
			L.errorf("watchid", "event %d: WatchID %d outside [1, 2^53)", i, h.WatchID)
		}
		if watchSeen[h.WatchID] {
			L.errorf("watchid", "event %d: WatchID %d repeats", i, h.WatchID)
		}
		watchSeen[h.WatchID] = true
		if h.VisitID < 1 || h.VisitID >= maxID || h.ClientID < 1 || h.ClientID >= maxID {
			L.errorf("ids", "event %d: VisitID %d, ClientID %d; want both in [1, 2^53)", i, h.VisitID, h.ClientID)
		}
		if sec < prevSec || sec == prevSec && h.WatchID <= prevWatch {
			L.errorf("order", "event %d: (%d, %d) after (%d, %d), want ascending (UTCEventTime, WatchID)", i, sec, h.WatchID, prevSec, prevWatch)
		}
		prevSec, prevWatch = sec, h.WatchID

		// No person_id in any integer column.
		ints := []uint64{h.WatchID, h.VisitID, h.ClientID, uint64(h.CounterID), uint64(h.ClientTimeZone), uint64(h.Sign),
			uint64(h.HasGCLID), h.YCLID, uint64(h.BrowserMajorVersion), uint64(h.DeviceCategory), uint64(h.ScreenWidth),
			uint64(h.ScreenHeight), uint64(h.RegionCountryID), uint64(h.RegionCityID)}
		for _, g := range h.GoalsReached {
			ints = append(ints, uint64(g))
		}
		for _, p := range h.ProductPrice {
			ints = append(ints, uint64(p))
		}
		ints = append(ints, h.ProductQuantity...)
		for _, v := range ints {
			if persons[v] {
				L.errorf("person", "event %d: integer column holds person_id %d", i, v)
			}
		}

		// Trade money and the raw ecommerce block.
		var revenue int64
		if h.EventType != schema.EventPageview {
			if revenue, err = checkEcommerce(h, cat); err != nil {
				L.errorf("ecommerce", "event %d (%s %v): %v", i, h.EventType, h.PurchaseID, err)
			}
		}

		r := evRec{idx: i, sec: sec, watch: h.WatchID, typ: h.EventType, url: h.URL, ref: h.Referer,
			page: pageHash(vals), client: h.ClientID, revenue: revenue}
		switch h.EventType {
		case schema.EventAddToCart:
			r.product = h.ProductID[0]
		case schema.EventPurchase:
			r.oid = h.PurchaseID[0]
			if len(byOID[r.oid]) == 0 {
				// Originals are numbered in stream order: their sequence numbers ascend.
				seq, _ := strconv.Atoi(r.oid[strings.IndexByte(r.oid, '-')+1:])
				if seq <= lastSeq {
					L.errorf("numbering", "event %d: purchase %s after number %d, want ascending in stream order", i, r.oid, lastSeq)
				}
				lastSeq = seq
			}
			byOID[r.oid] = append(byOID[r.oid], r)
		case schema.EventPageview:
			if h.URL == confURL {
				if h.Referer == h.URL {
					r.dupConf = true
					dupConfs++
				} else {
					confPages++
				}
			}
			path, _, _ := strings.Cut(h.URL, "?")
			if sku, ok := strings.CutPrefix(path, SiteURL+"/product/"); ok {
				r.cat, _, _ = strings.Cut(sku, "-")
			} else if slug, ok := strings.CutPrefix(path, SiteURL+"/catalog/"); ok {
				for _, c := range categories {
					if c.Slug == slug {
						r.cat = c.Prefix
					}
				}
			}
		}
		visits[h.VisitID] = append(visits[h.VisitID], r)
	}
	if stdChecked == 0 {
		t.Errorf("day %d: no event went through the stdlib key-order check", d)
	}

	checkVisits(L, d, visits)
	checkTradePlacement(L, d, visits)

	// Counts on the wire agree with the day's own statistics.
	st := day.Stats
	if got, want := byType[schema.EventAddToCart], st.AddToCart; got != want {
		t.Errorf("day %d: %d add_to_cart events on the wire, Stats.AddToCart = %d", d, got, want)
	}
	if got, want := byType[schema.EventPurchase], st.Purchases; got != want {
		t.Errorf("day %d: %d purchase events on the wire, Stats.Purchases = %d", d, got, want)
	}
	if got, want := byType[schema.EventPageview], st.Pageviews; got != want {
		t.Errorf("day %d: %d pageviews on the wire, Stats.Pageviews = %d", d, got, want)
	}
	if dupConfs != st.Duplicated || st.ByKind[evDupPurchase] != st.Duplicated {
		t.Errorf("day %d: %d copied /confirmation pageviews and %d copied purchases, Stats.Duplicated = %d; want all equal",
			d, dupConfs, st.ByKind[evDupPurchase], st.Duplicated)
	}
	// Every surviving /confirmation produces a numbered purchase (its purchase fits the day).
	if confPages != len(day.Purchases) {
		t.Errorf("day %d: %d original /confirmation pageviews, %d numbered purchases; want equal", d, confPages, len(day.Purchases))
	}

	// Numbering and the beacons: consecutive numbers over Purchases; every non-lost purchase
	// on the wire once (duplicates twice), lost ones never; no other purchaseID.
	prefix := orderIDPrefix(d)
	lost, dups := 0, 0
	for k, pu := range day.Purchases {
		if want := fmt.Sprintf("%s-%04d", prefix, k+1); pu.OrderID != want {
			L.errorf("order-id", "day %d: Purchases[%d].OrderID = %s, want %s", d, k, pu.OrderID, want)
		}
		if pu.Lost && (pu.Assigned || pu.Duplicate) {
			L.errorf("beacons", "day %d: %s is lost and assigned=%v duplicate=%v; a guaranteed order is never lost, a lost one never copied", d, pu.OrderID, pu.Assigned, pu.Duplicate)
		}
		want := 1
		switch {
		case pu.Lost:
			want = 0
			lost++
		case pu.Duplicate:
			want = 2
			dups++
		}
		evs := byOID[pu.OrderID]
		if len(evs) != want {
			L.errorf("beacons", "day %d: %s (lost=%v duplicate=%v) has %d purchase events, want %d", d, pu.OrderID, pu.Lost, pu.Duplicate, len(evs), want)
			continue
		}
		for _, e := range evs {
			if e.client != pu.ClientID || e.revenue != pu.Revenue {
				L.errorf("purchase", "day %d: %s on the wire has ClientID %d revenue %d, Purchases says %d and %d", d, pu.OrderID, e.client, e.revenue, pu.ClientID, pu.Revenue)
			}
		}
		if want > 0 && evs[0].sec != pu.UTCSecond {
			L.errorf("purchase", "day %d: %s at %d on the wire, Purchases.UTCSecond %d", d, pu.OrderID, evs[0].sec, pu.UTCSecond)
		}
	}
	if len(byOID) != len(day.Purchases)-lost {
		t.Errorf("day %d: %d distinct purchaseIDs on the wire, want %d (numbered %d minus lost %d)", d, len(byOID), len(day.Purchases)-lost, len(day.Purchases), lost)
	}
	if lost != st.Lost || dups != st.Duplicated {
		t.Errorf("day %d: %d lost and %d duplicated in Purchases, Stats says %d and %d", d, lost, dups, st.Lost, st.Duplicated)
	}

	ids := make(map[uint64]bool, len(visits))
	for id := range visits {
		ids[id] = true
	}
	return ids
}

func keyDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("key #%d = %q, want %q (%d keys, want %d)", i+1, got[i], want[i], len(got), len(want))
		}
	}
	return fmt.Sprintf("%d keys, want %d", len(got), len(want))
}

func pageHash(vals [][]byte) uint64 {
	h := fnv.New64a()
	for _, c := range pageColumns {
		h.Write(vals[c])
		h.Write([]byte{0})
	}
	return h.Sum64()
}

func checkConstants(L *limited, i int, h *wireHit) {
	if h.CounterID != schema.CounterID || h.Sign != schema.Sign || h.RegionCountry != schema.RegionCountry ||
		h.RegionCountryID != schema.RegionCountryID {
		L.errorf("constants", "event %d: CounterID %d Sign %d RegionCountry %q RegionCountryID %d", i, h.CounterID, h.Sign, h.RegionCountry, h.RegionCountryID)
	}
	if !strings.HasPrefix(h.URL, SiteURL+"/") {
		L.errorf("url", "event %d: URL %q outside %s", i, h.URL, SiteURL)
	}
	if !strings.HasSuffix(h.Title, " — "+SiteName) {
		L.errorf("title", "event %d: Title %q, want suffix %q", i, h.Title, " — "+SiteName)
	}
}

// checkPassport checks the per-visit and per-cookie columns against the tables of world.md
// §3.6 and §3.8.
func checkPassport(L *limited, i int, h *wireHit) {
	var src *Source
	for k := range sources {
		s := &sources[k]
		if s.Last == h.LastTrafficSource && s.UTM == [5]string{h.UTMSource, h.UTMMedium, h.UTMCampaign, h.UTMContent, h.UTMTerm} {
			src = s
			break
		}
	}
	if src == nil {
		L.errorf("source", "event %d: source %q with UTM %q/%q/%q/%q/%q is not in the source table", i, h.LastTrafficSource,
			h.UTMSource, h.UTMMedium, h.UTMCampaign, h.UTMContent, h.UTMTerm)
	} else {
		if h.HasGCLID != src.GCLID {
			L.errorf("gclid", "event %d: HasGCLID %d for %s/%s", i, h.HasGCLID, h.LastTrafficSource, h.UTMSource)
		}
		if src.YCLID != (h.YCLID != 0) || h.YCLID >= yclidMax {
			L.errorf("yclid", "event %d: YCLID %d for %s/%s", i, h.YCLID, h.LastTrafficSource, h.UTMSource)
		}
	}
	var dev *Device
	for k := range devices {
		d := &devices[k]
		if d.Category == h.DeviceCategory && d.Browser == h.Browser && d.Major == h.BrowserMajorVersion &&
			d.Language == h.BrowserLanguage && d.OS == h.OperatingSystem && d.OSRoot == h.OperatingSystemRoot &&
			d.Model == h.MobilePhoneModel && d.Width == h.ScreenWidth && d.Height == h.ScreenHeight {
			dev = d
		}
	}
	if dev == nil {
		L.errorf("device", "event %d: device %d %q %d %q %q %q %q %dx%d is not a device profile", i, h.DeviceCategory, h.Browser,
			h.BrowserMajorVersion, h.BrowserLanguage, h.OperatingSystem, h.OperatingSystemRoot, h.MobilePhoneModel, h.ScreenWidth, h.ScreenHeight)
	}
	var city *City
	for k := range cities {
		if cities[k].Name == h.RegionCity {
			city = &cities[k]
		}
	}
	if city == nil || city.ID != h.RegionCityID || city.TZ != h.ClientTimeZone {
		L.errorf("city", "event %d: city %q id %d tz %d does not match the city table", i, h.RegionCity, h.RegionCityID, h.ClientTimeZone)
		return
	}
	// IP: phones in CGNAT 100.64/10, others the city's prefix; last octet 1…254.
	parts := strings.Split(h.IPAddress, ".")
	ok := len(parts) == 4
	var oct [4]int
	for k := 0; ok && k < 4; k++ {
		v, err := strconv.Atoi(parts[k])
		ok = err == nil && v >= 0 && v <= 255
		oct[k] = v
	}
	if ok && dev != nil {
		if dev.Category == devicePhone {
			ok = oct[0] == 100 && oct[1] >= 64 && oct[1] < 128 && oct[3] >= 1 && oct[3] <= 254
		} else {
			ok = strings.HasPrefix(h.IPAddress, city.IPPrefix) && strings.Count(city.IPPrefix, ".") == 3 && oct[3] >= 1 && oct[3] <= 254
		}
	}
	if !ok {
		L.errorf("ip", "event %d: IPAddress %q for device category %d in %s", i, h.IPAddress, h.DeviceCategory, h.RegionCity)
	}
}

type ecoProduct struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Category string      `json:"category"`
	Brand    string      `json:"brand"`
	Variant  string      `json:"variant"`
	Price    json.Number `json:"price"`
	Quantity uint64      `json:"quantity"`
}

// checkEcommerce checks a trade event's raw ecommerce JSON (key order, values) against its
// flat arrays and the catalog, and returns the purchase revenue in kopecks (0 for add_to_cart).
func checkEcommerce(h *wireHit, cat map[string]*Product) (int64, error) {
	raw := []byte(h.Ecommerce)
	ks, vs, err := scanObject(raw)
	if err != nil {
		return 0, fmt.Errorf("ecommerce is not an object: %v", err)
	}
	action := "add"
	if h.EventType == schema.EventPurchase {
		action = "purchase"
	}
	if !slices.Equal(ks, []string{"currencyCode", action}) || string(vs[0]) != `"RUB"` {
		return 0, fmt.Errorf("ecommerce keys %v currency %s, want [currencyCode %s] and \"RUB\"", ks, vs[0:1], action)
	}
	bk, bv, err := scanObject(vs[1])
	if err != nil {
		return 0, err
	}
	var productsRaw []byte
	var af struct {
		ID      string      `json:"id"`
		Revenue json.Number `json:"revenue"`
		Coupon  *string     `json:"coupon"`
	}
	var afKeys []string
	if action == "add" {
		if !slices.Equal(bk, []string{"products"}) {
			return 0, fmt.Errorf("add block keys %v, want [products]", bk)
		}
		productsRaw = bv[0]
	} else {
		if !slices.Equal(bk, []string{"actionField", "products"}) {
			return 0, fmt.Errorf("purchase block keys %v, want [actionField products]", bk)
		}
		if afKeys, _, err = scanObject(bv[0]); err != nil {
			return 0, err
		}
		if err := json.Unmarshal(bv[0], &af); err != nil {
			return 0, err
		}
		productsRaw = bv[1]
	}
	elems, err := scanArray(productsRaw)
	if err != nil {
		return 0, err
	}
	if len(elems) != len(h.ProductID) {
		return 0, fmt.Errorf("%d ecommerce products, %d productID", len(elems), len(h.ProductID))
	}
	wantType := schema.ProductAdd
	if action == "purchase" {
		wantType = schema.ProductPurchase
	}
	var sum int64
	for j, e := range elems {
		pk, _, err := scanObject(e)
		if err != nil {
			return 0, err
		}
		if !slices.Equal(pk, schema.EcommerceProductKeys[:]) {
			return 0, fmt.Errorf("product %d keys %v, want %v", j, pk, schema.EcommerceProductKeys)
		}
		var p ecoProduct
		if err := json.Unmarshal(e, &p); err != nil {
			return 0, err
		}
		c, ok := cat[p.ID]
		if !ok {
			return 0, fmt.Errorf("product %d: SKU %q not in the catalog", j, p.ID)
		}
		if !strings.Contains(string(p.Price), ".") {
			return 0, fmt.Errorf("product %d: price %s has no decimal point (whole numbers keep .0)", j, p.Price)
		}
		kop, err := kopecksOfNumber(string(p.Price))
		if err != nil {
			return 0, fmt.Errorf("product %d: %v", j, err)
		}
		catName := categories[c.Category].Name
		switch {
		case kop != c.Price:
			return 0, fmt.Errorf("%s: ecommerce price %s, catalog %d kopecks", p.ID, p.Price, c.Price)
		case p.ID != h.ProductID[j] || p.Name != h.ProductName[j] || p.Category != h.ProductCategory[j]:
			return 0, fmt.Errorf("product %d: ecommerce %s/%s/%s, arrays %s/%s/%s", j, p.ID, p.Name, p.Category, h.ProductID[j], h.ProductName[j], h.ProductCategory[j])
		case p.Name != c.Name || p.Category != catName || p.Brand != c.Brand:
			return 0, fmt.Errorf("%s: name/category/brand %q/%q/%q, catalog %q/%q/%q", p.ID, p.Name, p.Category, p.Brand, c.Name, catName, c.Brand)
		case !slices.Contains(variants[:], p.Variant):
			return 0, fmt.Errorf("%s: variant %q not a variant", p.ID, p.Variant)
		case p.Quantity < 1 || p.Quantity > 3 || p.Quantity != h.ProductQuantity[j]:
			return 0, fmt.Errorf("%s: quantity %d, productQuantity %d, want equal in 1…3", p.ID, p.Quantity, h.ProductQuantity[j])
		case h.ProductPrice[j] != (kop+50)/100:
			return 0, fmt.Errorf("%s: productPrice %d, want (%d+50)/100 = %d", p.ID, h.ProductPrice[j], kop, (kop+50)/100)
		case h.ProductEventType[j] != wantType:
			return 0, fmt.Errorf("%s: productEventType %q, want %q", p.ID, h.ProductEventType[j], wantType)
		}
		sum += kop * int64(p.Quantity)
	}
	if action == "add" {
		return 0, nil
	}
	wantAF := []string{"id", "revenue"}
	if af.Coupon != nil {
		wantAF = append(wantAF, "coupon")
	}
	if !slices.Equal(afKeys, wantAF) {
		return 0, fmt.Errorf("actionField keys %v, want %v", afKeys, wantAF)
	}
	rev, err := kopecksOfNumber(h.PurchaseRevenue[0].String())
	if err != nil {
		return 0, fmt.Errorf("purchaseRevenue: %v", err)
	}
	afRev, err := kopecksOfNumber(af.Revenue.String())
	if err != nil {
		return 0, fmt.Errorf("actionField.revenue: %v", err)
	}
	if !strings.Contains(h.PurchaseRevenue[0].String(), ".") {
		return 0, fmt.Errorf("purchaseRevenue %s has no decimal point", h.PurchaseRevenue[0])
	}
	switch {
	case rev != sum:
		return 0, fmt.Errorf("purchaseRevenue %s = %d kopecks, Σ price × quantity of ecommerce products = %d", h.PurchaseRevenue[0], rev, sum)
	case afRev != rev:
		return 0, fmt.Errorf("actionField.revenue %s, purchaseRevenue %s", af.Revenue, h.PurchaseRevenue[0])
	case af.ID != h.PurchaseID[0]:
		return 0, fmt.Errorf("actionField.id %q, purchaseID %q", af.ID, h.PurchaseID[0])
	}
	coupon := h.PurchaseCoupon[0]
	if (af.Coupon == nil) != (coupon == "") || af.Coupon != nil && *af.Coupon != coupon {
		return 0, fmt.Errorf("actionField.coupon %v, purchaseCoupon %q", af.Coupon, coupon)
	}
	if coupon != "" && !slices.ContainsFunc(coupons[:], func(c Coupon) bool { return c.Code == coupon }) {
		return 0, fmt.Errorf("coupon %q not in the coupon table", coupon)
	}
	cats := map[string]bool{}
	for _, c := range h.ProductCategory {
		cats[c] = true
	}
	if len(cats) != 1 {
		return 0, fmt.Errorf("purchase spans categories %v; a visit browses one", h.ProductCategory)
	}
	return rev, nil
}

// checkVisits checks the session rules of world.md §3.4 on the wire: a visit belongs to one
// cookie and one category, its pages chain by Referer, inside a visit every gap is < 30 min,
// and between consecutive visits of a cookie the gap from the last event (trade events and
// duplicate copies included) to the next first event is > 30 min.
func checkVisits(L *limited, d int, visits map[uint64][]evRec) {
	type span struct {
		first, last int64
		id          uint64
	}
	byClient := map[uint64][]span{}
	ids := sortedKeys(visits)
	for _, vid := range ids {
		evs := visits[vid]
		c := evs[0].client
		cat := ""
		var prevURL string
		for k, e := range evs {
			if e.client != c {
				L.errorf("visit-cookie", "day %d visit %d: events of ClientIDs %d and %d", d, vid, c, e.client)
			}
			if k > 0 && e.sec-evs[k-1].sec >= visitTimeout {
				L.errorf("visit-gap", "day %d visit %d: %d s between events %d and %d, want < %d", d, vid, e.sec-evs[k-1].sec, evs[k-1].idx, e.idx, visitTimeout)
			}
			if e.cat != "" {
				if cat != "" && cat != e.cat {
					L.errorf("visit-category", "day %d visit %d: pages of categories %s and %s", d, vid, cat, e.cat)
				}
				cat = e.cat
			}
			if e.typ != schema.EventPageview || e.dupConf {
				continue
			}
			if prevURL == "" {
				if !slices.ContainsFunc(sources[:], func(s Source) bool { return s.Referer == e.ref }) {
					L.errorf("referer", "day %d visit %d: entry page Referer %q is no source's referer", d, vid, e.ref)
				}
			} else if e.ref != prevURL {
				L.errorf("referer", "day %d visit %d event %d: Referer %q, want the previous page %q", d, vid, e.idx, e.ref, prevURL)
			}
			prevURL = e.url
		}
		if evs[0].typ != schema.EventPageview {
			L.errorf("visit-entry", "day %d visit %d starts with %s, want a pageview", d, vid, evs[0].typ)
		}
		byClient[c] = append(byClient[c], span{evs[0].sec, evs[len(evs)-1].sec, vid})
	}
	for _, c := range sortedKeys(byClient) {
		sp := byClient[c]
		slices.SortFunc(sp, func(a, b span) int { return int(a.first - b.first) })
		for k := 1; k < len(sp); k++ {
			if gap := sp[k].first - sp[k-1].last; gap <= visitTimeout {
				L.errorf("cookie-gap", "day %d ClientID %d: visit %d starts %d s after the last event of visit %d, want > %d",
					d, c, sp[k].id, gap, sp[k-1].id, visitTimeout)
			}
		}
	}
}

// checkTradePlacement checks that every trade event sits on its page (hits.md: a copy of the
// pageview with its own WatchID, EventType, time and trade columns): add_to_cart on a card of
// its product 2–7 s earlier, purchase on /confirmation 2–7 s earlier, a duplicate copy on a
// copied /confirmation with Referer = URL, 30–300 s after the original.
func checkTradePlacement(L *limited, d int, visits map[uint64][]evRec) {
	confURL := SiteURL + "/confirmation"
	for _, vid := range sortedKeys(visits) {
		evs := visits[vid]
		// sitsOn finds the pageviews of the visit a trade event may sit on.
		sitsOn := func(e evRec, dup bool) []evRec {
			var out []evRec
			for _, p := range evs {
				if p.typ == schema.EventPageview && p.dupConf == dup && p.url == e.url &&
					e.sec-p.sec >= tradeDelayMin && e.sec-p.sec < tradeDelayMax {
					out = append(out, p)
				}
			}
			return out
		}
		same := func(e, p evRec) bool { return e.page == p.page && e.ref == p.ref }
		byOID := map[string][]evRec{}
		origConf := 0
		for _, e := range evs {
			switch {
			case e.typ == schema.EventPageview && e.url == confURL && !e.dupConf:
				origConf++
			case e.typ == schema.EventAddToCart:
				path, _, _ := strings.Cut(e.url, "?")
				if want := SiteURL + "/product/" + e.product; path != want {
					L.errorf("cart-page", "day %d event %d: add_to_cart of %s on URL %q, want %s", d, e.idx, e.product, e.url, want)
				}
				ps := sitsOn(e, false)
				if len(ps) != 1 {
					L.errorf("cart-page", "day %d event %d: add_to_cart of %s has %d card pageviews of visit %d 2–7 s earlier, want 1", d, e.idx, e.product, len(ps), vid)
				} else if !same(e, ps[0]) {
					L.errorf("cart-copy", "day %d event %d: add_to_cart differs from its card pageview %d (Referer %q vs %q)", d, e.idx, ps[0].idx, e.ref, ps[0].ref)
				}
			case e.typ == schema.EventPurchase:
				byOID[e.oid] = append(byOID[e.oid], e)
			}
		}
		if origConf > 1 {
			L.errorf("confirmation", "day %d visit %d: %d /confirmation pageviews, want at most 1", d, vid, origConf)
		}
		dupPurchases := 0
		for _, oid := range sortedKeys(byOID) {
			ps := byOID[oid]
			if len(ps) > 2 {
				L.errorf("purchase-copies", "day %d %s: %d purchase events, want 1 or 2", d, oid, len(ps))
				continue
			}
			orig := ps[0]
			on := sitsOn(orig, false)
			if orig.url != confURL || len(on) != 1 {
				L.errorf("purchase-page", "day %d event %d (%s): on %q with %d /confirmation pageviews 2–7 s earlier, want 1", d, orig.idx, oid, orig.url, len(on))
			} else if !same(orig, on[0]) {
				L.errorf("purchase-copy", "day %d event %d (%s): differs from its /confirmation pageview %d", d, orig.idx, oid, on[0].idx)
			} else if orig.ref == orig.url {
				L.errorf("purchase-copy", "day %d event %d (%s): original purchase has Referer = URL", d, orig.idx, oid)
			}
			if len(ps) < 2 {
				continue
			}
			dupPurchases++
			cp := ps[1]
			delay := cp.sec - orig.sec
			if delay < duplicateDelayMin || delay >= duplicateDelayMax {
				L.errorf("duplicate", "day %d %s: copy %d s after the original, want 30…300", d, oid, delay)
			}
			if cp.ref != cp.url {
				L.errorf("duplicate", "day %d event %d (%s): copy has Referer %q, want its own URL %q", d, cp.idx, oid, cp.ref, cp.url)
			}
			con := sitsOn(cp, true)
			if len(con) != 1 {
				L.errorf("duplicate", "day %d event %d (%s): %d copied /confirmation pageviews 2–7 s earlier, want 1", d, cp.idx, oid, len(con))
				continue
			}
			if con[0].page != orig.page || cp.page != orig.page {
				L.errorf("duplicate", "day %d %s: copies differ from the original page", d, oid)
			}
			if len(on) == 1 && con[0].sec-on[0].sec != delay {
				L.errorf("duplicate", "day %d %s: pageview copied %d s later, purchase %d s later; want the same delay", d, oid, con[0].sec-on[0].sec, delay)
			}
		}
		dupConf := 0
		for _, e := range evs {
			if e.dupConf {
				dupConf++
			}
		}
		if dupConf != dupPurchases {
			L.errorf("duplicate", "day %d visit %d: %d copied /confirmation pageviews, %d copied purchases; want equal", d, vid, dupConf, dupPurchases)
		}
	}
}

func sortedKeys[K uint64 | string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
