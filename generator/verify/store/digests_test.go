package store

import (
	"cmp"
	"crypto/md5"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortByHash: the radix sort orders by hash and keeps the planned order of equal hashes
// (day order: which planned message a store row stands for depends on it), as a stable
// comparison sort does, below and above the size where it switches, with hashes that share
// digits (a pass skipped) and many repeats.
func TestSortByHash(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		n    int
		hash func(i int) uint64
	}{
		{"small", 100, func(int) uint64 { return rng.Uint64() }},
		{"random", 50_000, func(int) uint64 { return rng.Uint64() }},
		{"repeats", 50_000, func(int) uint64 { return rng.Uint64N(300) << 48 }},
		{"low bits only", 3_000, func(int) uint64 { return rng.Uint64N(1 << 16) }},
		{"equal", 1_000, func(int) uint64 { return 42 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries := make([]digestEntry, tc.n)
			for i := range entries {
				// day records the planned order, so stability can be told.
				entries[i] = digestEntry{hash: tc.hash(i), day: int32(i), what: uint16(i % 7)}
			}
			want := slices.Clone(entries)
			slices.SortStableFunc(want, func(a, b digestEntry) int { return cmp.Compare(a.hash, b.hash) })
			got := sortByHash(entries)
			if len(got) != len(want) {
				t.Fatalf("%d entries, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("entry %d = %+v, want %+v (a stable sort by hash)", i, got[i], want[i])
				}
			}
		})
	}
}

var message = func() []byte {
	b := make([]byte, 1130) // a typical hit of the fill world: 460 MB / 405 714
	for i := range b {
		b[i] = byte('a' + i%26)
	}
	return b
}()

var hashSink uint64

// BenchmarkSipHash64 against MD5 (what rows were matched by before): the hash of every planned
// raw row is verify's largest own cost with the raw table.
func BenchmarkSipHash64(b *testing.B) {
	b.SetBytes(int64(len(message)))
	b.ReportAllocs()
	for b.Loop() {
		hashSink += SipHash64(message)
	}
}

func BenchmarkMD5(b *testing.B) {
	b.SetBytes(int64(len(message)))
	b.ReportAllocs()
	for b.Loop() {
		s := md5.Sum(message)
		hashSink += uint64(s[0])
	}
}

// BenchmarkSortByHash sorts the fill world's number of raw rows.
func BenchmarkSortByHash(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	entries := make([]digestEntry, 405_714)
	for i := range entries {
		entries[i] = digestEntry{hash: rng.Uint64(), day: int32(i / 50_000)}
	}
	work := make([]digestEntry, len(entries))
	b.ReportAllocs()
	for b.Loop() {
		copy(work, entries)
		sortByHash(work)
	}
	b.ReportMetric(float64(len(entries))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// TestPlanCursorIsEntriesOrder: a plan whose clean rows are kept as hashes per day walks its
// rows in the order of the same rows all planned as entries and sorted by sortByHash: by hash,
// the rows of one hash in planned order (a day's clean rows, then its other rows; days in
// order), with what, class and day as planned. Hashes drawn from few values, so that clean
// rows, their redeliveries and other rows share them within a day and across days.
func TestPlanCursorIsEntriesOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name   string
		values uint64
	}{{"repeats", 40}, {"distinct", 1 << 62}} {
		t.Run(tc.name, func(t *testing.T) {
			compact, whole := newDigestPlan(nil), newDigestPlan(nil)
			for day := 3; day < 7; day++ {
				compact.unit(day)
				whole.unit(day)
				for range 1 + rng.IntN(3) { // segments
					hashes := make([]uint64, rng.IntN(200))
					for i := range hashes {
						hashes[i] = rng.Uint64N(tc.values)
						whole.add(hashes[i], day, whatClean, "")
					}
					compact.addClean(day, hashes)
				}
				for range rng.IntN(50) {
					h, what := rng.Uint64N(tc.values), []string{whatRedelivered, "garbage/x", "garbage/y"}[rng.IntN(3)]
					compact.add(h, day, what, "")
					whole.add(h, day, what, "")
				}
			}
			compact.sort()
			whole.sort()
			if compact.planned() != len(whole.entries) {
				t.Fatalf("%d rows planned, want %d", compact.planned(), len(whole.entries))
			}
			c := compact.cursor()
			for i, want := range whole.entries {
				got, ok := c.next()
				if !ok || got.hash != want.hash || got.day != want.day || compact.whats[got.what] != whole.whats[want.what] || got.class != want.class {
					t.Fatalf("row %d: %+v (%q), want %+v (%q)", i, got, compact.whats[got.what], want, whole.whats[want.what])
				}
			}
			if e, ok := c.next(); ok {
				t.Errorf("a row past the plan: %+v", e)
			}
		})
	}
}

// BenchmarkPlanCursor walks a raw table's plan of days clean days of 20 000 rows each (and a
// few other rows a day) in hash order, as the merge does: the cost of a row must not grow
// with the days of the range (a year at scale 0.4 is 365 clean days).
func BenchmarkPlanCursor(b *testing.B) {
	for _, days := range []int{8, 365} {
		b.Run(fmt.Sprintf("days=%d", days), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(5, 6))
			p := newDigestPlan(nil)
			for day := range days {
				p.unit(day)
				hashes := make([]uint64, 20_000)
				for i := range hashes {
					hashes[i] = rng.Uint64()
				}
				p.addClean(day, hashes)
				for range 20 {
					p.add(rng.Uint64(), day, whatRedelivered, "")
				}
			}
			p.sort()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				c := p.cursor()
				n := 0
				for _, ok := c.next(); ok; _, ok = c.next() {
					n++
				}
				if n != p.planned() {
					b.Fatalf("walked %d rows of %d", n, p.planned())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(p.planned()), "ns/row")
		})
	}
}
