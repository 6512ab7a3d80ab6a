package plot

import (
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/measure/report"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// stressRun is a small rate-paced report with three intervals.
func stressRun(label string) Run {
	return Run{Label: label, Report: Report{
		Topics:    map[string]report.Topic{"hits": {Sent: 3000, Acked: 2990, Failed: 10, Partitions: map[int32]int64{0: 1500, 1: 1490}}},
		Rate:      report.Rate{TargetPerS: 1000, AchievedPerS: 996.7},
		LatencyMS: map[string]float64{"p50": 1.2, "p99": 8, "max": 12},
		Stress: &report.StressInfo{Shape: "1000/s", Stopped: "duration", Intervals: []report.Interval{
			{AtS: 1, PerS: 990, TargetPerS: 1000, P50MS: 1, P95MS: 3, P99MS: 7, LagMS: 0.2},
			{AtS: 2, PerS: 1001, TargetPerS: 1000, P50MS: 1.1, P95MS: 3.2, P99MS: 8, LagMS: 0.1},
			{AtS: 3, PerS: 999, TargetPerS: 1000, P50MS: 1.3, P95MS: 2.9, P99MS: 6, LagMS: 0.3},
		}},
	}}
}

// followedRun is stressRun followed by consumer group "ch": its intervals carry the group's
// latency and lag (nothing taken in the first), and both latencies their distribution.
func followedRun(label string) Run {
	r := stressRun(label)
	r.Report.LatencyDistributionMS = [][2]float64{{0, 0.3}, {50, 1.2}, {90, 3}, {99, 8}, {99.9, 10}, {99.99, 11}, {100, 12}}
	r.Report.Follow = map[string]report.FollowGroup{"ch": {Taken: 2990, LatencyMS: report.Percentiles{P50: 700, P99: 1400, Max: 1500},
		LatencyDistributionMS: [][2]float64{{0, 60}, {50, 700}, {90, 1100}, {99, 1400}, {99.9, 1480}, {100, 1500}}}}
	for i, f := range []report.FollowInterval{{Lag: 990}, {Taken: 1500, P50MS: 650, P99MS: 1300, MaxMS: 1400, Lag: 480}, {Taken: 1490, P50MS: 720, P99MS: 1450, MaxMS: 1500, Lag: 0}} {
		r.Report.Stress.Intervals[i].Follow = map[string]report.FollowInterval{"ch": f}
	}
	return r
}

// garbageRun is a report of one day's hits and a snapshot, with garbage and re-sends.
func garbageRun(label string) Run {
	return Run{Label: label, Report: Report{
		Topics: map[string]report.Topic{
			"hits":   {Sent: 1100, Acked: 1100, Partitions: map[int32]int64{0: 560, 1: 540}},
			"orders": {Sent: 52, Acked: 52, Partitions: map[int32]int64{0: 52}},
		},
		Units: []report.Unit{
			{Kind: "hits", Day: 1, Clean: 1000, Garbage: map[string]int{"not_an_object": 60, "vanishing": 30}, Redelivered: 10, Sent: 1100, Flushed: true},
			{Kind: "snapshot", Day: 0, Clean: 50, Garbage: map[string]int{"field_invalid": 2}, Sent: 52, Flushed: true},
		},
	}}
}

func render(t *testing.T, p Page) string {
	t.Helper()
	var b strings.Builder
	if err := p.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// wellFormed checks that the page parses as XML (every element closed, every entity
// escaped), which is stricter than the HTML parser a browser uses.
func wellFormed(t *testing.T, page string) {
	t.Helper()
	body := strings.TrimPrefix(page, "<!DOCTYPE html>\n")
	body = strings.ReplaceAll(body, `<meta charset="utf-8">`, `<meta charset="utf-8"/>`)
	body = strings.Replace(body, `'unsafe-inline'">`, `'unsafe-inline'"/>`, 1)
	d := xml.NewDecoder(strings.NewReader(body))
	d.Strict = true
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("the page is not well-formed: %v\n%s", err, page)
		}
	}
}

