// Package broker is the Kafka side that is not sending: an embedded
// Kafka-compatible broker (franz-go's kfake, in memory) with the stand's
// topics, for runs and tests without a cluster, and reading a topic back from
// any cluster ([Consume], [ConsumeFunc]) for verification. Reading uses no
// consumer group and commits nothing.
package broker
