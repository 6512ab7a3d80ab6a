package topics

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/internal/testenv"
)

var (
	cleanOnce sync.Once
	clean     fixture
)

// cleanFixture is run days 0 and 1 of the canonical world with no garbage: a range checked
// in windows when asked.
func cleanFixture(t *testing.T) *fixture {
	return sharedFixture(t, &cleanOnce, &clean, world.Garbage{})
}

// checkInWindows checks hm and om against the clean fixture's range in n windows, each
// window given every message, as a read of the topics gives them.
func checkInWindows(t *testing.T, f *fixture, n int, hm, om []Message) *Result {
	t.Helper()
	r, err := checkWindows(context.Background(), f.w, f.e.Range, Options{}, n, false, nil, nil, func(_ int, _ *Expectation, c *Checker) error {
		for _, m := range hm {
			c.AddHit(m)
		}
		for _, m := range om {
			c.AddOrder(m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// withoutSHA is r as JSON with the clean hashes left out and the examples as a count per
// group: a check in windows lists its shares' hashes instead of the day's, and keeps the
// first examples of each window.
func withoutSHA(t *testing.T, r *Result) string {
	c := *r
	groups := map[string]int{}
	for _, d := range c.Examples {
		groups[d.Kind+" "+d.Topic+" "+strconv.Itoa(d.Day)]++
	}
	c.Examples = nil
	for _, tr := range []*TopicResult{&c.Hits, &c.Orders} {
		tr.Units = slices.Clone(tr.Units)
		for i := range tr.Units {
			tr.Units[i].SHA256, tr.Units[i].SegmentSHA256 = "", nil
		}
	}
	return mustJSON(t, &c) + mustJSON(t, groups)
}

// TestWindowsAsWhole: checked in 1 to 7 windows, the clean range says what the whole check
// says, count for count: of what arrived intact, and of the topics with one of each way a
// topic can differ (brokenTopics: a message lost, changed, copied, in the other partition,
// unplanned, of another run; an order changed and one under another key). The one kind a
// window cannot tell is a message under another segment's key: the window of its key has
// nothing sent with its bytes, so it is unexpected there and missing in its own: still a
// difference, never an OK.
func TestWindowsAsWhole(t *testing.T) {
	testenv.SkipUnderRace(t, watchedReaders)
	f := cleanFixture(t)
	hm, om := brokenTopics(t, f)
	most := 7
	if testing.Short() {
		most = 3 // each window plans the range's share again
	}
	for _, tc := range []struct {
		name   string
		hm, om []Message
	}{{"intact", f.hitMsgs, f.orderMsgs}, {"broken", hm, om[:7]}, {"nothing", nil, nil}} {
		whole := f.e.Check(tc.hm, tc.om)
		for n := 2; n <= most; n++ {
			got := checkInWindows(t, f, n, tc.hm, tc.om)
			if got.OK != whole.OK || mustJSON(t, got.SummaryCounts()) != mustJSON(t, whole.SummaryCounts()) ||
				withoutSHA(t, got) != withoutSHA(t, whole) {
				t.Errorf("%s in %d windows: OK %v, %s\n%s\nwhole: OK %v, %s\n%s", tc.name, n, got.OK, mustJSON(t, got.SummaryCounts()), table(t, got),
					whole.OK, mustJSON(t, whole.SummaryCounts()), table(t, whole))
			}
			for _, u := range got.Hits.Units {
				if len(u.SegmentSHA256) != n || u.SHA256 != "" {
					t.Errorf("%s in %d windows: day %d's hashes %q %v, want %d shares", tc.name, n, u.Day, u.SHA256, u.SegmentSHA256, n)
				}
			}
		}
	}
	// The order under another key (om[7]): a wrong key to the whole check, a difference
	// either way.
	whole := f.e.Check(hm, om)
	for n := 2; n <= most; n++ {
		got := checkInWindows(t, f, n, hm, om)
		if got.OK || whole.OK {
			t.Errorf("in %d windows OK %v, whole OK %v: want both to differ", n, got.OK, whole.OK)
		}
	}
}

// TestWindowsInventory: the windows' inventory is the merge of the range's shares, every
// count the whole range's.
func TestWindowsInventory(t *testing.T) {
	f := cleanFixture(t)
	got := checkInWindows(t, f, 3, f.hitMsgs, f.orderMsgs)
	inv := got.exp.Inventory
	want := f.e.Inventory
	if mustJSON(t, inv.Expect) != mustJSON(t, want.Expect) {
		t.Errorf("merged expectation %s, want %s", mustJSON(t, inv.Expect), mustJSON(t, want.Expect))
	}
	for k := range want.Days {
		if inv.Days[k].Messages != want.Days[k].Messages || len(inv.Days[k].SegmentSHA256) != 3 {
			t.Errorf("day %d: %d messages, %d shares; want %d, 3", want.Days[k].Day, inv.Days[k].Messages, len(inv.Days[k].SegmentSHA256), want.Days[k].Messages)
		}
	}
}

// TestWindowsJudgeEachMessageOnce: every arrived message is judged by exactly one window,
// whichever it is read in: a message without key by the first, a keyed one by its key's.
// A further copy of a message is found as a copy; one without key is unexpected, and a copy
// when the first window plans the message it copies (the whole check finds it by its bytes).
func TestWindowsJudgeEachMessageOnce(t *testing.T) {
	testenv.SkipUnderRace(t, watchedReaders)
	f := cleanFixture(t)
	hm := slices.Clone(f.hitMsgs)
	keyless := hm[42]
	keyless.Key, keyless.Offset = nil, 1<<40
	hm = append(hm, hm[7], keyless)
	for n := 2; n <= 5; n++ {
		r := checkInWindows(t, f, n, hm, f.orderMsgs)
		if r.OK || r.Hits.copies < 1 || r.Hits.Unexpected.Messages != 2 || r.Hits.Got.Messages != len(hm) || r.Differences[DiffMissing] != 0 {
			t.Errorf("%d windows: copies %d, unexpected %d, got %d of %d arrived, missing %d; want 1 or 2, 2, all, 0\n%s",
				n, r.Hits.copies, r.Hits.Unexpected.Messages, r.Hits.Got.Messages, len(hm), r.Differences[DiffMissing], table(t, r))
		}
	}
}

// TestWindowsReadWhatTheFirstRead: a message that arrives after the first window read its
// partition (a later offset) is judged by no window, as a single read leaves it out, so a
// topic that grows during the check cannot give one window more than another has seen.
func TestWindowsReadWhatTheFirstRead(t *testing.T) {
	f := cleanFixture(t)
	late := f.hitMsgs[11]
	late.Offset = 1 << 40
	r, err := checkWindows(context.Background(), f.w, f.e.Range, Options{}, 3, false, nil, nil, func(k int, _ *Expectation, c *Checker) error {
		for _, m := range f.hitMsgs {
			c.AddHit(m)
		}
		if k > 0 {
			for range 3 {
				c.AddHit(late)
			}
		}
		for _, m := range f.orderMsgs {
			c.AddOrder(m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK {
		t.Errorf("messages past the first window's read were judged:\n%s", table(t, r))
	}
	// A message the first window read, lost when its own (later) window reads, is missing.
	i := 11
	for (world.Segment{I: 0, N: 3}).OwnsKey(f.hitMsgs[i].Key) {
		i++
	}
	r, err = checkWindows(context.Background(), f.w, f.e.Range, Options{}, 3, false, nil, nil, func(k int, _ *Expectation, c *Checker) error {
		for j, m := range f.hitMsgs {
			if k == 0 || j != i {
				c.AddHit(m)
			}
		}
		for _, m := range f.orderMsgs {
			c.AddOrder(m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.OK || r.Differences[DiffMissing] != 1 {
		t.Errorf("a message lost in its own window: want 1 missing\n%s", table(t, r))
	}
}

// TestPlanWindows: a clean range is cut by its scale-days, a range with garbage, with
// redeliveries or of a segment never, and Windows asks for a count.
func TestPlanWindows(t *testing.T) {
	f := cleanFixture(t)
	w100, err := world.NewWorld(world.Params{Scale: 100})
	if err != nil {
		t.Fatal(err)
	}
	day := world.Range{From: 0, Days: 1}
	for _, tc := range []struct {
		w    *world.World
		r    world.Range
		opt  Options
		want int
	}{
		{f.w, world.Range{From: 0, Days: 8}, Options{}, 1},
		{w100, day, Options{}, 4},
		{w100, world.Range{From: 0, Days: 3}, Options{}, 12},
		{w100, day, Options{Windows: 1}, 1},
		{w100, day, Options{Windows: 9}, 9},
		{w100, day, Options{Windows: 5000}, maxWindows},
		{f.w, day, Options{Windows: 3}, 3},
		{w100, world.Range{From: 0, Days: 1, Garbage: world.Garbage{Rate: 0.01}}, Options{}, 1},
		{w100, world.Range{From: 0, Days: 1, Garbage: world.Garbage{Redeliver: 0.01}}, Options{Windows: 4}, 1},
		{w100, world.Range{From: 0, Days: 1, Segment: world.Segment{I: 1, N: 2}}, Options{}, 1},
	} {
		if got := PlanWindows(tc.w, tc.r, tc.opt); got != tc.want {
			t.Errorf("PlanWindows(scale %g, %+v, %+v) = %d, want %d", tc.w.Scale(), tc.r, tc.opt, got, tc.want)
		}
	}
}
