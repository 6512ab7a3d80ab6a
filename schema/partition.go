package schema

// Decision 4 of the contract: hits are keyed by the decimal ClientID and orders by order_id,
// and placed in partitions the way Kafka's default partitioner places keys (the Java client,
// librdkafka's murmur2_random, franz-go's StickyKeyPartitioner). The sink, the reconciliation
// and the tests all place keys with this one function.

// Murmur2 returns Kafka's murmur2 hash of data as Kafka's Java client computes it
// (org.apache.kafka.common.utils.Utils.murmur2, seed 0x9747b28c), as a signed 32-bit value
// like the Java function. It is pure and identical on every platform.
func Murmur2(data []byte) int32 {
	const (
		seed uint32 = 0x9747b28c
		m    uint32 = 0x5bd1e995
		r           = 24
	)
	h := seed ^ uint32(len(data))
	for len(data) >= 4 {
		k := uint32(data[0]) | uint32(data[1])<<8 | uint32(data[2])<<16 | uint32(data[3])<<24
		data = data[4:]
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	// The tail is mixed in the order of Java's fall-through switch.
	switch len(data) {
	case 3:
		h ^= uint32(data[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// PartitionForKey returns the partition Kafka's default partitioner chooses for key in a
// topic of n partitions: (murmur2(key) & 0x7fffffff) mod n. It returns -1 when n < 1 or the
// key is nil (a record without a key is not placed by its key). An empty non-nil key is
// hashed like any other.
func PartitionForKey(key []byte, n int32) int32 {
	if n < 1 || key == nil {
		return -1
	}
	return (Murmur2(key) & 0x7fffffff) % n
}
