package world

import (
	"bytes"
	"maps"
	"reflect"
	"testing"

	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/internal/testenv"
)

// heavyHitGarbage is the stand's garbage play: one malformed message in twenty, every class,
// one redelivery in a hundred.
var heavyHitGarbage = Garbage{Rate: 0.05, Mix: everything, Redeliver: 0.01}

// purchaseIDOf returns the order id of a hit's purchaseID, "" when it has none.
func purchaseIDOf(v []byte) string {
	const marker = `"purchaseID":["`
	i := bytes.Index(v, []byte(marker))
	if i < 0 {
		return ""
	}
	rest := v[i+len(marker):]
	return string(rest[:bytes.IndexByte(rest, '"')])
}

// TestAcceptedBadCopiesOfPurchases: the book's count of accepted_bad copies per order is what
// the rendered extras hold: the accepted_bad messages that the Go model of the stand's intake
// accepts, of type purchase, with the order's id, filed under the order's date. Days 0 and
// 273 (2027-03-01, where the copies' EventDate is an impossible 2027-02-29).
func TestAcceptedBadCopiesOfPurchases(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	w := canonical(t)
	book := newOrderBook(w, heavyHitGarbage)
	for _, d := range []int{0, 273} {
		day := w.Day(d)
		want := map[string]int{}
		kinds := map[string]int{}
		for _, e := range day.HitExtras(heavyHitGarbage) {
			if e.Class != GarbageAcceptedBad || !bytes.Contains(e.Value, []byte(`"EventType":"purchase"`)) {
				continue
			}
			class, row := intake.ClassifyHit(e.Value)
			key, ok := intake.HitDedupKey(e.Value)
			if class != "" || !row || !ok || key.EventDate != DayDate(d) {
				t.Errorf("day %d: accepted_bad %s copy of a purchase: class %q, row %v, filed under %s; want accepted under %s", d, e.Kind, class, row, key.EventDate, DayDate(d))
			}
			want[purchaseIDOf(e.Value)]++
			kinds[e.Kind]++
		}
		got := map[string]int{}
		orders := book.Born(d)
		for i := range orders {
			if n := orders[i].BadCopies; n > 0 {
				got[orders[i].ID] = n
			}
		}
		t.Logf("day %d: accepted_bad copies of purchases %v, kinds %v", d, want, kinds)
		if len(want) == 0 {
			t.Fatalf("day %d: no accepted_bad copy of a purchase; the test proves nothing", d)
		}
		if !maps.Equal(got, want) {
			t.Errorf("day %d: book's BadCopies %v, the extras hold %v", d, got, want)
		}
		// A book without garbage counts none, and the snapshot rows do not depend on it.
		clean := NewOrderBook(w).Born(d)
		for i := range clean {
			if clean[i].BadCopies != 0 {
				t.Errorf("day %d: order %s has %d copies without garbage", d, clean[i].ID, clean[i].BadCopies)
			}
			if a, b := clean[i].Row(d+3), orders[i].Row(d+3); !reflect.DeepEqual(a, b) {
				t.Errorf("day %d: order %s's snapshot row depends on the garbage", d, clean[i].ID)
			}
		}
	}
}

// TestAcceptedBadCopiesMakeDuplicates: with every garbage class, a closed day's classes are
// the clean day's, except that each order with a copy that would be match or amount_delta is
// duplicate_event; the shares of two segments add up to the whole.
func TestAcceptedBadCopiesMakeDuplicates(t *testing.T) {
	w := canonical(t)
	const d = 0
	clean, dirty := NewOrderBook(w).Classes(d), newOrderBook(w, heavyHitGarbage).Classes(d)
	moved := OrderClasses{}
	for _, o := range newOrderBook(w, heavyHitGarbage).Born(d) {
		if o.BadCopies == 0 {
			continue
		}
		o.BadCopies = 0
		switch o.Class() {
		case ClassMatch:
			moved.Match++
		case ClassAmountDelta:
			moved.AmountDelta++
		}
	}
	want := *clean
	want.Match -= moved.Match
	want.AmountDelta -= moved.AmountDelta
	want.DuplicateEvent += moved.Match + moved.AmountDelta
	t.Logf("day %d: clean %+v, with garbage %+v (%d match, %d amount_delta moved)", d, *clean, *dirty, moved.Match, moved.AmountDelta)
	if moved.Match+moved.AmountDelta == 0 {
		t.Fatalf("day %d: no order moved; the test proves nothing", d)
	}
	if *dirty != want {
		t.Errorf("day %d with garbage: %+v, want %+v", d, *dirty, want)
	}
	book := newOrderBook(w, heavyHitGarbage)
	sum := OrderClasses{}
	for i := range 2 {
		c := book.classesOf(d, Segment{I: i, N: 2})
		sum.Match += c.Match
		sum.Cancelled += c.Cancelled
		sum.LostEvent += c.LostEvent
		sum.DuplicateEvent += c.DuplicateEvent
		sum.AmountDelta += c.AmountDelta
	}
	if sum != *dirty {
		t.Errorf("day %d: two segments' classes add up to %+v, the whole day's are %+v", d, sum, *dirty)
	}
}

// TestOrderClassFromPurchaseRows: the mart's rule over the rows that land, first match wins.
func TestOrderClassFromPurchaseRows(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    Order
		want string
	}{
		{"clean", Order{CancelledAfter: -1, ItemsTotal: 100, Revenue: 100}, ClassMatch},
		{"struck line", Order{CancelledAfter: -1, ItemsTotal: 90, Revenue: 100}, ClassAmountDelta},
		{"copy", Order{CancelledAfter: -1, ItemsTotal: 100, Revenue: 100, BadCopies: 1}, ClassDuplicateEvent},
		{"copy of a struck order", Order{CancelledAfter: -1, ItemsTotal: 90, Revenue: 100, BadCopies: 1}, ClassDuplicateEvent},
		{"copy of a duplicate", Order{CancelledAfter: -1, ItemsTotal: 100, Revenue: 100, Duplicate: true, BadCopies: 2}, ClassDuplicateEvent},
		{"copy of a cancelled order", Order{CancelledAfter: 60, ItemsTotal: 100, Revenue: 100, BadCopies: 1}, ClassCancelled},
		{"lost", Order{CancelledAfter: -1, ItemsTotal: 100, Revenue: 100, Lost: true}, ClassLostEvent},
		// Not generated (a lost event has no copies), but the mart would count one row.
		{"lost with one copy", Order{CancelledAfter: -1, ItemsTotal: 100, Revenue: 100, Lost: true, BadCopies: 1}, ClassMatch},
		{"lost with two copies", Order{CancelledAfter: -1, ItemsTotal: 100, Revenue: 100, Lost: true, BadCopies: 2}, ClassDuplicateEvent},
	} {
		if got := tc.o.Class(); got != tc.want {
			t.Errorf("%s: Class() = %s (%d purchase rows), want %s", tc.name, got, tc.o.PurchaseRows(), tc.want)
		}
	}
}
