package topics

import "encoding/binary"

// slotIndex finds slots by a 64-bit hash of what they are matched by: an open-addressed table
// of slot numbers (plus one; 0 is an empty cell) probed linearly, at most three quarters full,
// so 5 to 11 bytes a slot where a map[digest]int32 took about 40. What a slot is matched by
// (its digest) is kept by the expectation, per slot; eq compares it.
type slotIndex struct {
	cells []int32 // a power of two of them
	used  int
}

// cell is where the slot that eq accepts is, among those of hash h, or the empty cell where
// it goes; nil when the table is empty.
func (x *slotIndex) cell(h uint64, eq func(i int32) bool) *int32 {
	if len(x.cells) == 0 {
		return nil
	}
	mask := uint64(len(x.cells) - 1)
	for p := h & mask; ; p = (p + 1) & mask {
		if c := &x.cells[p]; *c == 0 || eq(*c-1) {
			return c
		}
	}
}

// get is the slot that eq accepts among those of hash h.
func (x *slotIndex) get(h uint64, eq func(i int32) bool) (int32, bool) {
	c := x.cell(h, eq)
	if c == nil || *c == 0 {
		return -1, false
	}
	return *c - 1, true
}

// put makes slot i the one of hash h, replacing the one eq accepts if any; hashOf is the hash
// of a slot in the table, for growing it.
func (x *slotIndex) put(h uint64, eq func(i int32) bool, i int32, hashOf func(i int32) uint64) {
	if (x.used+1)*4 > len(x.cells)*3 {
		x.grow(hashOf)
	}
	c := x.cell(h, eq)
	if *c == 0 {
		x.used++
	}
	*c = i + 1
}

// grow doubles the table.
func (x *slotIndex) grow(hashOf func(i int32) uint64) {
	old := x.cells
	x.cells = make([]int32, max(1024, 2*len(old)))
	mask := uint64(len(x.cells) - 1)
	for _, c := range old {
		if c == 0 {
			continue
		}
		p := hashOf(c-1) & mask
		for x.cells[p] != 0 {
			p = (p + 1) & mask
		}
		x.cells[p] = c
	}
}

// kd64 is the hash a key-and-value digest is indexed by (its bits are SHA-256's: uniform).
func kd64(d digest) uint64 { return binary.LittleEndian.Uint64(d[:8]) }

// vd64 is the first 64 bits of a value's digest: what a slot keeps of it to be found by value
// alone. Such a match is always a difference (wrong_key, or an unexpected copy of the slot),
// so a collision of 64 bits (2⁻⁶⁴ a pair) could name another difference, never hide one.
func vd64(d digest) uint64 { return binary.LittleEndian.Uint64(d[:8]) }
