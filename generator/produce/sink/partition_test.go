package sink_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/clickgen/clickgen/schema"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Vectors from Kafka's UtilsTest.testMurmur2 (clients/src/test/java/org/
// apache/kafka/common/utils/UtilsTest.java), the signed values Java's
// Utils.murmur2 returns.
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

// kgoPartition is the partition kgo's Kafka-compatible key partitioner
// (the one the Kafka sink configures) chooses.
func kgoPartition(key []byte, n int) int32 {
	p := kgo.StickyKeyPartitioner(nil).ForTopic("t")
	return int32(p.Partition(&kgo.Record{Key: key}, n))
}

// TestMurmur2AgreesWithKgo checks the vectors against kgo's own murmur2: with
// n = MaxInt32 partitions, kgo's partition is the masked hash itself (unless
// it is exactly MaxInt32).
func TestMurmur2AgreesWithKgo(t *testing.T) {
	for _, v := range murmur2Vectors {
		want := v.want & 0x7fffffff
		if got := kgoPartition([]byte(v.in), math.MaxInt32); got != want {
			t.Errorf("kgo masked murmur2(%q) = %d, Kafka vector gives %d", v.in, got, want)
		}
	}
}

func TestPartitionForKeyAgreesWithKgo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 100_000 {
		var key []byte
		if i%2 == 0 {
			// Keys like ours: decimal ClientIDs.
			key = strconv.AppendUint(nil, rng.Uint64(), 10)
		} else {
			key = make([]byte, rng.IntN(40))
			for j := range key {
				key[j] = byte(rng.Uint32())
			}
		}
		n := int32(1 + rng.IntN(64))
		if i%3 == 0 {
			n = math.MaxInt32
		}
		if got, want := schema.PartitionForKey(key, n), kgoPartition(key, int(n)); got != want {
			t.Fatalf("schema.PartitionForKey(%q, %d) = %d, kgo chooses %d", key, n, got, want)
		}
	}
}

func TestPartitionForKeyEdges(t *testing.T) {
	if got := schema.PartitionForKey([]byte("x"), 0); got != -1 {
		t.Errorf("schema.PartitionForKey(x, 0) = %d, want -1", got)
	}
	if got := schema.PartitionForKey([]byte("x"), 1); got != 0 {
		t.Errorf("schema.PartitionForKey(x, 1) = %d, want 0", got)
	}
	// The empty key is a key (hash of zero bytes), not a missing one.
	if got, want := schema.PartitionForKey([]byte{}, 7), kgoPartition([]byte{}, 7); got != want {
		t.Errorf("schema.PartitionForKey(empty, 7) = %d, kgo chooses %d", got, want)
	}
}
