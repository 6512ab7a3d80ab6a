package plot

import (
	"io"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/measure/report"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// manyUnits is a page of one run of n hit days and an inventory of the same days.
func manyUnits(n int) Page {
	units := make([]report.Unit, n)
	inv := &world.Inventory{GeneratorVersion: world.Version, Days: make([]world.InventoryDay, n)}
	for i := range units {
		units[i] = report.Unit{Kind: "hits", Day: i, Clean: 1000, Sent: 1000, Flushed: true}
		inv.Days[i] = world.InventoryDay{Day: i, Messages: 1000}
	}
	run := garbageRun("a")
	run.Report.Units = units
	return Page{Runs: []Run{run}, Inventory: inv}
}

// allocs is how many allocations drawing p takes (testing.AllocsPerRun: a count, not a time).
func allocs(t *testing.T, p Page) float64 {
	var err error
	n := testing.AllocsPerRun(1, func() { err = p.WriteHTML(io.Discard) })
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPlotLinearInUnits is issue 24 Low 8: the page looked every day up in every report's
// units and the inventory's days, quadratic in units (10 000 took 0.51 s, 30 000 3.2 s,
// 100 000 over 30 s). Four times the units must take about four times the work, not sixteen.
// The work is counted, in allocations, not timed: a ratio of times read 9x on a loaded
// machine. How fast a page of 100 000 days draws is BenchmarkPlotUnits' figure.
func TestPlotLinearInUnits(t *testing.T) {
	small, large := 4000, 16000
	if testing.Short() {
		small, large = 2000, 8000
	}
	a, b := allocs(t, manyUnits(small)), allocs(t, manyUnits(large))
	if ratio := b / a; ratio > 5 {
		t.Errorf("%d units took %.0f allocations, %d took %.0f: %.1f× for 4× the units, want about 4× (16× is quadratic)", small, a, large, b, ratio)
	}
	t.Logf("%d units: %.0f allocations, %d: %.0f (%.2f×)", small, a, large, b, b/a)
}

// BenchmarkPlotUnits draws a page of 100 000 days (with their inventory).
func BenchmarkPlotUnits(b *testing.B) {
	p := manyUnits(100000)
	b.ReportAllocs()
	for b.Loop() {
		if err := p.WriteHTML(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(100000*b.N)/b.Elapsed().Seconds(), "units/s")
}

// TestReportTextEscaped: every text a report file carries (topic names, the stress shape and
// stop reason, garbage classes, latency keys, unit kinds), not only the labels, is text on
// the page, never markup: a report is a file anyone may hand over.
func TestReportTextEscaped(t *testing.T) {
	const evil = `<script>x</script>"'&`
	run := stressRun("a")
	rep := &run.Report
	rep.Topics[evil] = rep.Topics["hits"]
	rep.Stress.Shape, rep.Stress.Stopped = evil, evil
	rep.LatencyMS[evil] = 3
	rep.Follow = map[string]report.FollowGroup{evil: {LatencyDistributionMS: [][2]float64{{50, 1}, {99, 2}}}}
	rep.Stress.Intervals[0].Follow = map[string]report.FollowInterval{evil: {Taken: 1, P50MS: 1, P99MS: 1, MaxMS: 1}}
	rep.Units = []report.Unit{
		{Kind: "hits", Day: 1, Clean: 10, Garbage: map[string]int{evil: 2}, Sent: 12, Flushed: true},
		{Kind: evil, Day: 2, Clean: 5, Sent: 5},
	}
	inv := &world.Inventory{GeneratorVersion: evil, Days: []world.InventoryDay{{Day: 1, Messages: 12, Garbage: map[string]int{evil: 2}}}}
	page := render(t, Page{Runs: []Run{run}, Inventory: inv})
	wellFormed(t, page)
	if strings.Contains(page, "<script") {
		t.Errorf("text from the report became a script element")
	}
	if !strings.Contains(page, "&lt;script&gt;x&lt;/script&gt;") {
		t.Errorf("the report's text is not on the page, escaped")
	}
}
