package plot

import (
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/measure/report"
)

// storedRun is a report of a run that followed the events table: its series (a stall in the
// middle: keys pending, none seen) and its distribution.
func storedRun(label string) Run {
	r := garbageRun(label)
	r.Report.Store = &report.Store{Table: "ods.event_dist", Topic: "hits", KeyColumn: "WatchID", Sampled: 30, Seen: 28, Unseen: 2,
		LatencyMS:             report.Latency{P50: 1200, P95: 2500, P99: 2900, Max: 3100},
		LatencyDistributionMS: [][2]float64{{0, 400}, {50, 1200}, {90, 2400}, {99, 2900}, {100, 3100}},
		Series: []report.StoreSample{{T: 1, Sampled: 10, Seen: 8, Pending: 2, P50MS: 900, P99MS: 1500, MaxMS: 1500},
			{T: 2, Sampled: 20, Seen: 8, Pending: 12}, {T: 3, Sampled: 30, Seen: 28, Pending: 2, P50MS: 1800, P99MS: 3100, MaxMS: 3100}}}
	return r
}

// TestStoreCharts: a run that followed a table gets its time until queryable over the run,
// its pending keys (the stall shows as keys piling up) and its distribution; a page without
// such a run shows none of them.
func TestStoreCharts(t *testing.T) {
	page := render(t, Page{Runs: []Run{storedRun("s"), garbageRun("g")}})
	wellFormed(t, page)
	for _, want := range []string{"Freshness until queryable", "Time until queryable of the sampled messages of ods.event_dist",
		"Sampled messages not yet readable from ods.event_dist", "s ods.event_dist (max 3100.0 ms)"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %q", want)
		}
	}
	if got, without := strings.Count(page, "<svg"), strings.Count(render(t, Page{Runs: []Run{garbageRun("g")}}), "<svg"); got != without+3 {
		t.Errorf("%d charts with a followed table, %d without: want three more", got, without)
	}
	if strings.Contains(render(t, Page{Runs: []Run{garbageRun("g")}}), "queryable") {
		t.Error("a page of runs that followed no table speaks of it")
	}
}
