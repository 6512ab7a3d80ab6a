// Package plot turns clickgen run reports into one self-contained HTML page of inline SVG
// charts, under the verdict of the runs' thresholds: rate target against achieved, latency percentiles and lag over time, pipeline
// latency and consumer lag of followed groups over time, the produce and pipeline latency
// distributions (HdrHistogram's percentile axis), acknowledged
// against sent per topic, the partitions' balance and, for runs of whole days, the messages
// per day and per garbage class beside the inventory's expectation; a run's warm-up is marked
// on every chart over time. Several reports overlay,
// each in its own colour and labelled, so two runs compare on one page.
//
// The page fetches nothing (a Content-Security-Policy forbids it) and runs no script: it is
// the same bytes for the same reports and options, whatever the machine.
package plot

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/clickgen/clickgen/generator/measure/report"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// Report is what the page reads of a report written by --report (generator/measure/report holds the
// schema; this is the reader's view of either document): the keys every run has (topics,
// rate, latency_ms, interrupted), the stress section of a rate-paced run and the units of a
// run that reports them. latency_ms is read as a map because a stress report extends it.
// Unknown keys are ignored, so older and newer reports both read.
type Report struct {
	Topics    map[string]report.Topic `json:"topics"`
	Rate      report.Rate             `json:"rate"`
	LatencyMS map[string]float64      `json:"latency_ms"`
	// LatencyDistributionMS is a stress report's produce latency by percentile: [p, ms].
	LatencyDistributionMS [][2]float64 `json:"latency_distribution_ms"`
	Interrupted           bool         `json:"interrupted"`
	// Follow is, per consumer group followed with --follow-group, its pipeline latency.
	Follow map[string]report.FollowGroup `json:"follow"`
	// Store is freshness until queryable (--follow-clickhouse); nil without it.
	Store *report.Store `json:"store"`
	// Stress is nil for a run that was not rate-paced.
	Stress *report.StressInfo `json:"stress"`
	Units  []report.Unit      `json:"units"`
	// Warmup is the run's warm-up, measured apart (--warmup); nil without one.
	Warmup *report.Warmup `json:"warmup"`
	// Thresholds are the run's verdicts (--threshold), in the order given.
	Thresholds []report.Threshold `json:"thresholds"`
}

// ReadReport decodes one report.
func ReadReport(r io.Reader) (Report, error) {
	var rep Report
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return rep, fmt.Errorf("not a clickgen report: %w", err)
	}
	if rep.Topics == nil {
		return rep, fmt.Errorf("not a clickgen report: no \"topics\" key")
	}
	return rep, nil
}

// ReadInventory decodes the output of `clickgen inventory`.
func ReadInventory(r io.Reader) (*world.Inventory, error) {
	var inv world.Inventory
	if err := json.NewDecoder(r).Decode(&inv); err != nil {
		return nil, fmt.Errorf("not a clickgen inventory: %w", err)
	}
	if inv.GeneratorVersion == "" {
		return nil, fmt.Errorf("not a clickgen inventory: no \"generator_version\" key")
	}
	return &inv, nil
}

// Run is one report on the page and the label its lines and bars carry.
type Run struct {
	Label  string
	Report Report
}

// Page is what one HTML page shows. Its zero Title is "clickgen runs".
type Page struct {
	Title string
	Runs  []Run
	// Inventory, if set, is the expectation the messages per day and per class are drawn
	// against (the output of `clickgen inventory` with the run's flags).
	Inventory *world.Inventory
}
