package world

import (
	"math/bits"
	"math/rand/v2"
)

// component names a substream of a model day (or of the cohort plan). Its value is part of the
// world: renumbering a component changes every byte drawn from it.
type component uint64

// The substreams of product.md decision 3. A component's value is mixed into the seed of its
// stream; values are fixed forever.
const (
	streamComposition component = 1 // cohorts of day d (d < 0: prehistory)
	streamTraffic     component = 2 // visits, pages, timing, visit and pageview ids
	streamCommerce    component = 3 // baskets, add_to_cart, purchases and their ids
	streamOrders      component = 4 // order fate, delivery, lateness (per birth day)
	streamBeacons     component = 5 // lost and duplicated purchase events
	streamDefects     component = 6 // garbage messages
	streamRedelivery  component = 7 // byte-identical re-sends
	streamIDs         component = 8 // the keys of a day's VisitID and WatchID permutations
)

// splitmix64 is one step of SplitMix64's output function: a bijective 64-bit mixer.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// stream is one deterministic substream of random integers: PCG-DXSM seeded from
// (seed, component, day, sub) by SplitMix64 mixing. A stream is not safe for concurrent use;
// every goroutine derives its own.
type stream struct {
	pcg rand.PCG
}

// newStream returns the substream of component c for day d of the world with the given seed.
// sub separates further independent streams inside a component (0 for the main one).
func newStream(seed uint64, c component, day int, sub uint64) *stream {
	s := prefixOf(seed, c, day).stream(sub)
	return &s
}

// streamPrefix is the part of a substream's seed that (seed, component, day) decide: deriving
// the many per-person or per-cookie streams of one component and day from it costs one mixing
// step each, and no allocation.
type streamPrefix uint64

func prefixOf(seed uint64, c component, day int) streamPrefix {
	h := splitmix64(seed ^ 0x636c69636b67656e) // "clickgen"
	h = splitmix64(h ^ uint64(c))
	return streamPrefix(splitmix64(h ^ uint64(int64(day))))
}

// stream returns substream sub of the prefix: the stream newStream(seed, c, day, sub) points to.
func (p streamPrefix) stream(sub uint64) stream {
	h := splitmix64(uint64(p) ^ sub)
	var s stream
	s.pcg.Seed(h, splitmix64(h^0xda3e39cb94b95bdb))
	return s
}

// Uint64 returns 64 uniformly random bits.
func (s *stream) Uint64() uint64 { return s.pcg.Uint64() }

// Below returns a uniform integer in [0, n); n must be > 0. It uses Lemire's multiply-and-
// reject method, so the result depends only on the stream, never on the platform.
func (s *stream) Below(n uint64) uint64 {
	hi, lo := bits.Mul64(s.pcg.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(s.pcg.Uint64(), n)
		}
	}
	return hi
}

// Range returns a uniform integer in [a, b) (U[a,b) in world.md); b must be > a.
func (s *stream) Range(a, b int) int { return a + int(s.Below(uint64(b-a))) }

// Int returns a uniform integer in [0, n).
func (s *stream) Int(n int) int { return int(s.Below(uint64(n))) }

// Percent draws U[0,100) and reports whether it is below p.
func (s *stream) Percent(p int) bool { return s.Int(100) < p }

// table is an integer-weighted choice: cumulative bounds of the weights, as world.md §6.4 defines
// pick. The zero table is invalid; build one with newTable.
type table struct {
	cum   []uint32
	total uint32
	dense []uint8 // dense[r] is the choice for draw r, when Total and Len are small enough
}

// denseLimit bounds the draw range for which a table keeps a direct lookup array.
const denseLimit = 1 << 13

// newTable builds the pick table of weights; all weights must be ≥ 0 and their sum > 0.
func newTable(weights ...int) table {
	t := table{cum: make([]uint32, len(weights))}
	var sum uint32
	for i, w := range weights {
		if w < 0 {
			panic("generator: negative weight")
		}
		sum += uint32(w)
		t.cum[i] = sum
	}
	if sum == 0 {
		panic("generator: weights sum to zero")
	}
	t.total = sum
	if sum <= denseLimit && len(weights) <= 256 {
		t.dense = make([]uint8, sum)
		for r := range t.dense {
			t.dense[r] = uint8(t.search(uint32(r)))
		}
	}
	return t
}

// Len is the number of choices.
func (t *table) Len() int { return len(t.cum) }

// Total is the sum of the weights.
func (t *table) Total() int { return int(t.total) }

// Index returns the choice for draw r in [0, Total): the first index whose running sum of
// weights is greater than r.
func (t *table) Index(r uint32) int {
	if t.dense != nil {
		return int(t.dense[r])
	}
	return t.search(r)
}

func (t *table) search(r uint32) int {
	cum := t.cum
	if len(cum) <= 16 {
		for i, c := range cum {
			if c > r {
				return i
			}
		}
		return len(cum) - 1
	}
	lo, hi := 0, len(cum)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if cum[mid] > r {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// Pick draws U[0, Total) from s and returns the chosen index.
func (s *stream) Pick(t *table) int { return t.Index(uint32(s.Below(uint64(t.total)))) }

// floorMod is the mathematical modulo (−1 mod 7 = 6); Go's % truncates toward zero.
func floorMod(a, n int) int {
	m := a % n
	if m < 0 {
		m += n
	}
	return m
}
