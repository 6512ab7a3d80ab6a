package world

import (
	"runtime"
	"slices"
	"testing"
)

// BenchmarkHitEdit measures, for the sources of day 1's malformed hits at --garbage 0.5 (one
// core, CPU time per message), what a malformed hit costs beyond its draws:
//
//   - render/draw-order and render/event-order: rendering the clean events into the memory
//     the messages are kept in, in the order the messages are drawn and in the order of their
//     events (how the edits are applied);
//   - edit/split-join: splitting a rendered event into its 47 fields, setting one and joining
//     them back (the makers before);
//   - edit/in-place: finding the field from its part's mark and replacing its value in place;
//   - locate/from-start and locate/from-mark: finding a late field (GoalsReached) in a rendered
//     event by a search from its start and from the renderer's mark of the field's part.
func BenchmarkHitEdit(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	w := canonical(b)
	w.Day(0)
	day := w.Day(1)
	_, extras := day.hitGarbagePlan(Garbage{Rate: 0.5, Mix: Mix{GarbageKeyUnparsed: 1}})
	drawn := make([]int, len(extras))
	for i, e := range extras {
		drawn[i] = e.Source
	}
	ordered := slices.Sorted(slices.Values(drawn))
	perMsg := func(b *testing.B, f func()) {
		t0, n := cpuTime(b), 0
		for b.Loop() {
			f()
			n += len(drawn)
		}
		b.ReportMetric(float64((cpuTime(b)-t0).Nanoseconds())/float64(n), "cpu-ns/msg")
	}
	for _, tc := range []struct {
		name    string
		sources []int
	}{{"render/draw-order", drawn}, {"render/event-order", ordered}} {
		b.Run(tc.name, func(b *testing.B) {
			perMsg(b, func() {
				var kept []byte
				for _, src := range tc.sources {
					if cap(kept)-len(kept) < 8<<10 {
						kept = make([]byte, 0, 256<<10)
					}
					kept = day.AppendEvent(kept, src)
				}
			})
		})
	}
	b.Run("edit/split-join", func(b *testing.B) {
		var buf, out []byte
		var fs [][2][]byte
		perMsg(b, func() {
			for _, src := range ordered {
				buf = day.AppendEvent(buf[:0], src)
				fs = hitKeyset.split(fs, buf)
				fs[27][1] = []byte(`"wide"`)
				out = joinTo(out[:0], fs)
			}
		})
	})
	b.Run("edit/in-place", func(b *testing.B) {
		sc := &defectScratch{}
		perMsg(b, func() {
			for _, src := range ordered {
				m := defect{from: day, source: src, fresh: 1, sc: sc}
				obj := m.hitObject()
				_, val, end := m.locate(obj, 27)
				m.replace(obj, val, end, []byte(`"wide"`))
				sc.out = sc.out[:0] // the messages are not kept
			}
		})
	})
	for _, tc := range []struct {
		name     string
		fromMark bool
	}{{"locate/from-start", false}, {"locate/from-mark", true}} {
		b.Run(tc.name, func(b *testing.B) {
			// 64 events, searched in turn: in the cache, as an event just rendered is.
			objs := make([][]byte, 64)
			from := make([]int, len(objs))
			for i := range objs {
				var marks eventMarks
				objs[i] = day.appendEvent(nil, ordered[i*len(ordered)/len(objs)], nil, nil, &marks)
				if tc.fromMark {
					from[i] = marks.before(colGoals)
				}
			}
			perMsg(b, func() {
				for i := range ordered {
					hitKeyset.locate(objs[i%len(objs)], colGoals, from[i%len(objs)])
				}
			})
		})
	}
}