// TestChartsPerReportKind: a page draws one chart per section that has data and says "Not
// drawn", and why, for the rest, so a reader never sees an empty frame.
func TestChartsPerReportKind(t *testing.T) {
	inv := &world.Inventory{GeneratorVersion: "test", Days: []world.InventoryDay{{Day: 1, Messages: 1100, Garbage: map[string]int{"not_an_object": 60, "vanishing": 30}, Redelivered: 10}},
		Snapshots: []world.InventorySnapshot{{Day: 0, Messages: 52, Garbage: map[string]int{"field_invalid": 2}}}}
	for _, tc := range []struct {
		name           string
		page           Page
		charts, nodata int
	}{
		// rate, latency, lag, topics, partitions; no units: days and classes say no data, and
		// without a followed group or a distribution: pipeline latency, consumer lag and both
		// distributions
		{"stress", Page{Runs: []Run{stressRun("a")}}, 5, 6},
		{"two stress runs overlay", Page{Runs: []Run{stressRun("a"), stressRun("b")}}, 5, 6},
		// no intervals: rate, latency and lag say no data, and the four others
		{"garbage", Page{Runs: []Run{garbageRun("g")}}, 4, 7},
		{"garbage with inventory", Page{Runs: []Run{garbageRun("g")}, Inventory: inv}, 4, 7},
		{"stress and garbage", Page{Runs: []Run{stressRun("s"), garbageRun("g")}, Inventory: inv}, 7, 4},
		// followed: pipeline latency, consumer lag and the two distributions drawn too
		{"followed", Page{Runs: []Run{followedRun("f")}}, 9, 2},
		{"followed beside stress", Page{Runs: []Run{followedRun("f"), stressRun("s")}}, 9, 2},
		{"nothing", Page{}, 0, 12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := render(t, tc.page)
			wellFormed(t, page)
			if got := strings.Count(page, "<svg"); got != tc.charts {
				t.Errorf("%d charts, want %d", got, tc.charts)
			}
			// One line names every section not drawn (the verdict among them: no fixture
			// has thresholds), each in bold.
			if got, lines := notDrawn(page), strings.Count(page, `<p class="nodata">`); got != tc.nodata+1 || lines != 1 {
				t.Errorf("%d sections not drawn in %d lines, want %d (and the verdict) in one", got, lines, tc.nodata)
			}
		})
	}
}

// TestZeroIntervalsSaysNoData: a rate-paced report that stopped before its first interval
// line says so in words where its time charts would be.
func TestZeroIntervalsSaysNoData(t *testing.T) {
	r := stressRun("early")
	r.Report.Stress.Intervals = []report.Interval{}
	r.Report.LatencyDistributionMS = nil
	page := render(t, Page{Runs: []Run{r}})
	if want := "<b>Rate: target against achieved</b>, <b>Latency from the intended send time to the acknowledgement</b> and " +
		"<b>Lag behind the schedule</b>: none of the reports has intervals"; !strings.Contains(page, want) {
		t.Errorf("the page does not say, once, that rate, latency and lag need intervals:\n%s", page)
	}
	if strings.Contains(page, "<polyline") {
		t.Errorf("a report without intervals drew a line")
	}
}

// TestLabelsEscaped: a label is text, never markup, wherever it appears (table, legend,
// tooltips, aria labels); Cyrillic passes through as UTF-8.
func TestLabelsEscaped(t *testing.T) {
	evil := `<script>alert("x")</script> & прогон «Б»`
	page := render(t, Page{Title: "Сравнение </title><script>", Runs: []Run{stressRun(evil), garbageRun("plain")}})
	wellFormed(t, page)
	if strings.Contains(page, "<script") {
		t.Errorf("the page contains a script element")
	}
	if !strings.Contains(page, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; прогон «Б»") {
		t.Errorf("the label is not in the page, escaped")
	}
	if !strings.Contains(page, "<title>Сравнение &lt;/title&gt;&lt;script&gt;</title>") || !strings.Contains(page, `<meta charset="utf-8">`) {
		t.Errorf("the title is not escaped UTF-8 text")
	}
}

// TestClassesAgainstInventory: the class chart sums every unit's classes and re-sends, and
// draws the inventory's expectation beside them.
func TestClassesAgainstInventory(t *testing.T) {
	inv := &world.Inventory{GeneratorVersion: "test", Days: []world.InventoryDay{{Day: 1, Messages: 1100, Garbage: map[string]int{"not_an_object": 61}, Redelivered: 10}}}
	page := render(t, Page{Runs: []Run{garbageRun("g")}, Inventory: inv})
	for _, want := range []string{
		"<title>g not_an_object: 60</title>", "<title>inventory (expected) not_an_object: 61</title>",
		"<title>g redelivered: 10</title>", "<title>g field_invalid: 2</title>",
		"<title>g day 1 sent: 1100</title>", "<title>inventory (expected) day 1: 1100</title>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestNiceTicks: the y axis covers the largest value with round steps from zero.
func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		hi   float64
		want string
	}{{20000, "0 5000 10000 15000 20000"}, {7.3, "0 2 4 6 8"}, {0, "0 0.2 0.4 0.6 0.8 1"}, {101, "0 25 50 75 100 125"}} {
		var got []string
		for _, v := range niceTicks(tc.hi, 5) {
			got = append(got, strconv.FormatFloat(v, 'g', 6, 64))
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("niceTicks(%v) = %s, want %s", tc.hi, s, tc.want)
		}
	}
}

