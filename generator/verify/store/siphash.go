package store

import (
	"encoding/binary"
	"math/bits"
)

// SipHash64 is ClickHouse's sipHash64 of b: SipHash-2-4 (Aumasson and Bernstein, 2012) with
// the key 0, the 64-bit result. The raw and error tables are matched by it: the store computes
// sipHash64(raw) of its rows, verify the same of the messages it plans. Every ClickHouse since
// at least 18.16 computes it so (checked against 18.16 and 26.7), and it costs a quarter of
// MD5 on either side. A Source other than ClickHouse must order and identify its rows by it.
func SipHash64(b []byte) uint64 { return sipHash(0, 0, b) }

// sipHash is SipHash-2-4 with the key (k0, k1): two compression rounds per 8-byte word of
// b (little-endian), the last word holding the tail and len(b) mod 256 in its top byte, then
// four finalization rounds.
func sipHash(k0, k1 uint64, b []byte) uint64 {
	v0 := k0 ^ 0x736f6d6570736575
	v1 := k1 ^ 0x646f72616e646f6d
	v2 := k0 ^ 0x6c7967656e657261
	v3 := k1 ^ 0x7465646279746573
	last := uint64(len(b)) << 56
	for ; len(b) >= 8; b = b[8:] {
		m := binary.LittleEndian.Uint64(b)
		v3 ^= m
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
		v0 ^= m
	}
	for i := len(b) - 1; i >= 0; i-- {
		last |= uint64(b[i]) << (8 * uint(i))
	}
	v3 ^= last
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	v0 ^= last
	v2 ^= 0xff
	for range 4 {
		v0, v1, v2, v3 = sipRound(v0, v1, v2, v3)
	}
	return v0 ^ v1 ^ v2 ^ v3
}

func sipRound(v0, v1, v2, v3 uint64) (uint64, uint64, uint64, uint64) {
	v0 += v1
	v1 = bits.RotateLeft64(v1, 13) ^ v0
	v0 = bits.RotateLeft64(v0, 32)
	v2 += v3
	v3 = bits.RotateLeft64(v3, 16) ^ v2
	v0 += v3
	v3 = bits.RotateLeft64(v3, 21) ^ v0
	v2 += v1
	v1 = bits.RotateLeft64(v1, 17) ^ v2
	v2 = bits.RotateLeft64(v2, 32)
	return v0, v1, v2, v3
}
