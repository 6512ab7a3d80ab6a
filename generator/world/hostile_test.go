package world

import (
	"math"
	"strings"
	"testing"
)

// TestMixWeightBounded is issue 24 item 4: weights are summed into a 32-bit pick table, so
// field_invalid=4294967296 wrapped the orders' sum to zero (a panic after every hit was sent)
// and two weights of MaxInt64 drew 5210 and 0. They are refused where the mix is parsed (and
// in Validate, for a profile's mapping); weights up to the bound still parse.
func TestMixWeightBounded(t *testing.T) {
	for _, text := range []string{
		"key_field_unparsed=1,field_invalid=4294967296",
		"not_an_object=4294967296",
		"not_an_object=9223372036854775807,keyset_mismatch=9223372036854775807",
		"not_an_object=1000001",
	} {
		_, err := ParseMix(text)
		if err == nil || !strings.Contains(err.Error(), "want at most 1000000") {
			t.Errorf("ParseMix(%q) = %v; want an error naming the bound 1000000", text, err)
		}
	}
	g := Garbage{Rate: 0.1, Mix: Mix{GarbageNotAnObject: math.MaxInt64}}
	if err := g.Validate(); err == nil || !strings.Contains(err.Error(), "garbage class not_an_object: weight 9223372036854775807, want at most 1000000") {
		t.Errorf("Validate(not_an_object=MaxInt64) = %v", err)
	}
	m, err := ParseMix("not_an_object=1000000,keyset_mismatch=1000000,key_field_unparsed=1000000,accepted_bad=1000000,vanishing=1000000,field_invalid=1000000")
	if err != nil {
		t.Fatalf("every class at the bound: %v", err)
	}
	for _, classes := range [][]string{HitGarbageClasses, OrderGarbageClasses} {
		_, tab, ok := Garbage{Rate: 1, Mix: m}.mixFor(classes)
		if !ok || tab.Total() != 1_000_000*len(classes) {
			t.Errorf("mix at the bound over %v: table total %d, want %d", classes, tab.Total(), 1_000_000*len(classes))
		}
	}
}

// TestInjectDayBounded is issue 24 item 5 in the library: Inject refuses a day the wire
// formats cannot carry, as CheckDays does (day 2147483647 panicked with an index out of range).
func TestInjectDayBounded(t *testing.T) {
	w := canonical(t)
	for _, d := range []int{MaxDay + 1, math.MaxInt32, math.MaxInt} {
		if _, err := w.Inject(KindHits, GarbageAcceptedBad, d, 1); err == nil || !strings.Contains(err.Error(), "the last model day is 29104") {
			t.Errorf("Inject(hits, day %d) = %v; want the last model day named", d, err)
		}
	}
}
