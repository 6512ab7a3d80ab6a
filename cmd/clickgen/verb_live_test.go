package main

import (
	"path/filepath"
	"testing"
)

// TestSpeedTooSmallRefused is issue 24 item 6: live --speed 1e-9 exited 0 after 1 of 52 100
// events saying "stopped at the duration limit", run fill --speed 1e-9 after 1 hit of 405 714.
// A speed whose day (or run) does not fit a time.Duration is refused before anything is sent.
func TestSpeedTooSmallRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "h.jsonl")
	for _, speed := range []string{"1e-9", "1e-15", "1e-300", "5e-324"} {
		line := refused(t, file, "want a speed of at least 9.4e-06", "live", "--day", "0", "--speed", speed, "--file", file)
		if speed == "1e-9" {
			t.Logf("live: %s", line)
		}
	}
	t.Setenv("GENERATOR_SPEED", "1e-9")
	refused(t, file, "want a speed of at least 9.4e-06", "live", "--day", "0", "--file", file)
	t.Setenv("GENERATOR_SPEED", "")
	t.Logf("run fill: %s", refused(t, "", "want a speed of at least", "run", "fill", "--speed", "1e-9"))
	// Eight days at 1e-5 are 2190 years: the first day fits, the run does not.
	t.Logf("run fill: %s", refused(t, "", "192h0m0s of model time would take", "run", "fill", "--speed", "1e-5"))
}
