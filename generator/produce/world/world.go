package world

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/clickgen/clickgen/schema"
)

// Params are the world parameters. The zero value is the canonical world: seed 20260601,
// scale 1, the embedded catalog. D0 (Monday 2026-06-01) and the counter time zone (UTC+4) are
// fixed parts of the world.
type Params struct {
	// Seed is the root seed; 0 means CanonicalSeed (see RootSeed).
	Seed uint64
	// Scale multiplies the inflow of new visitors (and so events per day); 0 means 1.
	// It is applied as an integer number of thousandths, so 1.0005 is 1.
	Scale float64
	// Catalog is the assortment; nil means the embedded DefaultCatalog.
	Catalog *Catalog
}

// RootSeed returns the root seed of a world built with seed: seed itself, or CanonicalSeed
// when it is 0. It is the one place the zero seed gets its meaning: NewWorld and the profiles'
// defaults both go through it. Where a user writes a seed explicitly (a flag), 0 is refused
// with ErrZeroSeed instead, so that nobody asks for seed 0 and silently gets another world.
func RootSeed(seed uint64) uint64 {
	if seed == 0 {
		return CanonicalSeed
	}
	return seed
}

// ErrZeroSeed is the error for a seed given explicitly as 0.
var ErrZeroSeed = errors.New("the seed must be positive")

// MaxScale bounds Scale: a day at scale 1 is ~50 k events, so 1000 is ~50 M.
const MaxScale = 1000

// Validate reports whether p describes a world.
func (p Params) Validate() error {
	if math.IsNaN(p.Scale) || p.Scale < 0 || p.Scale > MaxScale {
		return fmt.Errorf("scale %v: want a number in (0, %d]", p.Scale, MaxScale)
	}
	if p.Scale != 0 && math.Round(p.Scale*1000) < 1 {
		return fmt.Errorf("scale %v: smaller than the smallest step 0.001", p.Scale)
	}
	if p.Catalog != nil && len(p.Catalog.Products) == 0 {
		return errors.New("catalog has no products")
	}
	return nil
}

// World is a validated, ready world: the parameters plus everything derived from them once
// (page strings, pick tables). A World cannot be changed after NewWorld has built it; it is
// safe for concurrent use, and days and cohorts may be generated from several goroutines at
// once.
type World struct {
	seed    uint64
	permil  int64 // Scale in thousandths
	catalog *Catalog

	pages       []pageInfo
	parts       hitParts // pre-encoded parts of hits (render.go)
	devTable    table
	phoneTable  table // devices of the phone half, weights as in devices
	otherTable  table // desktops and tablets
	phoneIdx    []int
	otherIdx    []int
	cityTable   table
	sourceTable table
	hourTables  [2][4]table // [weekend][tz shift class] rotated diurnal profiles
	cohorts     *cohortCache
}

// pageInfo is what a page id stands for (its URL and title columns are in hitParts).
type pageInfo struct {
	kind  uint8
	query bool // the URL has a query already: a UTM query is appended with '&'
}

// Page ids: HOME, CATALOG×6, SEARCH×8, PRODUCT×len(catalog), STATIC×3, CART, CHECKOUT,
// CONFIRMATION.
const (
	pidHome    = 0
	pidCatalog = 1
	pidSearch  = pidCatalog + len(categories)
	pidProduct = pidSearch + len(searchQueries)
)

func (w *World) pidStatic(i int) int { return pidProduct + len(w.catalog.Products) + i }
func (w *World) pidCart() int        { return w.pidStatic(len(staticPages)) }
func (w *World) pidCheckout() int    { return w.pidCart() + 1 }
func (w *World) pidConfirmation() int {
	return w.pidCart() + 2
}

// NewWorld validates p and prepares the world.
func NewWorld(p Params) (*World, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	w := &World{seed: RootSeed(p.Seed), catalog: p.Catalog, permil: 1000}
	if p.Scale != 0 {
		w.permil = int64(math.Round(p.Scale * 1000))
	}
	if w.catalog == nil {
		w.catalog = DefaultCatalog()
	}
	w.buildPages()
	w.buildTables()
	w.cohorts = newCohortCache(cohortCacheSize)
	return w, nil
}

// Seed is the world's root seed (never 0: see RootSeed). Every substream is derived from it.
func (w *World) Seed() uint64 { return w.seed }

// Scale is the world's scale factor as applied (thousandths).
func (w *World) Scale() float64 { return float64(w.permil) / 1000 }

// Catalog is the world's assortment. It is shared, not copied: callers must not modify it.
func (w *World) Catalog() *Catalog { return w.catalog }

