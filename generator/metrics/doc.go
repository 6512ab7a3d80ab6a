// Package metrics measures a run: a log-linear latency [Histogram] with a
// lock-free [Recorder] for delivery callbacks, measured from each message's
// intended send time.
package metrics
