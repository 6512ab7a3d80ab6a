package reconcile

// PartitionForKey returns the partition Kafka's default partitioner (the Java client,
// librdkafka's murmur2_random, and clickgen's Kafka sink) chooses for a non-nil key in a topic
// of n partitions: (murmur2(key) & 0x7fffffff) mod n, murmur2 being Kafka's
// (org.apache.kafka.common.utils.Utils.murmur2, seed 0x9747b28c). It returns -1 if n < 1 or
// the key is nil (a record without a key is not placed by its key). Pure and identical on
// every platform; the expectation carries this partition for every message.
func PartitionForKey(key []byte, n int32) int32 {
	if n < 1 || key == nil {
		return -1
	}
	return (murmur2(key) & 0x7fffffff) % n
}

// murmur2 is Kafka's murmur2 as its Java client computes it, as a signed 32-bit value. It is a
// copy of the sink's, so this package does not depend on where bytes go; the tests pin both to
// Kafka's own vectors.
func murmur2(data []byte) int32 {
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
