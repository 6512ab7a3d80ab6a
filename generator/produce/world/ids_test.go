package world

import "testing"

// unpermute inverts idKeys.permute round by round: it exists, so permute is a bijection of
// [0, 2^53) and distinct counters get distinct ids.
func (k *idKeys) unpermute(y uint64) uint64 {
	hi, lo := y>>idLoBits, y&idLoMask
	lo ^= splitmix64(k[3]^hi) & idLoMask
	hi ^= splitmix64(k[2]^lo) & idHiMask
	lo ^= splitmix64(k[1]^hi) & idLoMask
	hi ^= splitmix64(k[0]^lo) & idHiMask
	return hi<<idLoBits | lo
}

func TestIDPermutation(t *testing.T) {
	k := newIDKeys(CanonicalSeed, 3, 1)
	s := newStream(1, streamIDs, 0, 99)
	xs := []uint64{0, 1, 2, idLoMask, idLoMask + 1, maxID - 2, maxID - 1}
	for range 100_000 {
		xs = append(xs, s.Below(maxID))
	}
	for _, x := range xs {
		y := k.permute(x)
		if y >= maxID {
			t.Fatalf("permute(%d) = %d, outside [0, 2^53)", x, y)
		}
		if back := k.unpermute(y); back != x {
			t.Fatalf("unpermute(permute(%d)) = %d", x, back)
		}
		if x > 0 {
			if id := k.id(x); id == 0 || id >= maxID {
				t.Fatalf("id(%d) = %d, outside [1, 2^53)", x, id)
			}
		}
	}
	// The value whose image is 0 walks on: find it and check id still answers in range.
	zero := k.unpermute(0)
	if zero != 0 {
		if id := k.id(zero); id == 0 || id == k.permute(zero) {
			t.Errorf("id(%d) = %d: the counter that maps to 0 must walk on to another id", zero, id)
		}
	}
}

// TestSlotsAreDistinct: the rows of the oldest and the newest cohort's largest cookies, every
// visit and every row kind, make distinct counters below 2^53.
func TestSlotsAreDistinct(t *testing.T) {
	k := newIDKeys(CanonicalSeed, 0, 1)
	seen := map[uint64]bool{}
	for _, age := range []int{0, 1, returnTailDays} {
		for _, index := range []int32{0, 1, 1<<31 - 1} {
			slot := cookieSlot(age, index)
			for visit := range 3 {
				for row := range rowDupPurchase + 1 {
					id := k.watchID(slot, visit, row)
					if seen[id] {
						t.Fatalf("age %d, cookie %d, visit %d, row %d: WatchID %d repeats", age, index, visit, row, id)
					}
					seen[id] = true
				}
			}
		}
	}
	if c := (cookieSlot(returnTailDays, 1<<31-1)<<slotVisitBits|2)<<slotRowBits | rowDupPurchase + 1; c >= maxID {
		t.Errorf("the largest counter %d is not below 2^53", c)
	}
}
