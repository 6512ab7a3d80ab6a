package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/clickgen/clickgen/generator/play"
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

// checkReportPath checks that report (if set) can be written and is not data (see
// play.CheckReportPath), as a usage error.
func checkReportPath(verb, report, data string) error {
	if report == "" {
		return nil
	}
	if err := play.CheckReportPath(report, data); err != nil {
		return usagef(verb, "--report %s: %v", report, err)
	}
	return nil
}

// checkTopicKind refuses to send one kind into the other kind's topic: batch --topic orders
// put hits into the orders topic, where the stand's intake reads every one as garbage.
func checkTopicKind(verb, topic, kind string) error {
	for _, other := range []string{world.KindHits, world.KindOrders} {
		if other != kind && topic == other {
			return usagef(verb, "--topic %s: %s sends %s, and topic %s is for %s", topic, verb, kind, topic, other)
		}
	}
	return nil
}

// checkMemory refuses, before anything is built or sent, a run whose estimated memory
// ([world.MemoryNeeded]) does not fit under --max-memory, the cgroup's limit or the system's
// available memory (see play.CheckMemory). --scale 1000 used to draw 24 GB and set off the OOM
// killer; under a ulimit it died with "fatal error: out of memory" and exit 2.
func checkMemory(verb string, scale float64, g world.Garbage, max play.Bytes) error {
	var me *play.MemoryError
	if err := play.CheckMemory(world.MemoryNeeded(scale, g), max); errors.As(err, &me) {
		if me.Source == "the explicit limit" {
			me.Source = "--max-memory"
		}
		note := ""
		if g.Rate != 0 || g.Redeliver != 0 {
			note = fmt.Sprintf(" with --garbage %v --redeliver %v", g.Rate, g.Redeliver)
		}
		return usagef(verb, "--scale %v%s %v: lower --scale or --garbage, or raise --max-memory", scale, note, err)
	}
	return nil
}
