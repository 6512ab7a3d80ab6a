package topics

import (
	"bytes"
	"testing"

	"github.com/clickgen/clickgen/schema"
)

// TestSlotKeys: a slot gives back exactly the key it was made with, whether it keeps it as a
// number or stores its bytes: no key and an empty key differ, and decimals that are not a
// number's canonical spelling (leading zeros, signs, past 2⁶⁴−1) keep their bytes.
func TestSlotKeys(t *testing.T) {
	keys := [][]byte{nil, {}, []byte("0"), []byte("7"), []byte("00"), []byte("007"), []byte("+1"), []byte("-1"), []byte(" 1"),
		[]byte("1 "), []byte("18446744073709551615"), []byte("18446744073709551616"), []byte("99999999999999999999"),
		[]byte("123456789012345678901"), []byte("12a"), []byte("\x00"), []byte("ключ"), bytes.Repeat([]byte("9"), 300)}
	e := &Expectation{HitPartitions: 2, OrderPartitions: 1}
	for i, k := range keys {
		var s slot
		e.setKey(&s, k)
		e.slots = append(e.slots, s)
		got := e.appendKey(nil, int32(i))
		if (got == nil) != (k == nil) || !bytes.Equal(got, k) {
			t.Errorf("key %q (nil %v): got back %q (nil %v)", k, k == nil, got, got == nil)
		}
		if str, none := e.keyOf(int32(i)); str != string(k) || none != (k == nil) {
			t.Errorf("key %q: keyOf says %q, none %v", k, str, none)
		}
		if p, want := e.partOf(int32(i), hits), schema.PartitionForKey(k, 2); p != want {
			t.Errorf("key %q: partition %d, murmur2 says %d", k, p, want)
		}
	}
	if n := e.slots[3].keyForm(); n != keyNumber {
		t.Errorf("key 7 kept as form %d, want a number", n)
	}
}

// TestSlotIndexCollisions: slots whose hashes are all equal are still told apart by what they
// are matched by, found after the table grows, and replaced in place.
func TestSlotIndexCollisions(t *testing.T) {
	var x slotIndex
	const n = 3000
	vals := make([]uint64, 0, n)
	hash := func(int32) uint64 { return 42 }
	for i := range int32(n) {
		v := uint64(i) * 7
		vals = append(vals, v)
		x.put(42, func(j int32) bool { return vals[j] == v }, i, hash)
	}
	for i := range int32(n) {
		v := uint64(i) * 7
		if j, ok := x.get(42, func(j int32) bool { return vals[j] == v }); !ok || j != i {
			t.Fatalf("value %d: slot %d, %v; want %d", v, j, ok, i)
		}
	}
	if _, ok := x.get(42, func(j int32) bool { return vals[j] == 1 }); ok {
		t.Error("found a value never put")
	}
	vals = append(vals, 7) // slot n, the same value as slot 1: it replaces it
	x.put(42, func(j int32) bool { return vals[j] == 7 }, n, hash)
	if j, ok := x.get(42, func(j int32) bool { return vals[j] == 7 }); !ok || j != n || x.used != n {
		t.Errorf("after replacing: slot %d, %v, %d used; want %d, true, %d", j, ok, x.used, n, n)
	}
}
