package world

import (
	"testing"
	"unsafe"
)

// TestEventCopiesOfPageAndVisit: every event of a day (the whole day and a segment's) carries
// its page's and visit's values that rendering reads, in no more memory than the event took
// before it carried them (32 bytes: a day at scale 100 holds five million events).
func TestEventCopiesOfPageAndVisit(t *testing.T) {
	if n := unsafe.Sizeof(event{}); n != 32 {
		t.Errorf("an event takes %d bytes, want 32", n)
	}
	w := freshWorld(t, Params{})
	seg, err := w.SegmentDay(t.Context(), 2, Segment{1, 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, day := range []*Day{w.Day(1), seg} {
		if len(day.events) == 0 {
			t.Fatal("a day without events")
		}
		for i := range day.events {
			e := &day.events[i]
			v := &day.visits[e.visit]
			if (e.at&atEntry != 0) != (e.page == v.firstPage) || (e.at&afterEntry != 0) != (e.page == v.firstPage+1) ||
				e.source != v.source || e.city != v.city || e.pid != day.pages[e.page].pid {
				t.Fatalf("day %d event %d: %+v, its visit %+v, its page %+v", day.N, i, *e, *v, day.pages[e.page])
			}
			if e.page != v.firstPage && e.prevPid != day.pages[e.page-1].pid {
				t.Fatalf("day %d event %d: page before %d, want %d", day.N, i, e.prevPid, day.pages[e.page-1].pid)
			}
		}
	}
}
