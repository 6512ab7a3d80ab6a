package plot

import (
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
)

// stressRun is a small rate-paced report with three intervals.
func stressRun(label string) Run {
	return Run{Label: label, Report: Report{
		Topics:    map[string]sink.TopicReport{"hits": {Sent: 3000, Acked: 2990, Failed: 10, Partitions: map[int32]int64{0: 1500, 1: 1490}}},
		Rate:      sink.RateReport{TargetPerS: 1000, AchievedPerS: 996.7},
		LatencyMS: map[string]float64{"p50": 1.2, "p99": 8, "max": 12},
		Stress: &play.StressInfo{Shape: "1000/s", Stopped: "duration", Intervals: []play.Interval{
			{AtS: 1, PerS: 990, TargetPerS: 1000, P50MS: 1, P95MS: 3, P99MS: 7, LagMS: 0.2},
			{AtS: 2, PerS: 1001, TargetPerS: 1000, P50MS: 1.1, P95MS: 3.2, P99MS: 8, LagMS: 0.1},
			{AtS: 3, PerS: 999, TargetPerS: 1000, P50MS: 1.3, P95MS: 2.9, P99MS: 6, LagMS: 0.3},
		}},
	}}
}

// garbageRun is a report of one day's hits and a snapshot, with garbage and re-sends.
func garbageRun(label string) Run {
	return Run{Label: label, Report: Report{
		Topics: map[string]sink.TopicReport{
			"hits":   {Sent: 1100, Acked: 1100, Partitions: map[int32]int64{0: 560, 1: 540}},
			"orders": {Sent: 52, Acked: 52, Partitions: map[int32]int64{0: 52}},
		},
		Units: []play.UnitReport{
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

// TestChartsPerReportKind: a page draws one chart per section that has data and says "No
// data" for the rest, so a reader never sees an empty frame.
func TestChartsPerReportKind(t *testing.T) {
	inv := &world.Inventory{GeneratorVersion: "test", Days: []world.InventoryDay{{Day: 1, Messages: 1100, Garbage: map[string]int{"not_an_object": 60, "vanishing": 30}, Redelivered: 10}},
		Snapshots: []world.InventorySnapshot{{Day: 0, Messages: 52, Garbage: map[string]int{"field_invalid": 2}}}}
	for _, tc := range []struct {
		name           string
		page           Page
		charts, nodata int
	}{
		// rate, latency, lag, topics, partitions; no units: days and classes say no data
		{"stress", Page{Runs: []Run{stressRun("a")}}, 5, 2},
		{"two stress runs overlay", Page{Runs: []Run{stressRun("a"), stressRun("b")}}, 5, 2},
		// no intervals: rate, latency and lag say no data
		{"garbage", Page{Runs: []Run{garbageRun("g")}}, 4, 3},
		{"garbage with inventory", Page{Runs: []Run{garbageRun("g")}, Inventory: inv}, 4, 3},
		{"stress and garbage", Page{Runs: []Run{stressRun("s"), garbageRun("g")}, Inventory: inv}, 7, 0},
		{"nothing", Page{}, 0, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := render(t, tc.page)
			wellFormed(t, page)
			if got := strings.Count(page, "<svg"); got != tc.charts {
				t.Errorf("%d charts, want %d", got, tc.charts)
			}
			if got := strings.Count(page, `<p class="nodata">No data:`); got != tc.nodata {
				t.Errorf("%d no-data messages, want %d", got, tc.nodata)
			}
		})
	}
}

// TestZeroIntervalsSaysNoData: a rate-paced report that stopped before its first interval
// line says so in words where its time charts would be.
func TestZeroIntervalsSaysNoData(t *testing.T) {
	r := stressRun("early")
	r.Report.Stress.Intervals = []play.Interval{}
	page := render(t, Page{Runs: []Run{r}})
	if n := strings.Count(page, "No data: none of the reports has intervals"); n != 3 {
		t.Errorf("%d no-interval messages, want 3 (rate, latency, lag):\n%s", n, page)
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
