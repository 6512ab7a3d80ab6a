package world

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clickgen/clickgen/schema"
)

// uniqueIDsBelowScan is uniqueIDsBelow as it was before issue 11 (a linear scan of the ids so
// far): the reference the set-based version must reproduce draw for draw.
func uniqueIDsBelowScan(s *stream, n int, limit uint64, avoid []uint64) []uint64 {
	ids := make([]uint64, 0, n)
	for len(ids) < n {
		id := 1 + s.Below(limit-1)
		if _, found := slices.BinarySearch(avoid, id); found || slices.Contains(ids, id) {
			continue
		}
		ids = append(ids, id)
	}
	return ids
}

// TestUniqueIDsBelowSameDraws: the O(n) version returns the same ids in the same order as the
// scan, and leaves the stream at the same place, including when collisions are frequent (a
// small limit) — so no byte of a garbage day moves.
func TestUniqueIDsBelowSameDraws(t *testing.T) {
	for _, tc := range []struct {
		n     int
		limit uint64
	}{{0, 10}, {1, 2}, {900, 1000}, {5000, 1 << 20}, {3000, 1 << 52}} {
		avoid := []uint64{3, 7, 500, 999}
		a, b := newStream(1, streamDefects, 3, 0), newStream(1, streamDefects, 3, 0)
		got, want := uniqueIDsBelow(a, tc.n, tc.limit, avoid), uniqueIDsBelowScan(b, tc.n, tc.limit, avoid)
		if !slices.Equal(got, want) {
			t.Fatalf("n %d limit %d: ids differ from the linear scan's", tc.n, tc.limit)
		}
		if a.Uint64() != b.Uint64() {
			t.Fatalf("n %d limit %d: the stream advanced differently", tc.n, tc.limit)
		}
	}
}

// TestUniqueIDsBelowLinear draws 2 000 000 distinct ids, what --garbage 10 needs for a day at
// scale 4: a set does it in about a second, the linear scan (2·10¹² comparisons, the cause of
// --garbage 3 taking 18 s) runs past the test binary's timeout. No wall clock is read: a
// timing ratio proved noisy under the garbage collector.
func TestUniqueIDsBelowLinear(t *testing.T) {
	const n = 2_000_000
	ids := uniqueIDsBelow(newStream(1, streamDefects, 0, 0), n, 1<<52, nil)
	seen := make(map[uint64]bool, n)
	for _, id := range ids {
		if seen[id] || id == 0 || id >= 1<<52 {
			t.Fatalf("id %d repeated or out of [1, 2^52)", id)
		}
		seen[id] = true
	}
	if len(ids) != n {
		t.Fatalf("%d ids, want %d", len(ids), n)
	}
}

