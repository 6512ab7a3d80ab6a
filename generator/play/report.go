package play

import (
	"maps"

	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
)

// RunReport is the report document of a run that is not rate-paced: the sink's report (its
// keys unchanged) and what was sent of each unit, so a reader (clickgen plot) can set the
// messages per day and per class beside the inventory's expectation.
type RunReport struct {
	sink.Report
	Units []UnitReport `json:"units"`
}

// UnitReport is what was sent of one unit, in the order the units were done. A unit cut
// short by a stop condition is not listed.
type UnitReport struct {
	Kind  string `json:"kind"` // "hits" or "snapshot"
	Day   int    `json:"day"`  // the model day (for a snapshot: the day it is the snapshot of)
	Date  string `json:"date"`
	Clean int    `json:"clean"` // clean messages: events or order rows
	// Garbage counts the malformed messages by class; never null.
	Garbage     map[string]int `json:"garbage"`
	Redelivered int            `json:"redelivered"` // byte-identical re-sends
	Sent        int64          `json:"sent"`        // messages handed to the sink
	Flushed     bool           `json:"flushed"`     // acknowledged whole before the next unit
}

// NewUnitReport is the report line of r.
func NewUnitReport(r UnitResult) UnitReport {
	kind := "hits"
	if r.Kind == SnapshotUnit {
		kind = "snapshot"
	}
	g := maps.Clone(r.Garbage)
	if g == nil {
		g = map[string]int{}
	}
	return UnitReport{Kind: kind, Day: r.Day, Date: world.DayDate(r.Day).String(), Clean: r.Clean, Garbage: g,
		Redelivered: r.Redelivered(), Sent: r.Sent, Flushed: r.Flushed}
}
