package main

import (
	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/world"
)

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
