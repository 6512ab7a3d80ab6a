// Package sink is where clickgen's bytes go: a Kafka producer (franz-go), and
// a file or stdout writer that writes exactly the bytes Kafka would get. The
// embedded broker and reading topics back live in generator/produce/broker; the
// latency histogram in generator/measure/latency.
//
// Every sink implements [Sink]: Send queues a [Message] asynchronously, Flush
// waits until everything queued is acknowledged, Stats is a snapshot safe to
// take from a progress goroutine at any time, Close stops everything the sink
// started.
//
// The kinds of sink are one table, [Kinds]: for each, how [Settings] choose it,
// which settings apply to it, whether its topics have partitions and consumer
// groups, and how [Settings.Open] opens it. A new kind is a row of it.
//
// Keys are placed exactly as Kafka's Java client and librdkafka's
// murmur2_random partitioner place them: partition = (murmur2(key) &
// 0x7fffffff) mod n, see [schema.PartitionForKey]. The file writer computes the same
// partition for its statistics, so a file run and a Kafka run report the same
// per-partition counts.
//
// Latency is measured from a message's intended send time ([Message.Due], set
// by the pacer) to its acknowledgement, so a sender that falls behind shows up
// in the percentiles (no coordinated omission).
//
// Nothing here exits the process, prints, or reads the environment: secrets
// are passed in by the caller and never appear in errors or String output.
package sink
