package world

// Statistics of the canonical world against world.md §3.10 and §4 (14 days, 0–13). Our bits are
// our own (we do not reproduce numpy's streams), so every number is compared with a stated
// tolerance; the reasoning is next to each. Counts come from the compact day model (unexported
// fields): the invariant tests prove, event by event, that the wire says the same.

import (
	"math"
	"sync"
	"testing"

	"github.com/clickgen/clickgen/internal/testenv"
)

const statDays = 14

// worldStats aggregates days 0–13 of the canonical world.
type worldStats struct {
	days                      [statDays]DayStats
	events, orders            [statDays]int
	visits, onePage           int // visits with a surviving page; of them with exactly one pageview
	stage0, stage0OnePlanned  int // of them with funnel stage 0; of those planned with one page
	lines, singleLine         int
	cookies                   map[uint64]int // ClientID → index into devices
	cookieCity                map[uint64]int
	sourceVisits              map[string]int
	weekdayStarts, weekdayPVs [24]int // counter hours, weekdays only
}

var statsFixture = sync.OnceValue(func() *worldStats {
	w := canonWorld()
	days := make([]*Day, statDays)
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Go(func() {
			for d := g; d < statDays; d += 2 {
				days[d] = w.Day(d)
			}
		})
	}
	wg.Wait()
	s := &worldStats{cookies: map[uint64]int{}, cookieCity: map[uint64]int{}, sourceVisits: map[string]int{}}
	for d, day := range days {
		s.days[d] = day.Stats
		s.events[d] = day.Len()
		s.orders[d] = len(day.Purchases)
		for _, p := range day.Purchases {
			s.lines += len(p.Lines)
			if len(p.Lines) == 1 {
				s.singleLine++
			}
		}
		for i := range day.visits {
			v := &day.visits[i]
			if v.nLive == 0 {
				continue
			}
			s.visits++
			if v.nLive == 1 {
				s.onePage++
			}
			if v.stage == 0 {
				s.stage0++
				if v.nPages == 1 {
					s.stage0OnePlanned++
				}
			}
			s.cookies[v.clientID] = int(v.device)
			s.cookieCity[v.clientID] = int(v.city)
			s.sourceVisits[sources[v.source].Last]++
			if !isWeekend(d) {
				s.weekdayStarts[v.start/3600]++
			}
		}
		if !isWeekend(d) {
			for _, e := range day.events {
				if e.kind == evPageview {
					s.weekdayPVs[e.sec/3600]++
				}
			}
		}
	}
	return s
})

func mean(xs []int) float64 {
	sum := 0
	for _, x := range xs {
		sum += x
	}
	return float64(sum) / float64(len(xs))
}

func share(n, of int) float64 { return 100 * float64(n) / float64(of) }

// within reports whether got is within tol of want: relative (a fraction) when rel is set,
// absolute (same unit) otherwise.
func within(got, want, tol float64, rel bool) bool {
	if rel {
		return math.Abs(got-want) <= tol*want
	}
	return math.Abs(got-want) <= tol
}