func title(heading string) string { return heading + " — " + SiteName }

// percentEncode encodes every byte outside [A-Za-z0-9-._~] as %XX with uppercase hex (a
// space as %20), as browsers put a query into a URL.
func percentEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// buildPages lists the pages and pre-encodes their URL and title columns. A product page
// costs its two columns and nothing per traffic source: an entry page's URL with a source's
// UTM query is its URL column with the query appended before the closing quote
// ([Day.appendURL]), so a million-row catalog no longer holds ten URLs per product (issue
// 24: 5.7 KB and 0.08 ms per row, from encoding a whole hit for every column of every page
// and source).
func (w *World) buildPages() {
	p := &w.parts
	add := func(kind uint8, path, heading string) {
		w.pages = append(w.pages, pageInfo{kind: kind, query: strings.Contains(path, "?")})
		p.url = append(p.url, string(schema.AppendString([]byte(schema.HitKey(colURL)), SiteURL+path)))
		p.title = append(p.title, string(schema.AppendString([]byte(schema.HitKey(colTitle)), title(heading))))
	}
	add(pageHome, "/", homeHeading)
	for _, c := range categories {
		add(pageCatalog, "/catalog/"+c.Slug, c.Name)
	}
	for _, q := range searchQueries {
		add(pageSearch, "/search?text="+percentEncode(q), searchHeading)
	}
	for _, pr := range w.catalog.Products {
		add(pageProduct, "/product/"+pr.SKU, pr.Name)
	}
	for _, s := range staticPages {
		add(pageStatic, s.path, s.heading)
	}
	add(pageCart, "/cart", cartHeading)
	add(pageCheckout, "/checkout", checkoutHeading)
	add(pageConfirmation, "/confirmation", confirmationHeading)

	for si, src := range sources {
		var q []string
		for i, v := range src.UTM {
			if v != "" {
				q = append(q, utmNames[i]+"="+v)
			}
		}
		if len(q) == 0 {
			continue
		}
		query := strings.Join(q, "&")
		if e := string(schema.AppendString(nil, query)); e != `"`+query+`"` {
			panic("generator: a UTM query needs JSON escaping: " + e) // the tables are ours
		}
		p.utm[0][si] = "?" + query + `"`
		p.utm[1][si] = "&" + query + `"`
	}
	w.buildParts()
}

func (w *World) buildTables() {
	var all, phone, other []int
	for i, d := range devices {
		all = append(all, d.Weight)
		if d.Category == devicePhone {
			phone = append(phone, d.Weight)
			w.phoneIdx = append(w.phoneIdx, i)
		} else {
			other = append(other, d.Weight)
			w.otherIdx = append(w.otherIdx, i)
		}
	}
	w.devTable, w.phoneTable, w.otherTable = newTable(all...), newTable(phone...), newTable(other...)
	var cityW []int
	for _, c := range cities {
		cityW = append(cityW, c.Weight)
	}
	w.cityTable = newTable(cityW...)
	var sourceW []int
	for _, s := range sources {
		sourceW = append(sourceW, s.Weight)
	}
	w.sourceTable = newTable(sourceW...)
	for weekend, profile := range [2][24]int{weekdayHours, weekendHours} {
		for cls, shift := range tzShifts {
			var row [24]int
			for h := range row {
				row[h] = profile[floorMod(h+shift, 24)]
			}
			w.hourTables[weekend][cls] = newTable(row[:]...)
		}
	}
}

// tzShifts are the hour shifts of the four city offsets (180, 240, 300, 420 minutes) relative to
// the counter's 240: shift = (tz − 240) div 60.
var tzShifts = [4]int{-1, 0, 1, 3}

func tzClass(tz int16) int {
	switch tz {
	case 180:
		return 0
	case 240:
		return 1
	case 300:
		return 2
	}
	return 3
}

// DayDate returns the EventDate of model day d.
func DayDate(d int) schema.Date { return schema.Date(OriginDate + d) }

// DayStartUTC is the UTC second at which model day d starts (counter midnight): the model time
// origin of the day's events.
func DayStartUTC(d int) int64 { return dayStartUTC(d) }

// dayStartUTC is the UTC second at which model day d starts (counter midnight).
func dayStartUTC(d int) int64 {
	return int64(OriginDate+d)*daySeconds - CounterTZMinutes*60
}

// Weekday of day d: 0 Monday … 6 Sunday (floor modulo, so prehistory days work).
func Weekday(d int) int { return floorMod(d, 7) }

func isWeekend(d int) bool { return Weekday(d) >= 5 }
