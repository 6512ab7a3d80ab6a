package world

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
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

	// Copies of what rendering reads of the event's page, the page before it and its visit
	// (see fillRender), in the bytes the struct had as padding: a day's events are rendered
	// in time order, its pages and visits lie in visit order, and reading them for every
	// event waited on memory.
	at           uint8  // atEntry, afterEntry: where the page is in its visit
	source, city uint8  // the visit's
	pid, prevPid uint16 // the page's and the page before it's (a Referer's), in the visit
}

// Bits of event.at. The visit's first page carries the source's UTM query in its URL, and
// so in the Referer of the page after it.
const (
	atEntry    = 1 << iota // the page is the visit's first
	afterEntry             // the page before it is the visit's first
)

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

	visit     int32 // −1: a purchase of a cookie another segment owns (SegmentDay)
	confPage  int32
	sec       int32
	watchID   uint64
	dupDelay  int32
	posFrom   int32 // basket positions [posFrom, posTo)
	posTo     int32
	nextStart int32  // start of the cookie's next visit on the day (see visit)
	slot      uint64 // the cookie's slot and the visit's ordinal: the ids of its copies
	ordinal   uint8
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
	cartParts []cartEcom // the Ecommerce of an add_to_cart of each product bought on the day
	cartOf    []int32    // [position]: its product's cartParts index (live positions)
	part      string     // the day's pre-encoded hit columns (dayPart)
	clock     dayClock   // the UTC dates its events fall on, pre-encoded
	seg       Segment    // the share the day holds (see World.SegmentDay)
}

// Day generates model day d. The result is a pure function of (world, d).
func (w *World) Day(d int) *Day {
	day, _ := w.DayContext(context.Background(), d)
	return day
}

// DayContext is [World.Day] that gives up when ctx is done, returning ctx's error and no day.
// At scale 300 a day takes tens of seconds to build; ctx is checked between cohorts and
// every few thousand cookies, so a Ctrl-C is honoured within a fraction of a second. The
// checks draw nothing: a day that completes is byte-for-byte the day Day returns.
func (w *World) DayContext(ctx context.Context, d int) (*Day, error) {
	return w.dayOf(ctx, d, Segment{})
}

// SegmentDay is [World.DayContext] for segment seg: a day that holds only the events seg owns,
// in the order of the whole day, and every purchase of the day (a segment numbers its orders
// and sends the snapshot rows it owns, whoever bought them). It plans only the visits of the
// cookies seg owns, plus those of the other cookies that buy on the day, which is what makes a
// segment's share of the work small: the serial part is the cohorts and, per active cookie,
// the few draws that say whether it buys (see the README's Segments). For the whole run it is
// DayContext.
//
// In a segment's day, Stats count the segment's visits, pages and events; Audience, Orders,
// Lost and Duplicated stay the whole day's.
func (w *World) SegmentDay(ctx context.Context, d int, seg Segment) (*Day, error) {
	return w.dayOf(ctx, d, seg)
}

// dayOf builds day d for seg (the whole day for the zero Segment).
func (w *World) dayOf(ctx context.Context, d int, seg Segment) (*Day, error) {
	day := &Day{World: w, N: d, seg: seg, part: dayPart(d), clock: newDayClock(d)}
	progress := progressOf(ctx)
	ready, err := w.prefetchCohorts(ctx, d, progress)
	if err != nil {
		return nil, err
	}
	var lists [prehistoryDays + 1][]activeCookie
	for cd := d - prehistoryDays; cd <= d; cd++ {
		if err := ctx.Err(); err != nil {
			return nil, err // on one core the cohorts are computed here, one by one
		}
		lists[cd-d+prehistoryDays] = w.activeOn(cd, d)
		day.Stats.Audience += len(lists[cd-d+prehistoryDays])
		progress(ModelProgress{Day: d, Phase: ModelCohorts, Done: max(ready, cd-d+prehistoryDays+1), Total: prehistoryDays + 1})
	}
	visitors := ModelProgress{Day: d, Phase: ModelVisitors, Total: day.Stats.Audience}
	progress(visitors)
	// Capacities from the world's averages (1.4 visits per active cookie, 4.9 pages per
	// visit, rounded up): growing these slices was ~15 % of the serial day model.
	share := day.Stats.Audience/max(seg.N, 1) + 16
	day.visits = make([]visit, 0, share*3/2)
	day.pages = make([]page, 0, share*15/2)
	day.events = make([]event, 0, share*15/2)
	b := newDayBuilder(day)
	var buf [20]byte
	for cd := d - prehistoryDays; cd <= d; cd++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		list := lists[cd-d+prehistoryDays]
		for i := range list {
			if i%ctxEvery == ctxEvery-1 {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				progress(visitors)
			}
			visitors.Done++
			ck := &list[i]
			owned := seg.Whole() || seg.OwnsKey(strconv.AppendUint(buf[:0], ck.clientID, 10))
			b.cookie(ck, d-cd, owned)
		}
	}
	b.finish()
	progress(visitors)
	return day, nil
}

