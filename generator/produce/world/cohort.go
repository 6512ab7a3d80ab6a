package world

import (
	"math"
	"slices"
	"sync"
)

// noDay marks "no such day" in int32 day fields.
const noDay = int32(-1 << 30)

const maxID = 1 << 53 // ids are drawn U[1, 2^53)

// cookie is one ClientID of the plan with its passport (world.md §3.2, §3.6).
type cookie struct {
	clientID uint64
	personID uint64
	birth    int32 // absolute model day the cookie first appears
	assigned int32 // absolute day of its guaranteed order (two-cookie pairs), or noDay
	from, to int32 // its active days, ascending: cohort.arena[from:to]
	device   uint8
	city     uint8
	buyer    bool
	second   bool // the second cookie of a two-cookie pair
}

// cohort is the people who first appear on day d: a pure function of (seed, scale, d).
type cohort struct {
	day     int
	people  int
	cookies []cookie
	arena   []int32 // the cookies' active days
	seconds []cookie
}

// activeDays returns the active days of cookie i, ascending.
func (c *cohort) activeDays(i int) []int32 { return c.arena[c.cookies[i].from:c.cookies[i].to] }

// cohortPool recycles the memory of the cohorts daysOf has turned into lists: a day at scale 100
// draws 91 cohorts of 400 k cookies, and fresh memory for each cost as much as the draws.
var cohortPool = sync.Pool{New: func() any { return new(cohort) }}

// cohortOf computes the cohort of day d (world 0.3.0): the people count from the cohort's
// COMPOSITION stream (sub 0), then each person from a stream of its own (sub 1 + person), so
// that a person costs the same whoever else is in the cohort. A person's draws, in order
// (world.md §3.2 as amended): buyer flag, pair flag (buyers only), the ClientID of the first
// cookie, then of the second cookie and its birth day (pairs only), the active days of the
// first cookie and of the second, the guaranteed-order days (pairs), the passport (device and
// city of the first cookie, the other-half device of the second) and person_id.
func (w *World) cohortOf(d int) *cohort { return w.cohortIn(d, math.MinInt, math.MaxInt) }

