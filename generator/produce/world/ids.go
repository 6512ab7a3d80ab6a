package world

// Counter-based ids (world 0.3.0, world.md §3.9 as amended): a day's VisitIDs and WatchIDs
// are not drawn in sequence from one stream but computed from where a row sits in the world,
// through a keyed permutation of [1, 2^53). Ids of different rows differ because their slots
// differ, so every cookie's ids can be computed without the rest of the day: a segment makes
// only its own cookies' ids, and two processes agree on every id.

// A slot names one row of a day by its cookie and place: the cookie's cohort age (day −
// cohort day, 0…90), its index in the cohort, the visit's ordinal on the day (0…2) and the row
// within the visit (see the row constants). Packed, it stays below 2^53.
const (
	slotRowBits   = 5
	slotVisitBits = 2
	slotIndexBits = 39 // cookies per cohort: 4.5 M at scale 1000
)

// Rows of a visit: its pages first, then its basket's add_to_cart events, its purchase and the
// duplicate copies of its confirmation and purchase. A visit has at most 14 pages and so at
// most 14 basket positions.
const (
	rowPage        = 0
	rowAddToCart   = 14
	rowPurchase    = 28
	rowDupPageview = 29
	rowDupPurchase = 30
)

// cookieSlot packs a cookie's cohort age and index.
func cookieSlot(age int, index int32) uint64 { return uint64(age)<<slotIndexBits | uint64(index) }

// idKeys is a keyed permutation of [1, 2^53): a four-round Feistel network over 27 + 26 bits,
// walked again on the one value (0) outside the range.
type idKeys [4]uint64

// newIDKeys draws the keys of day d's permutation for ids of kind sub (0 VisitID, 1 WatchID)
// from the IDS stream.
func newIDKeys(seed uint64, d int, sub uint64) idKeys {
	s := newStream(seed, streamIDs, d, sub)
	return idKeys{s.Uint64(), s.Uint64(), s.Uint64(), s.Uint64()}
}

const (
	idHiBits = 27
	idLoBits = 26
	idHiMask = 1<<idHiBits - 1
	idLoMask = 1<<idLoBits - 1
)

// id maps counter c (1 ≤ c < 2^53) to an id in [1, 2^53); distinct counters give distinct ids.
func (k *idKeys) id(c uint64) uint64 {
	for {
		c = k.permute(c)
		if c != 0 {
			return c
		}
	}
}

// permute is a bijection of [0, 2^53): each round xors one half with a keyed hash of the other.
func (k *idKeys) permute(x uint64) uint64 {
	hi, lo := x>>idLoBits, x&idLoMask
	hi ^= splitmix64(k[0]^lo) & idHiMask
	lo ^= splitmix64(k[1]^hi) & idLoMask
	hi ^= splitmix64(k[2]^lo) & idHiMask
	lo ^= splitmix64(k[3]^hi) & idLoMask
	return hi<<idLoBits | lo
}

// visitID is the VisitID of visit k of the cookie in slot.
func (k *idKeys) visitID(slot uint64, visit int) uint64 {
	return k.id(slot<<slotVisitBits | uint64(visit) + 1)
}

// watchID is the WatchID of row of visit k of the cookie in slot.
func (k *idKeys) watchID(slot uint64, visit, row int) uint64 {
	return k.id((slot<<slotVisitBits|uint64(visit))<<slotRowBits | uint64(row) + 1)
}
