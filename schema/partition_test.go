package schema

import "testing"

// Vectors from Kafka's UtilsTest.testMurmur2 (clients/src/test/java/org/apache/kafka/common/
// utils/UtilsTest.java): the signed values Java's Utils.murmur2 returns. generator/produce/sink checks
// the same function against franz-go's partitioner on random keys.
var murmur2Vectors = []struct {
	in   string
	want int32
}{
	{"21", -973932308},
	{"foobar", -790332482},
	{"a-little-bit-long-string", -985981536},
	{"a-little-bit-longer-string", -1486304829},
	{"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971},
	{"abc", 479470107},
}

func TestMurmur2KafkaVectors(t *testing.T) {
	for _, v := range murmur2Vectors {
		if got := Murmur2([]byte(v.in)); got != v.want {
			t.Errorf("Murmur2(%q) = %d, want %d", v.in, got, v.want)
		}
	}
	if p := PartitionForKey([]byte("foobar"), 2); p != (-790332482&0x7fffffff)%2 {
		t.Errorf("PartitionForKey(foobar, 2) = %d", p)
	}
	if PartitionForKey(nil, 2) != -1 || PartitionForKey([]byte("x"), 0) != -1 {
		t.Error("PartitionForKey places a nil key or a topic without partitions")
	}
	if PartitionForKey([]byte{}, 1) != 0 {
		t.Error("an empty key is not placed")
	}
}