// cohortIn is cohortOf for a caller that reads only the cookies active on a day of [floor,
// ceil]: a person none of whose cookies is active then keeps its slots (the cookies' indices
// are the same) with no active days, and its draws after its activity (guaranteed orders,
// passport, person_id) are not made. They are the last draws of the person's own stream, so
// nothing else changes. Most of a cohort born long before floor comes once and never again:
// day 0 of the fill world computes 91 cohorts, 90 of them of earlier days.
func (w *World) cohortIn(d, floor, ceil int) *cohort {
	s := newStream(w.seed, streamComposition, d, 0)
	c := cohortPool.Get().(*cohort)
	c.day = d

	// Inflow.
	base := inflowBase * weeklyProfilePercent[Weekday(d)] / 100
	spread := base * 5 / 100
	people := int(int64(base+s.Range(-spread, spread+1)) * w.permil / 1000)
	c.people = people

	// Layout: first cookies (index = person), then the second cookies of pairs in person order.
	c.cookies = slices.Grow(c.cookies[:0], people+people/64+1)[:people]
	c.arena = slices.Grow(c.arena[:0], people*2)
	c.seconds = c.seconds[:0]
	last := int32(d + returnTailDays)
	// activity draws cookie ck's active days (its birth, then every return within the window)
	// into the arena.
	activity := func(ps *stream, ck *cookie) {
		start := len(c.arena)
		c.arena = append(c.arena, ck.birth)
		oneShot := oneShotPercent
		if ck.buyer {
			oneShot = buyerOneShotPercent
		}
		if ps.Int(100) >= oneShot {
			returns := 1 + ps.Pick(&returnCountTable)
			if ck.buyer {
				returns = 1 + ps.Pick(&buyerReturnCountTable)
			}
			for range returns {
				if day := ck.birth + int32(1+ps.Pick(&returnDelayTable)); day <= last {
					c.arena = append(c.arena, day)
				}
			}
		}
		if ds := c.arena[start:]; len(ds) > 1 {
			slices.Sort(ds)
			c.arena = c.arena[:start+len(slices.Compact(ds))]
		}
		ck.from, ck.to = int32(start), int32(len(c.arena))
	}
	// onAxis is the number of active days of ck on the axis (day ≥ 0), and the first of them.
	onAxis := func(ck *cookie) (int, int32) {
		ds := c.arena[ck.from:ck.to]
		i, _ := slices.BinarySearch(ds, 0)
		return len(ds) - i, ck.from + int32(i)
	}
	// inRange reports whether ck has an active day in [floor, ceil].
	lo, hi := int32(max(floor, math.MinInt32)), int32(min(ceil, math.MaxInt32))
	inRange := func(ck *cookie) bool {
		ds := c.arena[ck.from:ck.to]
		i, _ := slices.BinarySearch(ds, lo)
		return i < len(ds) && ds[i] <= hi
	}
	prefix := prefixOf(w.seed, streamComposition, d)
	for p := range people {
		ps := prefix.stream(1 + uint64(p))
		first := &c.cookies[p]
		*first = cookie{birth: int32(d), assigned: noDay}
		first.buyer = ps.Percent(buyerPercent)
		paired := first.buyer && ps.Percent(pairedBuyerPercent)
		first.clientID = uint64(ps.Range(1, maxID))
		var second cookie
		if paired {
			second = cookie{buyer: true, second: true, assigned: noDay, clientID: uint64(ps.Range(1, maxID))}
			second.birth = int32(d + 1 + ps.Pick(&returnDelayTable))
		}
		activity(&ps, first)
		if paired {
			activity(&ps, &second)
		}
		if !inRange(first) && (!paired || !inRange(&second)) {
			// Read by nobody: no active days, and no more draws. (The second cookie's days
			// follow the first's in the arena.)
			start := first.from
			c.arena = c.arena[:start]
			first.from, first.to = start, start
			if paired {
				second.from, second.to = start, start
				c.seconds = append(c.seconds, second)
			}
			continue
		}
		if paired {
			// Guaranteed orders: one day per cookie, uniform among its activity days on the
			// axis (day ≥ 0); only if both cookies have one.
			na, a := onAxis(first)
			nb, b := onAxis(&second)
			ia, ib := ps.Int(max(na, 1)), ps.Int(max(nb, 1))
			if na > 0 && nb > 0 {
				first.assigned, second.assigned = c.arena[a+int32(ia)], c.arena[b+int32(ib)]
			}
		}
		// Passport: a second cookie keeps the city and takes a device from the other half of
		// the device table.
		first.device = uint8(ps.Pick(&w.devTable))
		first.city = uint8(ps.Pick(&w.cityTable))
		if paired {
			second.city = first.city
			if devices[first.device].Category == devicePhone {
				second.device = uint8(w.otherIdx[ps.Pick(&w.otherTable)])
			} else {
				second.device = uint8(w.phoneIdx[ps.Pick(&w.phoneTable)])
			}
		}
		first.personID = uint64(ps.Range(1, maxID))
		if paired {
			second.personID = first.personID
			c.seconds = append(c.seconds, second)
		}
	}
	c.cookies = append(c.cookies, c.seconds...)
	return c
}

// activeCookie is what a day needs of a cookie active on it: a cohort's cookie without the
// fields only the cohort's own draws use.
type activeCookie struct {
	clientID uint64
	personID uint64
	assigned int32 // absolute day of its guaranteed order (two-cookie pairs), or noDay
	index    int32 // in its cohort: with the cohort's day, the cookie's slot (ids, substreams)
	device   uint8
	city     uint8
	buyer    bool
}

// cohortDays is the part of a cohort that days still to come need: for each activity day, its
// active cookies in cookie order. A run moves forward through the days, so the lists of days
// it has passed are released (see [World.activeOn]): what is held is the cohorts' future
// activity, not their whole population. At scale 100 that is a small part of the 1.3 GB the
// 91 whole cohorts of a day take.
type cohortDays struct {
	lists [returnTailDays + 1][]activeCookie // lists[k]: active on day cohort+k; nil once released
	floor int                                // absolute day: the lists of earlier days are released
	ceil  int                                // absolute day: the lists of later days were not kept
}

// daysOf computes cohort d and keeps the lists of its activity days from floor to ceil, each
// in one allocation with the others.
func (w *World) daysOf(d, floor, ceil int) *cohortDays {
	c := w.cohortIn(d, floor, ceil)
	defer cohortPool.Put(c)
	cd := &cohortDays{floor: floor, ceil: ceil}
	from := int32(max(floor-d, 0))
	to := int32(returnTailDays)
	if ceil < d+returnTailDays { // ceil may be math.MaxInt: ceil-d would overflow
		to = int32(ceil - d)
	}
	var counts [returnTailDays + 1]int
	total := 0
	for i := range c.cookies {
		for _, day := range c.activeDays(i) {
			if k := day - int32(d); k >= from && k <= to {
				counts[k]++
				total++
			}
		}
	}
	flat := make([]activeCookie, total)
	for k, n := range counts {
		cd.lists[k], flat = flat[:0:n], flat[n:]
	}
	for i := range c.cookies {
		ck := &c.cookies[i]
		a := activeCookie{clientID: ck.clientID, personID: ck.personID, assigned: ck.assigned,
			index: int32(i), device: ck.device, city: ck.city, buyer: ck.buyer}
		for _, day := range c.activeDays(i) {
			if k := day - int32(d); k >= from && k <= to {
				cd.lists[k] = append(cd.lists[k], a)
			}
		}
	}
	for k := range cd.lists {
		if int32(k) < from || int32(k) > to {
			cd.lists[k] = nil
		}
	}
	return cd
}

