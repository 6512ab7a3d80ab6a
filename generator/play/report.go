package play

import (
	"maps"

	"github.com/clickgen/clickgen/generator/report"
	"github.com/clickgen/clickgen/generator/world"
)

// NewUnitReport is the report file's line of r (report.Unit).
func NewUnitReport(r UnitResult) report.Unit {
	kind := "hits"
	if r.Kind == SnapshotUnit {
		kind = "snapshot"
	}
	g := maps.Clone(r.Garbage)
	if g == nil {
		g = map[string]int{}
	}
	return report.Unit{Kind: kind, Day: r.Day, Date: world.DayDate(r.Day).String(), Clean: r.Clean, Garbage: g,
		Redelivered: r.Redelivered(), Sent: r.Sent, Flushed: r.Flushed}
}
