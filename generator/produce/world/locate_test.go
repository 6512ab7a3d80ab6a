package world

import (
	"bytes"
	"strconv"
	"testing"
)

// TestLocateIsSplit: for every field of every event of three days (carts and purchases among
// them), the search the makers of malformed hits use finds the field where the split into
// fields finds it, from the renderer's mark of the field's part (and from the event's start,
// for every 16th event);
// and a day's event rendered for a maker, under a fresh WatchID, is the join of its split
// fields with that WatchID, and its fields are found there too.
func TestLocateIsSplit(t *testing.T) {
	w := canonical(t)
	days, most := []int{0, 1, 30}, 1<<31
	if testing.Short() {
		days, most = []int{1}, 3000
	}
	for _, d := range days {
		day := w.Day(d)
		var buf []byte
		var fs [][2][]byte
		sc := &defectScratch{}
		for i := range min(day.Len(), most) {
			var marks eventMarks
			buf = day.appendEvent(buf[:0], i, nil, nil, &marks)
			if plain := day.AppendEvent(nil, i); !bytes.Equal(plain, buf) {
				t.Fatalf("day %d event %d: rendered with marks, it differs", d, i)
			}
			fs = hitKeyset.split(fs, buf)
			want := splitOffsets(fs)
			for k := range fs {
				froms := []int{marks.before(k)}
				if i%16 == 0 { // from the start: slower, and the same search
					froms = append(froms, 0)
				}
				for _, from := range froms {
					key, val, end := hitKeyset.locate(buf, k, from)
					if got := [3]int{key, val, end}; got != want[k] {
						t.Fatalf("day %d event %d field %s from %d: located at %v, split at %v", d, i, hitKeys[k], from, got, want[k])
					}
				}
			}

			m := defect{from: day, source: i, fresh: 1<<52 - 1 - uint64(i), sc: sc}
			obj := m.hitObject()
			fs[0][1] = []byte(strconv.FormatUint(m.fresh, 10))
			if joined := join(fs); !bytes.Equal(obj, joined) {
				t.Fatalf("day %d event %d: the object under a fresh WatchID\n%s\nwant\n%s", d, i, obj, joined)
			}
			want = splitOffsets(fs)
			for k := range fs {
				if key, val, end := m.locate(obj, k); [3]int{key, val, end} != want[k] {
					t.Fatalf("day %d event %d field %s: located at %v in the object, split at %v", d, i, hitKeys[k], [3]int{key, val, end}, want[k])
				}
			}
		}
	}
}

// splitOffsets returns, for each field of an object split into fs, the offsets of its key's
// marker, of its value and of its value's end: the fields lie one after the other, each as
// its marker and its value, after '{' and separated by commas.
func splitOffsets(fs [][2][]byte) [][3]int {
	out := make([][3]int, len(fs))
	at := 1
	for k, f := range fs {
		val := at + len(hitKeyset.markers[k])
		out[k] = [3]int{at, val, val + len(f[1])}
		at = val + len(f[1]) + 1
	}
	return out
}
