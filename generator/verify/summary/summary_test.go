package summary

import (
	"bytes"
	"testing"
)

// TestWrite: a line per unit kind, then the total summing them, extras included; the words
// always in one order, every one said even when 0, extras only when not 0.
func TestWrite(t *testing.T) {
	s := New("store",
		Line{Unit: "events", Table: "ods.event_dist", Of: "WatchIDs", Counts: Counts{Planned: 5, Present: 4, Missing: 1, Changed: 1, Copies: 2, Extra: map[string]int{"on_shards": 0}}},
		Line{Unit: "raw", Of: "rows", Counts: Counts{Planned: 7, Present: 6, Unplanned: 3, OtherRuns: 4, Extra: map[string]int{"expired": 1}}},
	)
	var b bytes.Buffer
	if err := s.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := `summary events ods.event_dist (WatchIDs): planned 5, present 4, missing 1, unplanned 0, changed 1, copies 2, other runs 0
summary raw (rows): planned 7, present 6, missing 0, unplanned 3, changed 0, copies 0, other runs 4; expired 1
summary total: planned 12, present 10, missing 1, unplanned 3, changed 1, copies 2, other runs 4; expired 1
`
	if b.String() != want {
		t.Errorf("Write =\n%s\nwant\n%s", b.String(), want)
	}
	if s.Total.Extra["on_shards"] != 0 || len(s.Total.Extra) != 2 {
		t.Errorf("total extras %v, want on_shards 0 and expired 1", s.Total.Extra)
	}
	// Nothing read: the total alone, all 0.
	b.Reset()
	if err := New("store").Write(&b); err != nil || b.String() != "summary total: planned 0, present 0, missing 0, unplanned 0, changed 0, copies 0, other runs 0\n" {
		t.Errorf("an empty summary writes %q (%v)", b.String(), err)
	}
}
