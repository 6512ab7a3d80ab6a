package main

import (
	"os"
	"slices"
	"strings"

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

// raceUncompressed is args with --compression none under the race detector when they send to
// Kafka (a run's embedded broker or --brokers) and choose no codec. Under the detector every
// lz4 frame written or read takes a 4 MB block buffer from a sync.Pool that drops a quarter of
// what is put back there, and the detector shadows each new one: TestThresholdsHeld alone
// faulted 1.46 million pages (7.3 of its 10 CPU-s in the kernel). The codec is franz-go's and
// lz4's, run on their goroutines the same way whatever it is; the tests' plain run sends lz4.
func raceUncompressed(args []string) []string {
	if !testenv.Race || len(args) == 0 || os.Getenv(sinkFileEnv) != "" {
		return args
	}
	kafka := args[0] == "run"
	for _, a := range args[1:] {
		switch {
		case a == "--file" || strings.HasPrefix(a, "--file=") || a == "--compression" || strings.HasPrefix(a, "--compression="):
			return args
		case a == "--brokers" || strings.HasPrefix(a, "--brokers="):
			kafka = true
		}
	}
	switch args[0] {
	case "run", "batch", "live", "snapshot", "inject":
	default:
		return args
	}
	if !kafka {
		return args
	}
	return slices.Concat(args, []string{"--compression", "none"})
}
