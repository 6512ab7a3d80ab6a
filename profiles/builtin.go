package profiles

import "github.com/clickgen/clickgen/generator/produce/world"

// The stand's verbs as profiles. `clickgen batch`, `live` and `snapshot` play these, their
// flags and the stand's environment variables applied as [Overrides], so every verb goes
// the one road: overrides → [Profile.Apply] → [Profile.NewWorld] → [Profile.Plan]. They are
// Go values, not embedded files: `clickgen profiles list` does not offer them, and `clickgen
// run` cannot play them by name.
//
// Each is complete: every field a default would fill is set, so a verb plays it without
// [Profile.WithDefaults]; a flag not given leaves the field as it is here, as `run` leaves
// its profile's.

// Batch is `clickgen batch`: model days played into the hits topic back to back, unpaced.
func Batch() Profile {
	return Profile{Name: "batch", World: World{Seed: world.CanonicalSeed, Scale: 1},
		Play: Play{Days: 1, Send: SendHits}, Pacing: Pacing{Mode: PaceNone}}
}

// Live is `clickgen live`: one model day of hits replayed by model time at DefaultSpeed.
func Live() Profile {
	p := Batch()
	p.Name, p.Pacing = "live", Pacing{Mode: PaceReplay, Speed: DefaultSpeed}
	return p
}

// Snapshot is `clickgen snapshot`: the run days' order snapshots into the orders topic,
// unpaced.
func Snapshot() Profile {
	p := Batch()
	p.Name, p.Play.Send = "snapshot", SendSnapshots
	return p
}
