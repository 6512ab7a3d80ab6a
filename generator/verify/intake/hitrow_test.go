package intake

import "testing"

// TestAcceptedHitRow: the row identity agrees with HitDedupKey on every sample of the corpus
// (accepted or not), and reads ClientID with the engine's lenient conversions, as WatchID.
func TestAcceptedHitRow(t *testing.T) {
	for _, s := range hitSamples(t) {
		row, ok := AcceptedHitRow(s.raw)
		key, kok := HitDedupKey(s.raw)
		if ok != kok || ok && (row.WatchID != key.WatchID || row.EventDate != key.EventDate) {
			t.Errorf("%s: AcceptedHitRow = %+v, %v; HitDedupKey = %+v, %v", s.name, row, ok, key, kok)
		}
	}
	pv := goldenFile(t, "hit_pageview.golden")
	canonical, ok := AcceptedHitRow(pv)
	if !ok || canonical.ClientID == 0 {
		t.Fatalf("the golden pageview: %+v, %v", canonical, ok)
	}
	for _, c := range []struct {
		val  string
		want uint64
	}{{`"123"`, 123}, {`1.9`, 1}, {`true`, 1}, {`"9007199254740993"`, 9007199254740993}} {
		row, ok := AcceptedHitRow(withValue(t, pv, "ClientID", c.val))
		if !ok || row.ClientID != c.want || row.WatchID != canonical.WatchID {
			t.Errorf("ClientID %s: %+v, %v; want ClientID %d", c.val, row, ok, c.want)
		}
	}
	if row, ok := AcceptedHitRow(withValue(t, pv, "ClientID", `-1`)); ok {
		t.Errorf("ClientID -1 (key_field_unparsed): %+v, true; want false", row)
	}
}