func TestWorldVolumes(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	s := statsFixture()
	var aud, visits, pv, cards, carts []int
	for _, st := range s.days {
		aud = append(aud, st.Audience)
		visits = append(visits, st.Visits)
		pv = append(pv, st.ByKind[evPageview])
		cards = append(cards, st.CardViews)
		carts = append(carts, st.AddToCart)
	}
	orders := mean(s.orders[:])
	totalOrders := int(orders*statDays + 0.5)
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
		rel       bool
		why       string
	}{
		// Daily volumes: the 14-day mean of ~50 k events varies by well under 1 % between
		// seeds; ±5 % absorbs our own bits (measured +2 %) without hiding a model change.
		{"events/day", mean(s.events[:]), 49834, 0.05, true, "±5 %: volume, 14-day mean"},
		{"visits/day", mean(visits), 9879, 0.05, true, "±5 %: volume"},
		{"audience/day", mean(aud), 7166, 0.05, true, "±5 %: volume"},
		{"pageviews/day", mean(pv), 47433, 0.05, true, "±5 %: volume (original pageviews, copies excluded)"},
		{"card views/day", mean(cards), 25067, 0.05, true, "±5 %: volume"},
		// ~2 200 cart events a day: the 14-day mean has ~1 % sampling noise; ±6 % (measured +2.7 %).
		{"add_to_cart/day", mean(carts), 2161, 0.06, true, "±6 %: smaller count"},
		// Orders: ~3 500 in 14 days (±1.7 % noise), on top of +1.7 % visits and +3 % conversion;
		// our guaranteed-pair orders are ~23 % of orders against upstream's ~11 % (see
		// TestOrderRates). ±8 %, measured +5 %.
		{"orders/day", orders, 240, 0.08, true, "±8 %: small count × conversion"},
		// Pages per visit is a ratio of large counts: ±3 % (measured +0.3 %).
		{"pages/visit", mean(pv) / mean(visits), 4.80, 0.03, true, "±3 %: ratio"},
		// Conversion visit → purchase: 2.43 %; ±0.2 pp ≈ 8 % relative (measured 2.51 %).
		{"conversion %", 100 * orders / mean(visits), 2.43, 0.2, false, "±0.2 pp"},
		// Lines per order: σ ≈ 1 line, n ≈ 3 500 orders → SE 0.017; ±0.06 ≈ 3.5 SE.
		{"lines/order", float64(s.lines) / float64(totalOrders), 1.74, 0.06, false, "±0.06 lines"},
		// Single-line share: SE = sqrt(.56·.44/3 500) = 0.84 pp; ±2.5 pp ≈ 3 SE.
		{"single-line orders %", share(s.singleLine, totalOrders), 56.4, 2.5, false, "±2.5 pp"},
	} {
		t.Logf("%-22s measured %9.3f  spec %9.3f  tolerance %s", c.name, c.got, c.want, c.why)
		if !within(c.got, c.want, c.tol, c.rel) {
			t.Errorf("%s = %.3f, want %.3f (%s)", c.name, c.got, c.want, c.why)
		}
	}
}

// Bounces: 22.6 % of planned visit lengths are one page (250 of 1105), but a funnel visit has
// at least 3 pages, so the measurable one-page share is 22.6 % of the stage-0 visits.
func TestBounceShare(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	s := statsFixture()
	planned := share(s.stage0OnePlanned, s.stage0)
	want := 100 * 250.0 / 1105
	// ~130 k stage-0 visits: SE 0.12 pp; ±0.5 pp.
	t.Logf("one-page planned length among stage-0 visits: %.2f %% (spec %.2f %%, ±0.5 pp)", planned, want)
	if !within(planned, want, 0.5, false) {
		t.Errorf("one-page share of stage-0 visits = %.2f %%, want %.2f ± 0.5 %%", planned, want)
	}
	// On the wire: one-pageview visits ≈ 22.6 % × the stage-0 share (measured ≈ 92 %); the
	// midnight cut adds a handful. ±0.6 pp.
	got, derived := share(s.onePage, s.visits), want*float64(s.stage0)/float64(s.visits)
	t.Logf("one-pageview visits: %.2f %% of visits, derived %.2f %% (±0.6 pp)", got, derived)
	if !within(got, derived, 0.6, false) {
		t.Errorf("one-pageview visits = %.2f %% of visits, want %.2f ± 0.6 %%", got, derived)
	}
}

