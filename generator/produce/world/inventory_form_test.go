package world

import (
	"encoding/json"
	"testing"

	"github.com/clickgen/clickgen/internal/testenv"
)

// The inventory leaves a class with no order out of days[].orders, as upstream's passport
// does: the stand's classes_vs_inventory check fails on a class present with 0 that its mart
// has no row for.
func TestOrderClassesOmitZero(t *testing.T) {
	// The JSON form is one goroutine's; the inventory's workers are TestUnitsAreWhatTheVerbsSend's.
	testenv.SkipUnderRace(t, watchedWorkers)
	got, err := json.Marshal(&OrderClasses{Match: 197, Cancelled: 20, AmountDelta: 6})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"match":197,"cancelled":20,"amount_delta":6}`; string(got) != want {
		t.Errorf("OrderClasses JSON = %s, want %s", got, want)
	}
	var back OrderClasses
	if err := json.Unmarshal(got, &back); err != nil || back != (OrderClasses{Match: 197, Cancelled: 20, AmountDelta: 6}) {
		t.Errorf("round trip = %+v, %v", back, err)
	}
	// The stand's starting world closes day 0 only; every other day has no "orders" at all.
	inv, err := canonInventory()
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	var form struct {
		Days []struct {
			Orders map[string]int `json:"orders"`
		} `json:"days"`
	}
	if err := json.Unmarshal(js, &form); err != nil {
		t.Fatal(err)
	}
	closed := 0
	for d, day := range form.Days {
		if day.Orders == nil {
			continue
		}
		closed++
		for class, n := range day.Orders {
			if n == 0 {
				t.Errorf("day %d: orders.%s = 0 is present", d, class)
			}
		}
	}
	if closed != 1 {
		t.Errorf("inventory of days 0–7 has %d days with orders, want 1 (day 0)", closed)
	}
}