// ctxEvery is how many loop iterations the day's builders run between checks of ctx.
const ctxEvery = 4096

// prefetchCohorts computes the cohorts of day d's audience that are not cached yet on all
// cores: the first day of a run needs 91 of them (4 s at scale 100 on one core), a later day
// one. Only time depends on it: the cache holds pure values. progress hears the cohorts of
// the day computed, counting those already cached; ready is how many the day finds cached
// now (on one core, those cached before: the day computes the others as it goes).
func (w *World) prefetchCohorts(ctx context.Context, d int, progress func(ModelProgress)) (ready int, err error) {
	missing := w.cohorts.missing(d-prehistoryDays, d)
	workers := min(runtime.GOMAXPROCS(0), len(missing))
	if workers < 2 {
		return prehistoryDays + 1 - len(missing), ctx.Err()
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
	cached := prehistoryDays + 1 - len(missing)
	for i, cd := range missing {
		if ctx.Err() != nil {
			break
		}
		progress(ModelProgress{Day: d, Phase: ModelCohorts, Done: cached + max(0, i-workers), Total: prehistoryDays + 1})
		next <- cd
	}
	close(next)
	wg.Wait()
	return prehistoryDays + 1, ctx.Err()
}

// dayBuilder builds one day cookie by cookie: each active cookie's visits, pages and baskets
// come from its own TRAFFIC and COMMERCE substreams (sub = its slot), and its ids from the
// day's id permutations, so no cookie's bytes depend on another's (world 0.3.0).
type dayBuilder struct {
	w                 *World
	day               *Day
	weekend           int
	nCat              [len(categories)]int
	traffic, commerce streamPrefix
	visitIDs, watch   idKeys

	// Scratch, reused from cookie to cookie.
	plans   []visitPlan
	offsets []int32 // page offsets from the visit's start, for the pages of the cookie's visits
	kinds   []int   // page kinds of the visit being planned
	cands   []candidate
	seen    []int32
	foreign *Day // where a cookie the segment does not own is planned when it buys
}

type visitPlan struct{ start, duration int32 }

type candidate struct{ product, page int32 }

func newDayBuilder(day *Day) *dayBuilder {
	w := day.World
	b := &dayBuilder{w: w, day: day,
		traffic: prefixOf(w.seed, streamTraffic, day.N), commerce: prefixOf(w.seed, streamCommerce, day.N),
		visitIDs: newIDKeys(w.seed, day.N, 0), watch: newIDKeys(w.seed, day.N, 1)}
	if isWeekend(day.N) {
		b.weekend = 1
	}
	for i := range b.nCat {
		b.nCat[i] = len(w.catalog.ByCategory[i])
	}
	if !day.seg.Whole() {
		b.foreign = &Day{World: w, N: day.N}
	}
	return b
}

// cookie plans the day of ck (cohort age age): into the day when the segment owns it; when
// not, only far enough to see whether it buys, and if it does, in full aside, keeping its
// purchases.
func (b *dayBuilder) cookie(ck *activeCookie, age int, owned bool) {
	dst := b.day
	if !owned {
		f := b.foreign
		f.visits, f.pages, f.positions, f.events, f.Purchases = f.visits[:0], f.pages[:0], f.positions[:0], f.events[:0], f.Purchases[:0]
		dst = f
	}
	first := len(dst.visits)
	if !b.cookieTraffic(dst, ck, age, owned) {
		return
	}
	b.cookieCommerce(dst, ck, age, first)
	if !owned {
		for _, pu := range dst.Purchases {
			pu.visit, pu.confPage, pu.posFrom, pu.posTo = -1, -1, 0, 0
			b.day.Purchases = append(b.day.Purchases, pu)
		}
	}
}

// cookieTraffic plans the visits and pages of ck on the day from its TRAFFIC stream (world.md
// §3.4–§3.5, §4.1, in the order of world 0.3.0: the number of visits and every visit's funnel
// draws first, then each visit's source, category, length, page walk, per-row draws, gaps,
// start, IP and YCLID), applies the midnight cut and computes the ids. For a cookie the day
// does not own it stops after the funnel draws unless a visit reaches /confirmation, and
// reports whether it went on.
func (b *dayBuilder) cookieTraffic(dst *Day, ck *activeCookie, age int, owned bool) bool {
	w := b.w
	slot := cookieSlot(age, ck.index)
	s := b.traffic.stream(slot)
	n := 1 + s.Pick(&visitsPerDayTable)
	var stages [3]uint8
	buys := false
	for k := range n {
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
		if k == 0 && ck.assigned == int32(dst.N) {
			stage = assignedFunnelStage
		}
		stages[k] = uint8(stage)
		buys = buys || stage == 3
	}
	if !owned && !buys {
		return false
	}

	first := len(dst.visits)
	b.plans, b.offsets = b.plans[:0], b.offsets[:0]
	for k := range n {
		v := visit{clientID: ck.clientID, personID: ck.personID, device: ck.device, city: ck.city, buyer: ck.buyer,
			stage: stages[k], assigned: k == 0 && ck.assigned == int32(dst.N)}
		v.source = uint8(s.Pick(&w.sourceTable))
		v.category = uint8(s.Int(len(categories)))
		length := 1 + s.Pick(&visitPagesTable)
		stage := int(v.stage)
		browse := length
		if stage > 0 {
			browse = max(length-stage, 2)
		}
		total := browse + stage
		v.firstPage, v.nPages = int32(len(dst.pages)), int32(total)

		// Page walk: entry by source, then transitions; the last browse page of a funnel
		// visit is a product card.
		src := &sources[v.source]
		kind := lookupPercent(&src.EntryPct, s.Int(100))
		b.kinds = append(b.kinds[:0], kind)
		for p := 1; p < browse; p++ {
			table := &fromOther
			if b.kinds[p-1] == pageProduct {
				table = &fromProduct
			}
			b.kinds = append(b.kinds, lookupPercent(table, s.Int(100)))
		}
		if stage > 0 {
			b.kinds[browse-1] = pageProduct
			for f := range stage {
				b.kinds = append(b.kinds, pageCart+f)
			}
		}
		// Per-row draws for every page (used where the kind needs them), then gaps.
		cat := int(v.category)
		for _, kd := range b.kinds {
			prod, static, query := s.Int(b.nCat[cat]), s.Int(len(staticPages)), s.Int(len(searchQueries))
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
			dst.pages = append(dst.pages, page{pid: uint16(pid)})
		}
		off := int32(0)
		b.offsets = append(b.offsets, 0)
		for range total - 1 {
			thinking, short, long := s.Int(100) < thinkingPercent, s.Range(shortGapMin, shortGapMax), s.Range(longGapMin, longGapMax)
			if thinking {
				off += int32(long)
			} else {
				off += int32(short)
			}
			b.offsets = append(b.offsets, off)
		}
		hour := s.Pick(&w.hourTables[b.weekend][tzClass(cities[ck.city].TZ)])
		start := int32(hour*3600 + s.Int(3600))
		v.ip = [4]uint8{uint8(s.Range(64, 128)), uint8(s.Int(256)), uint8(s.Range(1, 255)), 0}
		v.yclid = uint64(s.Range(1, yclidMax))
		if !src.YCLID {
			v.yclid = 0
		}
		v.visitID = b.visitIDs.visitID(slot, k)
		dst.visits = append(dst.visits, v)
		b.plans = append(b.plans, visitPlan{start: start, duration: off})
	}
	// Starts sorted ascending and assigned in ordinal order; the guaranteed-order visit is
	// clamped to fit the day; later visits keep more than 30 minutes from the last event.
	var starts [3]int32
	for k := range n {
		starts[k] = b.plans[k].start
	}
	slices.Sort(starts[:n])
	visits := dst.visits[first:]
	for k := range visits {
		v := &visits[k]
		dur := b.plans[k].duration
		st := starts[k]
		if v.assigned {
			st = min(st, daySeconds-dur-tradeRoom-1)
		}
		if k > 0 {
			st = max(st, visits[k-1].start+b.plans[k-1].duration+tradeRoom+visitTimeout+1)
		}
		v.start = st
		v.nextStart = 1 << 30
		if k > 0 {
			visits[k-1].nextStart = st
		}
	}

	// Page seconds and the midnight cut: a page survives iff second + room < 86400, room = 8
	// for /confirmation (its purchase must fit too) and 0 otherwise. Then the pageview events
	// of the surviving pages, with their WatchIDs.
	confirmation := w.pidConfirmation()
	pageOff := int(visits[0].firstPage)
	for k := range visits {
		v := &visits[k]
		vi := int32(first + k)
		live := int32(0)
		for p := v.firstPage; p < v.firstPage+v.nPages; p++ {
			pg := &dst.pages[p]
			pg.sec = v.start + b.offsets[int(p)-pageOff]
			room := int32(0)
			if int(pg.pid) == confirmation {
				room = tradeRoom
			}
			if pg.sec+room >= daySeconds {
				break
			}
			live++
			pg.watchID = b.watch.watchID(slot, k, rowPage+int(p-v.firstPage))
			dst.events = append(dst.events, event{watchID: pg.watchID, sec: pg.sec, visit: vi, page: p, kind: evPageview})
			if w.pages[pg.pid].kind == pageProduct {
				dst.Stats.CardViews++
			}
		}
		v.nLive = live
		if live > 0 {
			dst.Stats.Visits++
		}
		if v.stage >= 1 {
			dst.Stats.CartVisits++
		}
		dst.Stats.PlannedPages += int(v.nPages)
	}
	return true
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