// Passport and source shares: per cookie (unique ClientIDs over 14 days, ~70 k) for device and
// city, per visit (~140 k) for the source. The SE of a share p is sqrt(p(1−p)/n) ≤ 0.19 pp
// here, so ±1.5 pp (device category) and ±1 pp (byCity, sources) are ≥ 5 SE and still catch a
// wrong table entry (the smallest weight difference between neighbours is 1–2 pp).
func TestPassportAndSourceShares(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	s := statsFixture()
	n := len(s.cookies)
	var cat [4]int
	for _, dev := range s.cookies {
		cat[devices[dev].Category]++
	}
	for _, c := range []struct {
		name string
		code int
		want float64
	}{{"desktop", 1, 32}, {"phone", 2, 61}, {"tablet", 3, 7}} {
		got := share(cat[c.code], n)
		t.Logf("device %-8s %6.2f %% of %d cookies (spec %.0f %%, ±1.5 pp)", c.name, got, n, c.want)
		if !within(got, c.want, 1.5, false) {
			t.Errorf("device %s = %.2f %% of cookies, want %.0f ± 1.5 %%", c.name, got, c.want)
		}
	}
	byCity := map[string]int{}
	for _, c := range s.cookieCity {
		byCity[cities[c].Name]++
	}
	// world.md §3.6, copied here so that a changed table fails the test.
	specCities := map[string]int{"Samara": 34, "Tolyatti": 12, "Syzran": 5, "Ulyanovsk": 7, "Saratov": 7,
		"Penza": 5, "Kazan": 5, "Ufa": 4, "Orenburg": 4, "Nizhny Novgorod": 3, "Volgograd": 2, "Moscow": 5,
		"Saint Petersburg": 3, "Yekaterinburg": 2, "Novosibirsk": 1, "Krasnodar": 1}
	for _, name := range sortedKeys(specCities) {
		got := share(byCity[name], n)
		t.Logf("city %-17s %6.2f %% (spec %d %%, ±1 pp)", name, got, specCities[name])
		if !within(got, float64(specCities[name]), 1, false) {
			t.Errorf("city %s = %.2f %% of cookies, want %d ± 1 %%", name, got, specCities[name])
		}
	}
	if len(byCity) != len(specCities) {
		t.Errorf("%d distinct cities, want %d", len(byCity), len(specCities))
	}
	// world.md §3.8: organic 30 + 9, ad 8 + 6 + 5.
	want := map[string]int{"organic": 39, "direct": 22, "ad": 19, "social": 7, "email": 5, "referral": 5, "recommend": 3}
	for _, name := range sortedKeys(want) {
		got := share(s.sourceVisits[name], s.visits)
		t.Logf("source %-9s %6.2f %% of visits (spec %d %%, ±1 pp)", name, got, want[name])
		if !within(got, float64(want[name]), 1, false) {
			t.Errorf("LastTrafficSource %s = %.2f %% of visits, want %d ± 1 %%", name, got, want[name])
		}
	}
	if len(s.sourceVisits) != len(want) {
		t.Errorf("%d distinct LastTrafficSource values, want %d", len(s.sourceVisits), len(want))
	}
}

// Diurnal wave: the weekday profile's peak is 210 % of the mean hour at visitor-local 20:00.
// Rotated into counter hours and mixed over the city time zones (65 % UTC+4, 24 % UTC+3, 10 %
// UTC+5, 1 % UTC+7), the expected peak-to-mean of visit starts is 1.9965 at counter hour 20.
func TestDiurnalPeak(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	s := statsFixture()
	ratio := func(h [24]int) (float64, int) {
		peak, sum := 0, 0
		for i, v := range h {
			sum += v
			if v > h[peak] {
				peak = i
			}
		}
		return float64(h[peak]) * 24 / float64(sum), peak
	}
	// world.md §3.5's weekday row and the city shares by offset, copied from the spec.
	profile := [24]float64{35, 20, 12, 8, 8, 12, 25, 45, 70, 105, 115, 130, 170, 165, 140, 130, 130, 140, 160, 185, 210, 180, 130, 75}
	byShift := map[int]float64{0: 65, -1: 24, 1: 10, 3: 1} // counter hour h is local hour h+shift
	var mix [24]float64
	for shift, w := range byShift {
		for h := range mix {
			mix[h] += w * profile[floorMod(h+shift, 24)]
		}
	}
	derivedPeak, derived := 0, 0.0
	for h, v := range mix {
		if v > mix[derivedPeak] {
			derivedPeak = h
		}
		derived += v
	}
	derived = mix[derivedPeak] * 24 / derived
	// ~100 k weekday visits, ~8.6 k of them in the peak hour: relative SE ≈ 1.1 % → ±0.022 on
	// the ratio; ±0.06 ≈ 3 SE.
	got, peak := ratio(s.weekdayStarts)
	t.Logf("weekday visit starts: peak/mean %.3f at counter hour %d (derived %.4f at %d; raw profile 2.10)", got, peak, derived, derivedPeak)
	if !within(got, derived, 0.06, false) || peak != derivedPeak {
		t.Errorf("weekday visit starts peak/mean = %.3f at hour %d, want %.3f ± 0.06 at hour %d", got, peak, derived, derivedPeak)
	}
	// Pageviews spread each visit over its ~15 minutes, which flattens the peak a little.
	pv, pvPeak := ratio(s.weekdayPVs)
	t.Logf("weekday pageviews: peak/mean %.3f at counter hour %d", pv, pvPeak)
	if pv < 1.85 || pv > 2.1 || pvPeak != derivedPeak {
		t.Errorf("weekday pageviews peak/mean = %.3f at hour %d, want 1.85…2.10 at hour %d", pv, pvPeak, derivedPeak)
	}
}

