package main

import (
	"os"

	"github.com/clickgen/clickgen/generator/world"
)

// envSet reports whether the environment variable name is set to something. An empty value
// counts as absent: a scheduler template that renders an unset variable as "" must not make
// GENERATOR_DAY= mean day 0 and replay (duplicate) it.
func envSet(name string) bool { return os.Getenv(name) != "" }

// checkDays refuses model days the wire formats cannot carry (see [world.MaxDay]) as a usage
// error: --day 9223372036854775807 used to exit 0 having sent nothing, and from day 29 105 on
// UTCEventTime wrapped to 1970.
func checkDays(verb string, from, n int) error {
	if err := world.CheckDays(from, n); err != nil {
		return usagef(verb, "--day/--days: %v", err)
	}
	return nil
}
