package main

import (
	"slices"

	"github.com/clickgen/clickgen/internal/testenv"
)

// raceScale is the world scale that tests of verbs playing whole days at scale 1 (about
// 48 000 events a day) ask for under the race detector: a tenth of it still takes the verb
// through every goroutine and path it has (the workers, the producer and its batches, the
// reading back), and the detector finds races in interleavings, not in volume. CI runs the
// same tests without -race at full volume.
const raceScale = "0.1"

// underRace returns args followed by more when the tests run under the race detector, and
// args alone otherwise.
func underRace(args []string, more ...string) []string {
	if testenv.Race {
		return slices.Concat(args, more)
	}
	return args
}

// raceScaled is args with --scale raceScale under the race detector.
func raceScaled(args ...string) []string { return underRace(args, "--scale", raceScale) }
