// Package metrics measures a run: a log-linear latency [Histogram] with a
// lock-free [Recorder] for delivery callbacks, measured from each message's
// intended send time. [ProfileCPU] profiles a whole process, for the Go toolchain's
// profile-guided optimisation of clickgen.
package metrics