// cohortCacheSize keeps the cohorts of one day (91) plus room for days generated in parallel
// (world.md: an LRU of RETURN_TAIL_DAYS + 8 cohorts). It is a cache only: evicting a cohort
// costs time, never bytes.
const cohortCacheSize = returnTailDays + 8 + 32

type cohortEntry struct {
	ready chan struct{}
	days  *cohortDays // guarded by cohortCache.mu once ready is closed
	used  uint64
}

// cohortCache memoises the future activity of cohorts; concurrent requests for the same day
// compute it once.
type cohortCache struct {
	mu      sync.Mutex
	entries map[int]*cohortEntry // lookup only, never iterated for output
	tick    uint64
	size    int
	last    int // the last day whose lists are kept (World.KeepUntil); math.MaxInt: every day
}

func newCohortCache(size int) *cohortCache {
	return &cohortCache{entries: make(map[int]*cohortEntry), size: size, last: math.MaxInt}
}

// KeepUntil says that no day after d will be asked of the world, so that its cohorts keep no
// activity of later days: a run that plans days up to d alone (verify) then holds, of the
// cohorts of d's audience, the cookies active on the days it makes, not their future
// activity (at scale 100, of day 0: about 157 MB of future lists). It is a hint to a cache:
// a day after d is still made, byte for byte the same, at the cost of computing its cohorts
// again each time it is asked for. Call it before the days are made; a later call applies
// to the cohorts computed after it.
func (w *World) KeepUntil(d int) {
	w.cohorts.mu.Lock()
	w.cohorts.last = d
	w.cohorts.mu.Unlock()
}

// activeOn returns the cookies of cohort cd active on day d (cd ≤ d ≤ cd+90), in cookie order.
// Asking for day d releases the cohort's lists of earlier days: a request for an earlier day
// after that computes the cohort again and keeps it from that day on (time, never bytes).
func (w *World) activeOn(cd, d int) []activeCookie {
	cc := w.cohorts
	cc.mu.Lock()
	cc.tick++
	if e, ok := cc.entries[cd]; ok {
		e.used = cc.tick
		cc.mu.Unlock()
		<-e.ready
		cc.mu.Lock()
		if d < e.days.floor || d > e.days.ceil {
			// Passed already (a second pass over the days, as run's reconciliation makes), or
			// past the last day kept: computed again and kept from d on, so the pass moves
			// forward from here.
			ceil := max(d, cc.last)
			cc.mu.Unlock()
			days := w.daysOf(cd, d, ceil)
			cc.mu.Lock()
			if d < e.days.floor || d > e.days.ceil {
				e.days = days
			}
		}
		defer cc.mu.Unlock()
		for k := e.days.floor - cd; k < d-cd; k++ {
			if k >= 0 {
				e.days.lists[k] = nil
			}
		}
		e.days.floor = d
		return e.days.lists[d-cd]
	}
	e := &cohortEntry{ready: make(chan struct{}), used: cc.tick}
	cc.entries[cd] = e
	if len(cc.entries) > cc.size {
		oldDay, oldest := 0, ^uint64(0)
		for day, x := range cc.entries {
			if x.used < oldest || (x.used == oldest && day < oldDay) {
				oldDay, oldest = day, x.used
			}
		}
		delete(cc.entries, oldDay)
	}
	ceil := max(d, cc.last)
	cc.mu.Unlock()
	days := w.daysOf(cd, d, ceil)
	cc.mu.Lock()
	e.days = days
	list := days.lists[d-cd] // read under the lock: a later day asked meanwhile releases it
	cc.mu.Unlock()
	close(e.ready)
	return list
}

// missing lists the cohorts of days [from, d] that day d cannot take from the cache (absent,
// or passed day d already), in ascending order.
func (cc *cohortCache) missing(from, d int) []int {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	var out []int
	for cd := from; cd <= d; cd++ {
		e, ok := cc.entries[cd]
		if !ok || e.days != nil && (d < e.days.floor || d > e.days.ceil) {
			out = append(out, cd)
		}
	}
	return out
}
