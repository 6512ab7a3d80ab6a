package plot

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// scaled is stressRun with every rate (achieved and target) multiplied by f.
func scaled(label string, f float64) Run {
	r := stressRun(label)
	ivs := r.Report.Stress.Intervals
	for i := range ivs {
		ivs[i].PerS *= f
		ivs[i].TargetPerS *= f
	}
	return r
}

// TestSplitAxes: the lines of a run whose largest value is above 0 and below a tenth of its
// chart's largest go to the right-hand axis; a line of zeros, the largest, or one alone stays
// left; the lines of one run stay on one axis.
func TestSplitAxes(t *testing.T) {
	line := func(ys ...float64) series { return series{x: make([]float64, len(ys)), y: ys} }
	of := func(run string, s series) series { s.axis = run; return s }
	for _, tc := range []struct {
		name     string
		ss       []series
		right    string
		lmax, rm float64
	}{
		{"one line", []series{line(1, 2)}, "L", 2, 0},
		{"similar lines", []series{line(20000), line(19000), line(2500)}, "LLL", 20000, 0},
		{"a small one", []series{line(20000), line(100, 90)}, "LR", 20000, 100},
		{"just under a tenth", []series{line(1000), line(99.9)}, "LR", 1000, 99.9},
		{"a tenth exactly", []series{line(1000), line(100)}, "LL", 1000, 0},
		{"zeros stay left", []series{line(5000), line(0, 0)}, "LL", 5000, 0},
		{"two small ones", []series{line(3), line(400), line(7000)}, "RRL", 7000, 400},
		{"a run's p50 stays with its p99", []series{of("a", line(5)), of("a", line(250)), of("b", line(1)), of("b", line(12))}, "LLRR", 250, 12},
	} {
		right, l, r := splitAxes(tc.ss)
		var got strings.Builder
		for _, b := range right {
			got.WriteString(map[bool]string{false: "L", true: "R"}[b])
		}
		if got.String() != tc.right || l != tc.lmax || r != tc.rm {
			t.Errorf("%s: axes %s, left max %v, right max %v; want %s, %v, %v", tc.name, got.String(), l, r, tc.right, tc.lmax, tc.rm)
		}
	}
}

var pointsOf = regexp.MustCompile(`points="([^"]*)"><title>([^<]*)</title>`)

// TestSmallSeriesOwnAxis (issue 31): a 100/s run beside a 20000/s one lay flat along the
// bottom of the shared rate axis. It is drawn against a right-hand axis of its own, which
// the legend names, and spans the plot's height like the large one; runs of the same size
// share the left axis.
func TestSmallSeriesOwnAxis(t *testing.T) {
	page := render(t, Page{Runs: []Run{scaled("big", 20), scaled("small", 0.1)}})
	wellFormed(t, page)
	rate := page[strings.Index(page, "<h2>Rate"):strings.Index(page, "<h2>Latency")]
	for _, want := range []string{"<span class=\"label\">small achieved (right axis)</span>", "<span class=\"label\">small target (right axis)</span>",
		"<span class=\"label\">big achieved</span>", "messages/s, right axis", `class="raxis"`} {
		if !strings.Contains(rate, want) {
			t.Errorf("the rate chart lacks %q", want)
		}
	}
	// The lowest point (largest y) of each line: both reach well below the top and above the
	// bottom of the plot, the small one as much as the big one.
	for _, m := range pointsOf.FindAllStringSubmatch(rate, -1) {
		top := float64(padT + plotH)
		for _, p := range strings.Fields(m[1]) {
			y, _ := strconv.ParseFloat(p[strings.Index(p, ",")+1:], 64)
			top = min(top, y)
		}
		if top > padT+plotH/2 {
			t.Errorf("line %q peaks at y %.1f, in the lower half of the plot: flattened on a shared axis", m[2], top)
		}
	}
	same := render(t, Page{Runs: []Run{scaled("a", 20), scaled("b", 15)}})
	if strings.Contains(same, "right axis") || strings.Contains(same, `class="raxis"`) {
		t.Errorf("runs of similar rates got a right-hand axis")
	}
}

// TestLegendWholeLabels (issue 31): the legend, drawn inside the chart, cut labels at about 30
// characters. It is HTML under the chart: every label whole, however long, in the text that
// wraps; no chart text carries it.
func TestLegendWholeLabels(t *testing.T) {
	long := strings.Repeat("a long label, ", 4) + "end" // 59 characters
	solid := strings.Repeat("x", 300)                   // no space to wrap at
	page := render(t, Page{Runs: []Run{stressRun(long), garbageRun(solid)}})
	wellFormed(t, page)
	for _, want := range []string{`<span class="label">` + long + ` achieved</span>`, `<span class="label">` + long + ` p99</span>`,
		`<span class="label">` + solid + `</span>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the legend lacks %q whole", want)
		}
	}
	if strings.Contains(page, `class="legend">`+long) || strings.Count(page, `<div class="legend">`) != strings.Count(page, "<svg") {
		t.Errorf("a legend is still drawn inside a chart, or a chart has none")
	}
}

// TestNotDrawnIsNeutral (issue 31): a chart without data said "No data" in red italics, which
// read as an error. It says it was not drawn and why, in grey.
func TestNotDrawnIsNeutral(t *testing.T) {
	page := render(t, Page{Runs: []Run{garbageRun("g")}})
	if !strings.Contains(page, `<p class="nodata">Not drawn for these reports: `) ||
		!strings.Contains(page, "<b>Rate: target against achieved</b>") || !strings.Contains(page, "none of the reports has intervals") ||
		strings.Contains(page, "No data") {
		t.Errorf("a chart without data is not said to be not drawn")
	}
	if !strings.Contains(page, ".nodata{color:#555;") || strings.Contains(page, "#a33") {
		t.Errorf("the not-drawn text is not grey")
	}
}
