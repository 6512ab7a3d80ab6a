// Package world is clickgen's world: one deterministic online shop ("Дом и уют") whose
// model days become hits, whose purchases become orders, and whose every message is known in
// advance, so that an inventory can say what a storage must hold afterwards.
//
// # Determinism contract
//
// Every byte the package produces is a pure function of (seed, world parameters, model day)
// and [Version]. Randomness comes only from substreams derived from (seed, component, day,
// sub) by a fixed mixing function (SplitMix64, in rng.go), where sub names a person of a
// cohort or a cookie of a day, so that no cookie's bytes depend on another's and a segment
// plans only its own cookies ([World.SegmentDay]); ids are a keyed permutation of a row's
// place (ids.go); draws are integer-only and weighted choices use
// integer tables; money is integer kopecks. Nothing here reads a clock, iterates a map where
// order matters, or depends on scheduling: the same day is the same bytes in a sequential or a
// parallel run, alone or inside a longer run, under any GOMAXPROCS, on any architecture.
// Inside a substream the order of draws is part of the contract, so new properties are drawn
// after the existing ones. Changing the garbage or redelivery settings changes no clean
// message; adding day N+1 changes no earlier day.
//
// The package does no I/O: sinks (generator/produce/sink) and pacers (generator/produce/pace) consume what it
// produces.
package world

// Version is the version of the world. Any change that moves a byte of a clean message, a
// snapshot or an inventory count is made together with a bump of Version and new golden files.
const Version = "0.3.1"
