package summary

import (
	"bytes"
	"testing"
)

// TestWrite: a row per unit kind, then the total summing them, extras included; the words
// always in one order, every one said even when 0, extras only when not 0; and Words says a
// line's counts in the same words.
func TestWrite(t *testing.T) {
	s := New("store",
		Line{Unit: "events", Table: "ods.event_dist", Of: "WatchIDs", Counts: Counts{Planned: 5, Present: 4, Missing: 1, Changed: 1, Copies: 2, Extra: map[string]int{"on_shards": 0}}},
		Line{Unit: "raw", Of: "rows", Counts: Counts{Planned: 7, Present: 6, Unplanned: 3, OtherRuns: 4, Extra: map[string]int{"expired": 1}}},
	)
	var b bytes.Buffer
	if err := s.Write(&b); err != nil {
		t.Fatal(err)
	}
	want := `summary            planned  present  missing  unplanned  changed  copies  other runs
events (WatchIDs)  5        4        1        0          1        2       0
raw (rows)         7        6        0        3          0        0       4
total              12       10       1        3          1        2       4
  extra: raw expired 1
`
	if b.String() != want {
		t.Errorf("Write =\n%s\nwant\n%s", b.String(), want)
	}
	if got := s.Lines[1].Words(); got != "planned 7, present 6, missing 0, unplanned 3, changed 0, copies 0, other runs 4; expired 1" {
		t.Errorf("Words = %q", got)
	}
	if s.Total.Extra["on_shards"] != 0 || len(s.Total.Extra) != 2 {
		t.Errorf("total extras %v, want on_shards 0 and expired 1", s.Total.Extra)
	}
	// Nothing read: the total alone, all 0.
	b.Reset()
	if err := New("store").Write(&b); err != nil || b.String() != "summary  planned  present  missing  unplanned  changed  copies  other runs\ntotal    0        0        0        0          0        0       0\n" {
		t.Errorf("an empty summary writes %q (%v)", b.String(), err)
	}
}
