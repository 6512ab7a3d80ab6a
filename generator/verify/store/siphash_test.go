package store

import "testing"

// TestSipHashVectors: SipHash-2-4 against the reference vectors of its authors (key 00 01 …
// 0f, message 00 01 … of each length; the paper's own example is the 15-byte one), so
// SipHash64, its key-0 case, is SipHash-2-4 itself. (That ClickHouse's sipHash64 is that case
// is checked against the real server in TestSipHash64Server.)
func TestSipHashVectors(t *testing.T) {
	k0, k1 := uint64(0x0706050403020100), uint64(0x0f0e0d0c0b0a0908)
	msg := make([]byte, 16)
	for i := range msg {
		msg[i] = byte(i)
	}
	for _, tc := range []struct {
		n    int
		want uint64
	}{{0, 0x726fdb47dd0e0e31}, {1, 0x74f839c593dc67fd}, {15, 0xa129ca6149be45e5}} {
		if got := sipHash(k0, k1, msg[:tc.n]); got != tc.want {
			t.Errorf("SipHash-2-4 of %d bytes = %#x, want %#x", tc.n, got, tc.want)
		}
	}
}