// TestDayContextStops: a day being built at scale 30 (seconds of work) checks its context as
// it goes and stops at the first check after the cancel, returning the context's error and no
// day. The context is cancelled by its own checks (the 20th), not by a clock: a day that only
// looked at it before and after its work would never see the cancel and return the day, and
// one that went on after it would ask again.
func TestDayContextStops(t *testing.T) {
	w, err := NewWorld(Params{Scale: 30})
	if err != nil {
		t.Fatal(err)
	}
	ctx := &cancelAfter{Context: context.Background(), checks: 20, done: make(chan struct{})}
	type result struct {
		day *Day
		err error
	}
	done := make(chan result, 1)
	go func() {
		day, err := w.DayContext(ctx, 0)
		done <- result{day, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(5 * time.Minute):
		t.Fatal("DayContext did not return within 5 minutes")
	}
	if !errors.Is(r.err, context.Canceled) || r.day != nil {
		t.Errorf("DayContext with a context cancelled at its 20th check = (%v, %v), want (nil, context.Canceled)", r.day != nil, r.err)
	}
	if n := ctx.n.Load(); n < 20 || n > 20+2 {
		t.Errorf("the context was asked %d times, want the 20th to stop the day (and at most a check or two more)", n)
	}
}

// cancelAfter is a context cancelled by its checks: its first checks-1 calls of Err answer
// nil, every later one context.Canceled (and Done is closed from then on).
type cancelAfter struct {
	context.Context
	checks int64
	n      atomic.Int64
	once   sync.Once
	done   chan struct{}
}

func (c *cancelAfter) Err() error {
	if c.n.Add(1) < c.checks {
		return nil
	}
	c.once.Do(func() { close(c.done) })
	return context.Canceled
}

func (c *cancelAfter) Done() <-chan struct{} { return c.done }

// TestSegmentDayStops: a segment's day honours its context like a whole day: cancelled, it
// returns the context's error and no day, whether it plans the share or the whole day.
func TestSegmentDayStops(t *testing.T) {
	w, err := NewWorld(Params{Scale: 3})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, seg := range []Segment{{}, {1, 4}} {
		if day, err := w.SegmentDay(ctx, 0, seg); !errors.Is(err, context.Canceled) || day != nil {
			t.Errorf("SegmentDay(cancelled, %v) = (%v, %v), want (nil, context.Canceled)", seg, day != nil, err)
		}
	}
}

// TestHitExtrasContextStops: building --garbage 10 extras (seconds of work) stops at a
// cancelled context with its error, and with a live context gives what HitExtras gives.
func TestHitExtrasContextStops(t *testing.T) {
	w, _ := NewWorld(Params{Scale: 0.1})
	day := w.Day(0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if x, err := day.HitExtrasContext(ctx, Garbage{Rate: 10}); !errors.Is(err, context.Canceled) || x != nil {
		t.Errorf("HitExtrasContext(cancelled) = %d extras, %v; want none and context.Canceled", len(x), err)
	}
	g := Garbage{Rate: 0.5, Redeliver: 0.1}
	x, err := day.HitExtrasContext(context.Background(), g)
	want := day.HitExtras(g)
	if err != nil || len(x) != len(want) {
		t.Fatalf("HitExtrasContext = %d extras, %v; HitExtras gives %d", len(x), err, len(want))
	}
	for i := range x {
		if string(x[i].Value) != string(want[i].Value) || x[i].After != want[i].After {
			t.Fatalf("extra %d differs from HitExtras'", i)
		}
	}
}

// TestMaxDay: the last second of day MaxDay fits a DateTime and encodes as that day's date
// (counter midnight is 20:00Z), the first second of MaxDay+1 does not fit, and CheckDays
// refuses exactly the ranges that reach past MaxDay.
func TestMaxDay(t *testing.T) {
	last := dayStartUTC(MaxDay) + daySeconds - 1
	if last > math.MaxUint32 || dayStartUTC(MaxDay+1)+daySeconds-1 <= math.MaxUint32 {
		t.Fatalf("MaxDay %d: its last second %d, the next day's last %d; want only the first within uint32", MaxDay, last, dayStartUTC(MaxDay+1)+daySeconds-1)
	}
	if got, want := string(schema.DateTime(last).Append(nil)), DayDate(MaxDay).String()+"T19:59:59Z"; got != want {
		t.Errorf("last second of MaxDay encodes as %s, want %s", got, want)
	}
	for _, tc := range []struct {
		from, n int
		ok      bool
	}{{0, 1, true}, {MaxDay, 1, true}, {MaxDay - 9, 10, true}, {MaxDay - 9, 11, false}, {MaxDay + 1, 1, false},
		{math.MaxInt, 1, false}, {0, math.MaxInt, false}, {5, math.MaxInt, false}, {-1, 1, false}, {0, 0, false}} {
		if err := CheckDays(tc.from, tc.n); (err == nil) != tc.ok {
			t.Errorf("CheckDays(%d, %d) = %v, want ok %v", tc.from, tc.n, err, tc.ok)
		}
	}
}

// TestCatalogFieldBounded is part of issue 11 item 10: a 10 MB product name was accepted and
// made 30 MB messages. A field over MaxCatalogField bytes is refused, naming line and field.
func TestCatalogFieldBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("sku,name,category,brand,price\n")
	for i, cat := range categories {
		name := "ok"
		if i == 2 {
			name = strings.Repeat("я", MaxCatalogField) // 2 bytes each
		}
		fmt.Fprintf(&b, "S%d,%s,%s,B,100\n", i, name, cat.Name)
	}
	_, err := ParseCatalog([]byte(b.String()))
	var ce *CatalogError
	if !errors.As(err, &ce) || ce.Line != 4 || ce.Field != "name" {
		t.Fatalf("ParseCatalog with a %d-byte name = %v; want a CatalogError on line 4, field name", 2*MaxCatalogField, err)
	}
	if _, err := ParseCatalog([]byte(strings.Replace(b.String(), strings.Repeat("я", MaxCatalogField), strings.Repeat("я", MaxCatalogField/2), 1))); err != nil {
		t.Errorf("a %d-byte name is refused: %v", MaxCatalogField, err)
	}
}

// TestMemoryNeededCoversMeasured: the estimate is at least the peak resident sizes measured
// for issue 12 (batch --day 0 --days 3: scale 1 95 MB, 4 137 MB, 10 233 MB, 16 319 MB, 30
// 559 MB; scale 4 with --garbage 3 1.22 GB) and issue 11 (--garbage 10 at scale 4 2.9 GB),
// grows with scale and garbage, and saturates instead of overflowing.
func TestMemoryNeededCoversMeasured(t *testing.T) {
	for _, m := range []struct {
		scale    float64
		g        Garbage
		measured int64
	}{{1, Garbage{}, 95e6}, {4, Garbage{}, 137e6}, {10, Garbage{}, 233e6}, {16, Garbage{}, 319e6}, {30, Garbage{}, 559e6},
		{4, Garbage{Rate: 3}, 1218e6}, {4, Garbage{Rate: 10}, 2904e6}} {
		if got := MemoryNeeded(m.scale, m.g); got < m.measured {
			t.Errorf("MemoryNeeded(%v, %+v) = %d, below the measured %d", m.scale, m.g, got, m.measured)
		}
	}
	if MemoryNeeded(2, Garbage{}) <= MemoryNeeded(1, Garbage{}) || MemoryNeeded(1, Garbage{Rate: 1}) <= MemoryNeeded(1, Garbage{}) {
		t.Error("MemoryNeeded does not grow with scale and garbage")
	}
	if got := MemoryNeeded(math.MaxFloat64, Garbage{Rate: 10}); got != math.MaxInt64 {
		t.Errorf("MemoryNeeded(huge) = %d, want MaxInt64", got)
	}
}
