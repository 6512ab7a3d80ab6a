package world

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/clickgen/clickgen/schema"
)

// Event kinds of a day's stream.
const (
	evPageview    uint8 = iota
	evAddToCart         // sits on a product card
	evPurchase          // sits on /confirmation
	evDupPageview       // duplicate copy of a /confirmation pageview (page refresh)
	evDupPurchase       // duplicate copy of a purchase
	numEventKinds
)

// event is one row of the day stream in compact form; its bytes are rendered on demand.
type event struct {
	watchID uint64
	sec     int32 // second of the counter day, 0 … 86399
	visit   int32
	page    int32 // the page the event sits on (index into Day.pages)
	ref     int32 // add_to_cart: position index; purchase and copies: purchase index
	kind    uint8
}

// visit is one session of one cookie.
type visit struct {
	clientID  uint64
	personID  uint64
	visitID   uint64
	yclid     uint64
	start     int32 // counter second of the first page
	nextStart int32 // start of the cookie's next visit on this day, or a value past midnight
	firstPage int32 // index into Day.pages
	nPages    int32 // pages planned
	nLive     int32 // pages that survived the midnight cut (a prefix)
	ip        [4]uint8
	source    uint8
	category  uint8
	stage     uint8
	device    uint8
	city      uint8
	buyer     bool
	assigned  bool // the guaranteed order visit of a two-cookie buyer
}

// page is one planned pageview.
type page struct {
	watchID uint64
	sec     int32
	pid     uint16
}

// position is one basket line (a product put into the cart).
type position struct {
	product int32
	page    int32 // anchor: first card of the product in the visit
	sec     int32 // add_to_cart second
	qty     uint8
	variant uint8
	kept    bool // still in the basket at purchase
	live    bool // its add_to_cart survived the midnight cut
}

// Line is one product line of a purchase: a catalog product and its quantity.
type Line struct {
	Product int // index into Catalog.Products
	Qty     int
}

// Purchase is one order-producing purchase of a day, in numbering order: what the commerce
// half decided and the backend turns into an order (orders.md §1, world.md §4.6). Lost and
// duplicated purchases are included; duplicate copies are not separate purchases.
type Purchase struct {
	OrderID   string // YYYYMMDD-NNNN
	PersonID  uint64 // user_id on the backend
	ClientID  uint64
	UTCSecond int64 // UTCEventTime of the purchase event
	Lines     []Line
	Revenue   int64 // kopecks: Σ price × qty of Lines
	Coupon    int   // index into coupons, −1 when none
	Assigned  bool  // guaranteed order of a two-cookie pair: never lost, never late
	Lost      bool  // the purchase event was dropped (BEACONS)
	Duplicate bool  // the confirmation + purchase pair was sent twice (BEACONS)

	visit     int32
	confPage  int32
	sec       int32
	watchID   uint64
	dupDelay  int32
	posFrom   int32 // basket positions [posFrom, posTo)
	posTo     int32
	ecommerce string
}

// DayStats are counts of a generated day, for tests and reports.
type DayStats struct {
	Audience     int // cookies active on the day
	Visits       int // visits with at least one surviving page
	PlannedPages int
	Pageviews    int // incl. duplicate confirmation copies
	CardViews    int
	CartVisits   int // visits whose funnel reached /cart (planned)
	AddToCart    int
	Purchases    int // purchase events sent (lost excluded, duplicates included)
	Orders       int // numbered purchases (lost included, copies excluded)
	Lost         int
	Duplicated   int
	ByKind       [numEventKinds]int
}

// Day is one generated model day: its visits, pages, baskets and the ordered event stream in
// compact form, plus the purchases the backend turns into orders. A Day is immutable once
// built and safe for concurrent rendering.
type Day struct {
	World     *World
	N         int // model day
	Purchases []Purchase
	Stats     DayStats

	visits    []visit
	pages     []page
	positions []position
	events    []event
	cartEcom  []string // ecommerce JSON of each position's add_to_cart
	part      string   // the day's pre-encoded hit columns (dayPart)
}

// Day generates model day d. The result is a pure function of (world, d).
func (w *World) Day(d int) *Day {
	day, _ := w.DayContext(context.Background(), d)
	return day
}

