package topics

import (
	"context"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// windowScale is the most scale-days one window plans: a larger clean range is planned and
// read in windows of its segments, so that the check holds one window's plan and one segment
// day's model at a time, not the range's (a --scale 100 day plans 5.2 M messages, 330 MB, from
// a model of 380 MB; a window of a quarter of it about 80 MB from a model of 100 MB).
const windowScale = 25.0

// maxWindows is the most windows a range is cut into: the world's bound on segments.
const maxWindows = 1024

// PlanWindows is how many windows [Verify.Run] checks range r of w in, with opt.Windows as
// asked (0: one per windowScale scale-days). Window k is segment k of that many
// ([world.Segment]): its plan is the segment's share of the range, and it judges the
// messages whose key the segment owns (a message without key: the first window), reading
// each topic whole and skipping the others', so each arrived message is judged by one window.
// A range whose garbage adds messages or redeliveries is planned whole (1): its extras are
// drawn over whole days, so a segment's plan would build the whole day's model anyway, and a
// malformed message without key could not be told which window it is planned in. So is a
// segment's range.
func PlanWindows(w *world.World, r world.Range, opt Options) int {
	if !r.Segment.Whole() || r.Garbage.Rate > 0 || r.Garbage.Redeliver > 0 || opt.Windows == 1 {
		return 1
	}
	if opt.Windows > 1 {
		return min(opt.Windows, maxWindows)
	}
	return min(maxWindows, max(1, int(math.Ceil(w.Scale()*float64(r.Days)/windowScale))))
}

// window is what one window's [Checker] judges: the messages whose key its segment owns (a
// message without key: segment 0's), and of those only the ones the first window could read.
// The first window reads every partition to its end and records, per topic and partition,
// the offset after the last message it saw (ends); later windows judge nothing at or past
// it, so every window judges the same read even when the topics grow between windows.
type window struct {
	seg   world.Segment
	first bool
	ends  *[2]map[int32]int64
}

// owns says whether the window judges m, read from topic t.
func (wd *window) owns(t topic, m *Message) bool {
	if wd.first {
		wd.ends[t][m.Partition] = max(wd.ends[t][m.Partition], m.Offset+1)
	} else if m.Offset >= wd.ends[t][m.Partition] {
		return false
	}
	if m.Key == nil {
		return wd.seg.I == 0
	}
	return wd.seg.OwnsKey(m.Key)
}

// checkWindows checks range r of w in n windows (n > 1): for each, it builds the window's
// expectation (counting the units built into built) and calls read with a checker of it,
// which judges only the window's messages, then drops the expectation before the next. The
// windows' results are merged into the range's, whose inventory merges the windows' shares.
// between, if set, is called before each window is planned.
func checkWindows(ctx context.Context, w *world.World, r world.Range, opt Options, n int, strict bool, built *atomic.Int64,
	between func(k int), read func(k int, e *Expectation, c *Checker) error) (*Result, error) {
	ends := [2]map[int32]int64{{}, {}}
	parts := make([]*Result, 0, n)
	invs := make([]*world.Inventory, 0, n)
	var shell *Expectation
	for k := range n {
		if between != nil {
			between(k)
		}
		rk := r
		rk.Segment = world.Segment{I: k, N: n}
		e, err := expect(ctx, w, rk, opt, built)
		if err != nil {
			return nil, err
		}
		c := e.NewChecker()
		c.strict = strict
		c.win = &window{seg: rk.Segment, first: k == 0, ends: &ends}
		if err := read(k, e, c); err != nil {
			return nil, err
		}
		res := c.Result()
		res.exp = nil // which would keep the window's plan
		parts = append(parts, res)
		invs = append(invs, e.Inventory)
		if shell == nil {
			shell = &Expectation{Range: r, HitPartitions: e.HitPartitions, OrderPartitions: e.OrderPartitions}
		}
		e, c = nil, nil
		runtime.GC() // the window's plan is garbage now: the next one reuses its memory
	}
	inv, err := world.MergeInventories(invs...)
	if err != nil {
		return nil, fmt.Errorf("topics: %w", err)
	}
	shell.Inventory = inv
	return mergeResults(shell, parts), nil
}

// mergeResults sums the results of the windows of one range (each judged the messages of its
// own segment) into the range's: every count is the sum of the windows', each day's (and
// snapshot's) clean hash is the list of its shares' (SegmentSHA256), and the result is OK only
// when every window's is and the sums agree with e's inventory.
func mergeResults(e *Expectation, parts []*Result) *Result {
	r := &Result{OK: true, Differences: map[string]int{}, exp: e}
	examples := map[exampleGroup][]Difference{}
	for t, tr := range [2]*TopicResult{&r.Hits, &r.Orders} {
		t := topic(t)
		*tr = TopicResult{Topic: t.String(), Partitions: e.partitions(t), Want: newTally(t, e.partitions(t)), Got: newTally(t, e.partitions(t)),
			Unexpected: newTally(t, e.partitions(t)), Other: newTally(t, e.partitions(t)),
			UnexpectedStand: Stand{ODSErrors: zeroErrors(t)}, StandGot: Stand{ODSErrors: zeroErrors(t)}, Differences: map[string]int{}, OK: true}
		if t == hits {
			tr.StandWant = standOf(t, e.Inventory.Expect.Hits)
		} else {
			tr.StandWant = standOf(t, e.Inventory.Expect.Orders)
		}
		days := map[int]struct{}{}
		for _, p := range parts {
			pt := &p.Hits
			if t == orders {
				pt = &p.Orders
			}
			tr.OK = tr.OK && pt.OK
			for i, u := range pt.Units {
				if i == len(tr.Units) {
					tr.Units = append(tr.Units, UnitResult{Topic: u.Topic, Day: u.Day, Date: u.Date, Want: newTally(t, e.partitions(t)),
						Got: newTally(t, e.partitions(t)), StandWant: Stand{ODSErrors: zeroErrors(t)}, StandGot: Stand{ODSErrors: zeroErrors(t)},
						SHA256OK: true, OK: true})
				}
				m := &tr.Units[i]
				addTally(&m.Want, u.Want)
				addTally(&m.Got, u.Got)
				addStand(&m.StandWant, u.StandWant)
				addStand(&m.StandGot, u.StandGot)
				m.SegmentSHA256 = append(m.SegmentSHA256, u.SHA256)
				m.SHA256OK = m.SHA256OK && u.SHA256OK
				m.OK = m.OK && u.OK
			}
			addTally(&tr.Unexpected, pt.Unexpected)
			addStand(&tr.UnexpectedStand, pt.UnexpectedStand)
			addTally(&tr.Other, pt.Other)
			for _, d := range pt.OtherDays {
				days[d] = struct{}{}
			}
			addTally(&tr.Want, pt.Want)
			addTally(&tr.Got, pt.Got)
			addStand(&tr.StandGot, pt.StandGot)
			for k, n := range pt.Differences {
				tr.Differences[k] += n
			}
			tr.changed += pt.changed
			tr.copies += pt.copies
		}
		for i := range tr.Units {
			u := &tr.Units[i]
			u.SHA256OK = u.SHA256OK && u.Got.Clean == u.Want.Clean
			u.OK = u.OK && u.SHA256OK && tallyEqual(u.Want, u.Got) && standEqual(u.StandWant, u.StandGot)
			tr.OK = tr.OK && u.OK
		}
		tr.OtherDays = slices.Sorted(maps.Keys(days))
		tr.OK = tr.OK && tr.Unexpected.Messages == 0 && tallyEqual(tr.Want, tr.Got) && standEqual(tr.StandWant, tr.StandGot)
		for _, k := range DiffKinds {
			tr.Differences[k] += 0 // every kind listed
			tr.OK = tr.OK && tr.Differences[k] == 0
		}
		r.OK = r.OK && tr.OK
	}
	for _, k := range DiffKinds {
		r.Differences[k] = r.Hits.Differences[k] + r.Orders.Differences[k]
	}
	for _, p := range parts {
		for _, d := range p.Examples {
			addExample(examples, d)
		}
	}
	for _, g := range slices.SortedFunc(maps.Keys(examples), compareGroups) {
		r.Examples = append(r.Examples, examples[g]...)
	}
	return r
}