// Weekly wave: applied once, to the inflow (±10 %); traffic inherits it through the audience.
func TestWeeklyWave(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	s := statsFixture()
	var aud []int
	minWeekend, minMonThu := math.MaxInt, math.MaxInt
	maxWeekend := 0
	var wk, we []int
	for d, st := range s.days {
		aud = append(aud, st.Audience)
		switch wd := Weekday(d); {
		case wd >= 5:
			maxWeekend = max(maxWeekend, s.events[d])
			minWeekend = min(minWeekend, s.events[d])
			we = append(we, s.events[d])
		case wd <= 3:
			minMonThu = min(minMonThu, s.events[d])
			wk = append(wk, s.events[d])
		default:
			wk = append(wk, s.events[d])
		}
	}
	t.Logf("events/day: weekdays mean %.0f, weekend mean %.0f (%.1f %%); weekend max %d, Mon–Thu min %d",
		mean(wk), mean(we), 100*(mean(we)/mean(wk)-1), maxWeekend, minMonThu)
	// Inflow on a weekend day is 88–92 % of the week's mean against 95–108 % on weekdays, with
	// at most ±5 % daily noise: every weekend day must be below every Monday–Thursday.
	if maxWeekend >= minMonThu {
		t.Errorf("busiest weekend day has %d events, quietest Monday–Thursday %d; want weekends lower", maxWeekend, minMonThu)
	}
	lo, hi := aud[0], aud[0]
	for _, a := range aud {
		lo, hi = min(lo, a), max(hi, a)
	}
	swing := 100 * float64(hi-lo) / 2 / mean(aud)
	// Spec: audience 6 637–7 595 over 14 days = ±6.7 % ("±7 %"). A 14-day range is noisy: the
	// inflow's uniform ±5 % daily draw alone moves it by ~1.5 pp. ±2.5 pp (measured ±5.7 %).
	t.Logf("audience %d–%d over 14 days: swing ±%.1f %% (spec ±7 %%, ±2.5 pp)", lo, hi, swing)
	if !within(swing, 7, 2.5, false) {
		t.Errorf("weekly audience swing = ±%.1f %%, want ±7 ± 2.5 %%", swing)
	}
}

// Inflow draws follow world.md §3.2 exactly: base × WEEKLY div 100 ± 5 % people per cohort;
// new cookies per day (first cookies plus second cookies born that day) average 3 828.
func TestCohortInflow(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	w := canonical(t)
	var born [statDays]int
	for d := -prehistoryDays; d < statDays; d++ {
		c := w.cohortOf(d)
		base := inflowBase * weeklyProfilePercent[Weekday(d)] / 100
		spread := base * 5 / 100
		if c.people < base-spread || c.people > base+spread {
			t.Errorf("cohort %d (weekday %d): %d people, want %d ± %d", d, Weekday(d), c.people, base, spread)
		}
		for i := range c.cookies {
			ck := &c.cookies[i]
			if ck.birth >= 0 && ck.birth < statDays {
				born[ck.birth]++
			}
			if (i >= c.people) != ck.second || ck.second && (ck.birth <= int32(d) || ck.birth > int32(d+returnTailDays)) {
				t.Errorf("cohort %d cookie %d: second=%v born %d; want second cookies after the people, born d+1…d+90", d, i, ck.second, ck.birth)
			}
		}
	}
	got := mean(born[:])
	// Spec: inflow mean 3 828 cookies/day. The base averages 3 800 over a week, plus ~0.75 %
	// second cookies; the ±5 % daily noise averages out over 14 days (SE ≈ 0.8 %): ±2 %.
	t.Logf("inflow: %.0f new cookies/day over days 0–13 (spec 3 828, ±2 %%)", got)
	if !within(got, 3828, 0.02, true) {
		t.Errorf("inflow = %.0f new cookies/day, want 3 828 ± 2 %%", got)
	}
	// Spec: 70.2 k unique cookies over 14 days; ±3 % (a sum of the inflow and the returns).
	u := float64(len(statsFixture().cookies))
	t.Logf("unique cookies with a visit over days 0–13: %.0f (spec 70 200, ±3 %%)", u)
	if !within(u, 70200, 0.03, true) {
		t.Errorf("unique cookies over 14 days = %.0f, want 70 200 ± 3 %%", u)
	}
}