// DayContext is [World.Day] that gives up when ctx is done, returning ctx's error and no day.
// At scale 300 a day takes tens of seconds to build; ctx is checked between cohorts and
// every few thousand visits, so a Ctrl-C is honoured within a fraction of a second. The
// checks draw nothing: a day that completes is byte-for-byte the day Day returns.
func (w *World) DayContext(ctx context.Context, d int) (*Day, error) {
	day := &Day{World: w, N: d, part: dayPart(d)}
	aud, err := w.audience(ctx, d)
	if err != nil {
		return nil, err
	}
	day.Stats.Audience = len(aud)
	if err := day.traffic(ctx, aud); err != nil {
		return nil, err
	}
	if err := day.commerce(ctx); err != nil {
		return nil, err
	}
	return day, nil
}

// ctxEvery is how many loop iterations the day's builders run between checks of ctx.
const ctxEvery = 4096

// audience concatenates, over cohorts d−90 … d (ascending), the cookies active on d, within a
// cohort in cookie order (world.md §3.3).
func (w *World) audience(ctx context.Context, d int) ([]*activeCookie, error) {
	w.prefetchCohorts(ctx, d)
	var out []*activeCookie
	for cd := d - prehistoryDays; cd <= d; cd++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		list := w.activeOn(cd, d)
		for i := range list {
			out = append(out, &list[i])
		}
	}
	return out, nil
}

// prefetchCohorts computes the cohorts of day d's audience that are not cached yet on all
// cores: the first day of a run needs 91 of them (4 s at scale 100 on one core), a later day
// one. Only time depends on it: the cache holds pure values.
func (w *World) prefetchCohorts(ctx context.Context, d int) {
	missing := w.cohorts.missing(d-prehistoryDays, d)
	workers := min(runtime.GOMAXPROCS(0), len(missing))
	if workers < 2 {
		return
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for cd := range next {
				w.activeOn(cd, d)
			}
		})
	}
	for _, cd := range missing {
		if ctx.Err() != nil {
			break
		}
		next <- cd
	}
	close(next)
	wg.Wait()
}