// TestPercentileAxis: percentiles sit on HdrHistogram's axis (90 % at 1, 99 % at 2, 99.9 % at
// 3), ticks are named by percentile, and a distribution's points are placed there, its
// maximum named in the legend instead of drawn (p 100 has no place on the axis).
func TestPercentileAxis(t *testing.T) {
	for _, c := range []struct {
		p, x float64
	}{{0, 0}, {90, 1}, {99, 2}, {99.9, 3}, {99.999, 5}} {
		if got := percentileX(c.p); got < c.x-1e-9 || got > c.x+1e-9 {
			t.Errorf("percentileX(%v) = %v, want %v", c.p, got, c.x)
		}
	}
	var labels []string
	for k := range 6 {
		labels = append(labels, percentileLabel(k))
	}
	if got := strings.Join(labels, " "); got != "0% 90% 99% 99.9% 99.99% 99.999%" {
		t.Errorf("tick labels %s", got)
	}
	page := render(t, Page{Runs: []Run{followedRun("f")}})
	// The produce distribution reaches 99.99 %: an axis of 4 decades, 99.9 % at 3/4 of it.
	at := num(padL + 3.0/4*plotW)
	if !strings.Contains(page, `class="tick" text-anchor="middle">99.99%</text>`) || !strings.Contains(page, " "+at+",") {
		t.Errorf("no 99.99%% tick, or no point at x %s (99.9 %%)", at)
	}
	if !strings.Contains(page, "<title>f (max 12.0 ms)</title>") || !strings.Contains(page, "<title>f pipeline (max 1500.0 ms)</title>") || fmtMS(26701.1) != "26.7 s" || !strings.Contains(page, "(max 12.0 ms)") || !strings.Contains(page, "until group ch took") {
		t.Errorf("the distributions do not name their maximum")
	}
}

// TestPipelineSkipsIntervalsWithoutTakes: an interval in which the group took nothing has no
// point on the pipeline latency chart (it is not a latency of zero), but has its lag.
func TestPipelineSkipsIntervalsWithoutTakes(t *testing.T) {
	page := render(t, Page{Runs: []Run{followedRun("f")}})
	points := func(name string) int {
		i := strings.Index(page, "<title>"+name+"</title></polyline>")
		if i < 0 {
			t.Fatalf("no line %q", name)
		}
		start := strings.LastIndex(page[:i], `points="`)
		return len(strings.Fields(page[start+len(`points="`) : strings.Index(page[start+len(`points="`):], `"`)+start+len(`points="`)]))
	}
	if n := points("f pipeline p50"); n != 2 {
		t.Errorf("pipeline p50 has %d points, want 2 (the first interval took nothing)", n)
	}
	if n := points("f consumer lag"); n != 3 {
		t.Errorf("consumer lag has %d points, want 3", n)
	}
}

// TestPipelineTookNothingDuringRun: a followed group that took nothing while the intervals
// were recorded (a consumer that commits only after the run) has no pipeline latency line, and
// the page says why in words, while its lag is drawn.
func TestPipelineTookNothingDuringRun(t *testing.T) {
	r := followedRun("late")
	for i := range r.Report.Stress.Intervals {
		r.Report.Stress.Intervals[i].Follow = map[string]report.FollowInterval{"ch": {Lag: int64(1000 * (i + 1))}}
	}
	page := render(t, Page{Runs: []Run{r}})
	if !strings.Contains(page, "<b>Pipeline latency: from the intended send time until the consumer group took it</b>: the followed groups took nothing during the run") {
		t.Errorf("the pipeline chart does not say the group took nothing during the run")
	}
	if !strings.Contains(page, "<title>late consumer lag</title></polyline>") {
		t.Errorf("no consumer lag line")
	}
}

// TestGroupsNamedWhenSeveral: one followed group name on the page is named in the charts'
// titles, not on every line; with two, every line carries its group.
func TestGroupsNamedWhenSeveral(t *testing.T) {
	one := render(t, Page{Runs: []Run{followedRun("a"), followedRun("b")}})
	if !strings.Contains(one, "<title>b pipeline p99</title>") || !strings.Contains(one, "messages group ch took in each interval") {
		t.Errorf("one group: lines should be named by run, the title by the group")
	}
	r := followedRun("c")
	r.Report.Follow["other"] = r.Report.Follow["ch"]
	for i := range r.Report.Stress.Intervals {
		r.Report.Stress.Intervals[i].Follow["other"] = r.Report.Stress.Intervals[i].Follow["ch"]
	}
	two := render(t, Page{Runs: []Run{r}})
	if !strings.Contains(two, "<title>c ch pipeline p99</title>") || !strings.Contains(two, "<title>c other pipeline p99</title>") || !strings.Contains(two, "messages each group took") {
		t.Errorf("two groups: every line should carry its group")
	}
}

// notDrawn counts the sections the page's not-drawn line names.
func notDrawn(page string) int {
	i := strings.Index(page, `<p class="nodata">Not drawn for these reports: `)
	if i < 0 {
		return 0
	}
	return strings.Count(page[i:i+strings.Index(page[i:], "</p>")], "<b>")
}
