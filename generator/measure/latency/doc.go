// Package latency holds a run's latencies: a log-linear [Histogram] with a lock-free
// [Recorder] for delivery callbacks, each latency measured from a message's intended send
// time. The sink records into it, the measure package turns it into percentiles.
package latency