// traffic plans visits and pages from the TRAFFIC stream (world.md §3.4–§3.5, §4.1), applies
// the midnight cut and draws visit and pageview ids.
func (day *Day) traffic(ctx context.Context, aud []*activeCookie) error {
	w := day.World
	s := newStream(w.seed, streamTraffic, day.N, 0)
	weekend := 0
	if isWeekend(day.N) {
		weekend = 1
	}
	nCat := [len(categories)]int{}
	for i := range nCat {
		nCat[i] = len(w.catalog.ByCategory[i])
	}
	type plan struct {
		start, duration int32
	}
	// Capacities from the world's averages (1.4 visits per active cookie, 4.9 pages per
	// visit, rounded up): growing these slices was ~15 % of the serial day model.
	day.visits = make([]visit, 0, len(aud)*3/2)
	day.pages = make([]page, 0, len(aud)*15/2)
	plans := make([]plan, 0, len(aud)*3/2)
	offsets := make([]int32, 0, len(aud)*15/2) // page offsets from visit start, parallel to day.pages
	var kinds []int                            // page kinds of the visit being planned, reused
	for ai, ck := range aud {
		if ai%ctxEvery == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		n := 1 + s.Pick(&visitsPerDayTable)
		first := len(day.visits)
		for k := range n {
			v := visit{clientID: ck.clientID, personID: ck.personID, device: ck.device, city: ck.city, buyer: ck.buyer}
			v.source = uint8(s.Pick(&w.sourceTable))
			v.category = uint8(s.Int(len(categories)))
			length := 1 + s.Pick(&visitPagesTable)
			c1, c2, c3 := s.Int(100), s.Int(100), s.Int(100)
			cart, checkout := cartPercent, checkoutPercent
			if ck.buyer {
				cart, checkout = buyerCartPercent, buyerCheckoutPercent
			}
			stage := 0
			if c1 < cart {
				stage = 1
				if c2 < checkout {
					stage = 2
					if c3 < confirmPercent {
						stage = 3
					}
				}
			}
			if k == 0 && ck.assigned == int32(day.N) {
				v.assigned, stage = true, assignedFunnelStage
			}
			v.stage = uint8(stage)
			browse := length
			if stage > 0 {
				browse = max(length-stage, 2)
			}
			total := browse + stage
			v.firstPage, v.nPages = int32(len(day.pages)), int32(total)

			// Page walk: entry by source, then transitions; the last browse page of a funnel
			// visit is a product card.
			src := &sources[v.source]
			kind := lookupPercent(&src.EntryPct, s.Int(100))
			kinds = append(kinds[:0], kind)
			for p := 1; p < browse; p++ {
				table := &fromOther
				if kinds[p-1] == pageProduct {
					table = &fromProduct
				}
				kinds = append(kinds, lookupPercent(table, s.Int(100)))
			}
			if stage > 0 {
				kinds[browse-1] = pageProduct
				for f := range stage {
					kinds = append(kinds, pageCart+f)
				}
			}
			// Per-row draws for every page (used where the kind needs them), then gaps.
			cat := int(v.category)
			for _, kd := range kinds {
				prod, static, query := s.Int(nCat[cat]), s.Int(len(staticPages)), s.Int(len(searchQueries))
				var pid int
				switch kd {
				case pageHome:
					pid = pidHome
				case pageCatalog:
					pid = pidCatalog + cat
				case pageSearch:
					pid = pidSearch + query
				case pageProduct:
					pid = pidProduct + w.catalog.ByCategory[cat][prod]
				case pageStatic:
					pid = w.pidStatic(static)
				case pageCart:
					pid = w.pidCart()
				case pageCheckout:
					pid = w.pidCheckout()
				default:
					pid = w.pidConfirmation()
				}
				day.pages = append(day.pages, page{pid: uint16(pid)})
			}
			off := int32(0)
			offsets = append(offsets, 0)
			for range total - 1 {
				thinking, short, long := s.Int(100) < thinkingPercent, s.Range(shortGapMin, shortGapMax), s.Range(longGapMin, longGapMax)
				if thinking {
					off += int32(long)
				} else {
					off += int32(short)
				}
				offsets = append(offsets, off)
			}
			hour := s.Pick(&w.hourTables[weekend][tzClass(cities[ck.city].TZ)])
			start := int32(hour*3600 + s.Int(3600))
			v.ip = [4]uint8{uint8(s.Range(64, 128)), uint8(s.Int(256)), uint8(s.Range(1, 255)), 0}
			v.yclid = uint64(s.Range(1, yclidMax))
			if !src.YCLID {
				v.yclid = 0
			}
			day.visits = append(day.visits, v)
			plans = append(plans, plan{start: start, duration: off})
		}
		// Starts sorted ascending and assigned in ordinal order; the guaranteed-order visit is
		// clamped to fit the day; later visits keep more than 30 minutes from the last event.
		starts := make([]int32, n)
		for k := range n {
			starts[k] = plans[first+k].start
		}
		slices.Sort(starts)
		for k := range n {
			v := &day.visits[first+k]
			dur := plans[first+k].duration
			st := starts[k]
			if v.assigned {
				st = min(st, daySeconds-dur-tradeRoom-1)
			}
			if k > 0 {
				prev := &day.visits[first+k-1]
				st = max(st, prev.start+plans[first+k-1].duration+tradeRoom+visitTimeout+1)
			}
			v.start = st
		}
		for k := range n {
			v := &day.visits[first+k]
			v.nextStart = 1 << 30
			if k+1 < n {
				v.nextStart = day.visits[first+k+1].start
			}
		}
	}
	day.Stats.PlannedPages = len(day.pages)

	// Page seconds and the midnight cut: a page survives iff second + room < 86400, room = 8
	// for /confirmation (its purchase must fit too) and 0 otherwise.
	confirmation := w.pidConfirmation()
	for vi := range day.visits {
		v := &day.visits[vi]
		live := int32(0)
		for p := v.firstPage; p < v.firstPage+v.nPages; p++ {
			pg := &day.pages[p]
			pg.sec = v.start + offsets[p]
			room := int32(0)
			if int(pg.pid) == confirmation {
				room = tradeRoom
			}
			if pg.sec+room >= daySeconds {
				break
			}
			live++
		}
		v.nLive = live
		if live > 0 {
			day.Stats.Visits++
		}
		if v.stage >= 1 {
			day.Stats.CartVisits++
		}
	}

	// Ids: VisitID per planned visit, then WatchID per surviving page (TRAFFIC).
	vids := uniqueIDs(s, len(day.visits), nil)
	for i := range day.visits {
		day.visits[i].visitID = vids[i]
	}
	nLive := 0
	for _, v := range day.visits {
		nLive += int(v.nLive)
	}
	wids := uniqueIDs(s, nLive, nil)
	day.events = make([]event, 0, nLive+nLive/16)
	j := 0
	for vi, v := range day.visits {
		for p := v.firstPage; p < v.firstPage+v.nLive; p++ {
			day.pages[p].watchID = wids[j]
			day.events = append(day.events, event{watchID: wids[j], sec: day.pages[p].sec, visit: int32(vi), page: p, kind: evPageview})
			if day.World.pages[day.pages[p].pid].kind == pageProduct {
				day.Stats.CardViews++
			}
			j++
		}
	}
	return nil
}

