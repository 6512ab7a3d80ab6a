package world

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/brianvoe/gofakeit/v7"
)

// MaxInject is the most messages one [World.Inject] call makes. Inject builds them all in
// memory (about 1 KB each) and clickgen sends them one flush at a time, so a larger count is
// a mistake: --count 1000000000 asked for 96 GB. Volume garbage is [Garbage]'s job.
const MaxInject = 100_000

// Inject returns n malformed messages of one garbage class for topic kind "hits" or "orders",
// made by the same machinery as [Day.HitExtras] and [World.OrderExtras]: each is derived from a
// clean message of model day d (hits: an event of day d, keyed by its ClientID, with a fresh
// WatchID; orders: a row of snapshot d, keyed by its order_id). They are drawn from a substream
// of their own (DEFECTS, day d, sub 2 for hits and 3 for orders), so they never repeat what a
// run's garbage contains, and the result is a pure function of (world, kind, class, d, n):
// calling it twice gives the same bytes, and the n messages are a prefix of the n+1. After is
// 0 and Source the index of the clean message each derives from.
//
// An unknown kind, or a class the kind does not carry, is an error naming the valid ones.
func (w *World) Inject(kind, class string, d, n int) ([]Extra, error) {
	classes := GarbageClassesFor(kind)
	switch {
	case classes == nil:
		return nil, fmt.Errorf("topic kind %q: want %s or %s", kind, KindHits, KindOrders)
	case !slices.Contains(classes, class):
		return nil, fmt.Errorf("garbage class %q does not apply to %s: want one of %s", class, kind, strings.Join(classes, ", "))
	case d < 0 || d > MaxDay:
		return nil, CheckDays(d, 1)
	case n < 0 || n > MaxInject:
		return nil, fmt.Errorf("count %d: want 0 to %d", n, MaxInject)
	}
	out := make([]Extra, n)
	if kind == KindHits {
		day := w.Day(d)
		if day.Len() == 0 {
			return nil, fmt.Errorf("day %d has no events to derive hits from", d)
		}
		used := make([]uint64, 0, day.Len())
		for _, e := range day.events {
			used = append(used, e.watchID)
		}
		slices.Sort(used)
		s := newStream(w.seed, streamDefects, d, 2)
		faker := gofakeit.NewFaker(newPCGSource(s), false)
		fresh := make(map[uint64]struct{}, n) // a set: same draws as a scan, in O(n)
		for i := range out {
			src := s.Int(day.Len())
			// A WatchID no clean event of the day has, and none of the earlier injections.
			id := uint64(0)
			for id == 0 {
				id = 1 + s.Below(1<<52-1)
				if _, found := slices.BinarySearch(used, id); found {
					id = 0
				} else if _, dup := fresh[id]; dup {
					id = 0
				}
			}
			fresh[id] = struct{}{}
			e := Extra{Source: src, Class: class, Key: strconv.AppendUint(nil, day.ClientID(src), 10)}
			e.Kind, e.Value = hitDefect(s, faker, class, day.AppendEvent(nil, src), id)
			out[i] = e
		}
		return out, nil
	}
	rows, keys, err := NewOrderBook(w).SnapshotRows(d)
	if err != nil {
		return nil, err
	}
	s := newStream(w.seed, streamDefects, d, 3)
	faker := gofakeit.NewFaker(newPCGSource(s), false)
	for i := range out {
		e := Extra{Source: -1, Class: class, Key: []byte(orderID(d, 1))}
		var clean []byte
		if len(rows) > 0 {
			e.Source = s.Int(len(rows))
			clean, e.Key = rows[e.Source], slices.Clone(keys[e.Source])
		}
		e.Kind, e.Value = orderDefect(s, faker, class, clean, d)
		out[i] = e
	}
	return out, nil
}
