package world

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestHitGarbageBytes pins the bytes of many malformed hits, far more than the golden file
// holds: every class and kind, at --garbage 1 (one per event), on days whose dates make
// accepted_bad choose both of its date spellings, and Inject's hits of every class. The
// makers edit the clean event's bytes in place: they must give the bytes the split into fields
// and the join back gave. The hash changes only with a version bump, as the golden files.
func TestHitGarbageBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("about 200 000 malformed hits")
	}
	const want = "032b43cb966adb176f56f9b3b564be0c29cf7262b1e95f8c3ded3768bd7e0a0f"
	w := canonical(t)
	g := Garbage{Rate: 1, Mix: everything}
	h := sha256.New()
	kinds := map[string]int{}
	for _, d := range []int{0, 1, 30} {
		x := w.Day(d).HitExtras(g)
		for _, e := range x {
			kinds[e.Kind]++
		}
		h.Write(appendExtras(nil, x))
	}
	for _, k := range []string{"truncated", "binary", "plain_text", "scalar", "array", "missing_key", "extra_key",
		"renamed_key", "wrong_case", "empty_object", "id_text", "id_negative", "id_null", "id_object", "date_dotted",
		"time_fraction", "time_offset", "time_space", "impossible_date", "date_spelling", "id_numeric_string",
		"id_fraction", "wrong_type", "empty_value", "tombstone"} {
		if kinds[k] == 0 {
			t.Errorf("no malformed hit of kind %s", k)
		}
	}
	for _, class := range HitGarbageClasses {
		x, err := w.Inject(KindHits, class, 2, 2000)
		if err != nil {
			t.Fatal(err)
		}
		h.Write(appendExtras(nil, x))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("malformed hits hash %s, want %s: their bytes changed", got, want)
	}
}