// lookupPercent maps a draw r in [0,100) to the first index whose running percentage exceeds r.
func lookupPercent(pct *[5]int, r int) int {
	sum := 0
	for i, p := range pct {
		sum += p
		if r < sum {
			return i
		}
	}
	return len(pct) - 1
}

// uniqueIDs is world.md §3.9's routine: n strictly increasing ids below 2^53 with increments
// U[1, 2^53 div (n+1)], then shuffled so an id does not reveal row order. If any id collides
// with avoid (in any order), the batch is drawn again.
func uniqueIDs(s *stream, n int, avoid []uint64) []uint64 {
	ids := make([]uint64, n)
	if n == 0 {
		return ids
	}
	step := int64(maxID / (n + 1))
	for {
		var sum uint64
		for i := range ids {
			sum += uint64(s.Range(1, int(step)+1))
			ids[i] = sum
		}
		if !intersects(ids, avoid) {
			break
		}
	}
	for i := n - 1; i > 0; i-- {
		j := s.Int(i + 1)
		ids[i], ids[j] = ids[j], ids[i]
	}
	return ids
}

// intersects reports whether ids and avoid share a value; avoid may be in any order. Checking
// avoid against a set of the (few) ids costs less than sorting avoid (a day's WatchIDs).
func intersects(ids, avoid []uint64) bool {
	if len(avoid) == 0 {
		return false
	}
	set := make(map[uint64]struct{}, len(ids))
	for _, id := range ids {
		set[id] = struct{}{}
	}
	for _, x := range avoid {
		if _, ok := set[x]; ok {
			return true
		}
	}
	return false
}

// sortEvents orders events by (second, WatchID): a counting sort by second, then WatchID
// within a second.
func sortEvents(evs []event) []event {
	var counts [daySeconds + 1]int32
	for i := range evs {
		counts[evs[i].sec+1]++
	}
	for i := 1; i <= daySeconds; i++ {
		counts[i] += counts[i-1]
	}
	out := make([]event, len(evs))
	for i := range evs {
		e := &evs[i]
		out[counts[e.sec]] = *e
		counts[e.sec]++
	}
	for lo := 0; lo < len(out); {
		hi := lo + 1
		for hi < len(out) && out[hi].sec == out[lo].sec {
			hi++
		}
		if hi-lo > 1 {
			g := out[lo:hi]
			slices.SortFunc(g, func(a, b event) int {
				switch {
				case a.watchID < b.watchID:
					return -1
				case a.watchID > b.watchID:
					return 1
				}
				return 0
			})
		}
		lo = hi
	}
	return out
}

// orderID formats the order number of the n-th (1-based) purchase of day d: YYYYMMDD-NNNN.
func orderID(d, n int) string {
	date := DayDate(d).Append(make([]byte, 0, 16))
	b := make([]byte, 0, 14)
	for _, c := range date {
		if c != '-' {
			b = append(b, c)
		}
	}
	return string(b) + fmt.Sprintf("-%04d", n)
}

// Len is the number of clean events of the day.
func (day *Day) Len() int { return len(day.events) }

// ClientID returns the ClientID (the Kafka key) of event i.
func (day *Day) ClientID(i int) uint64 { return day.visits[day.events[i].visit].clientID }

// EventType returns the EventType of event i.
func (day *Day) EventType(i int) string { return eventTypeOf(day.events[i].kind) }

func eventTypeOf(kind uint8) string {
	switch kind {
	case evAddToCart:
		return schema.EventAddToCart
	case evPurchase, evDupPurchase:
		return schema.EventPurchase
	}
	return schema.EventPageview
}
