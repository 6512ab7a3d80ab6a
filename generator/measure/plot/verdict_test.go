package plot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/measure/report"
)

// judged is followedRun with a 1 s warm-up and four thresholds: two held, one crossed, one
// with nothing to measure.
func judged(label string) Run {
	r := followedRun(label)
	r.Report.Warmup = &report.Warmup{DurationS: 1, ElapsedS: 1, Acked: 990}
	p99, rate := 8.0, 0.9967
	r.Report.Thresholds = []report.Threshold{
		{Expr: "p99<1s", Figure: "p99", Value: &p99, Unit: "ms", Limit: 1000, Held: true},
		{Expr: "rate>=0.99", Figure: "rate", Value: &rate, Unit: "ratio", Limit: 0.99, Held: true},
		{Expr: "p99<5ms", Figure: "p99", Value: &p99, Unit: "ms", Limit: 5},
		{Expr: "freshness.p99<2s", Group: "ch", Figure: "freshness.p99", Unit: "ms", Limit: 2000, Missing: "the group took nothing"},
	}
	return r
}

// TestVerdictAtTheTop is issue 38 item 5: the plot left out the verdict that the report
// holds. The page opens with it, above the runs' table and every chart: per run how many
// thresholds were crossed, then each held or crossed with the figure it read and its limit.
func TestVerdictAtTheTop(t *testing.T) {
	page := render(t, Page{Runs: []Run{judged("stress"), stressRun("plain")}})
	wellFormed(t, page)
	v, table, chart := strings.Index(page, "<h2>Verdict</h2>"), strings.Index(page, "<table>"), strings.Index(page, "<svg")
	if v < 0 || v > table || v > chart {
		t.Fatalf("the verdict is not at the top (verdict at %d, table at %d, first chart at %d)", v, table, chart)
	}
	for _, want := range []string{
		`stress: <span class="crossed">2 of 4 thresholds CROSSED (exit code 3)</span>`,
		`<li class="held">✓ p99&lt;1s held: p99 = 8.0 ms, limit 1000.0 ms</li>`,
		`<li class="held">✓ rate&gt;=0.99 held: rate = 0.997, limit 0.990</li>`,
		`<li class="crossed">✗ p99&lt;5ms CROSSED: p99 = 8.0 ms, limit 5.0 ms</li>`,
		`<li class="crossed">✗ freshness.p99&lt;2s (group ch) CROSSED: not measured: the group took nothing</li>`,
		"plain: no thresholds",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the verdict lacks %q", want)
		}
	}
	held := judged("calm")
	held.Report.Thresholds = held.Report.Thresholds[:2]
	if page := render(t, Page{Runs: []Run{held}}); !strings.Contains(page, `calm: <span class="held">every threshold held (2)</span>`) {
		t.Errorf("a run whose thresholds all held is not said so")
	}
	if page := render(t, Page{Runs: []Run{stressRun("plain")}}); strings.Contains(page, "<h2>Verdict</h2>") ||
		!strings.Contains(page, "<b>Verdict</b>: no report has thresholds") {
		t.Errorf("a page without thresholds does not fold the verdict into the not-drawn line")
	}
}

// TestWarmupOnEveryTimeChart is issue 38 item 5: the warm-up the report measured apart is
// marked on every chart over time (rate, latency, pipeline latency, consumer lag, lag: the
// five whose x axis is the seconds since pacing started) and on no other, and named in each
// one's legend; two runs with different warm-ups get a band each, named with the run.
func TestWarmupOnEveryTimeChart(t *testing.T) {
	page := render(t, Page{Runs: []Run{judged("a")}})
	wellFormed(t, page)
	charts := strings.Split(page, "<svg")[1:]
	timeCharts, marked := 0, 0
	for _, c := range charts {
		overTime := strings.Contains(c, ">seconds since pacing started</text>")
		band := strings.Contains(c, `<rect class="warmup"`)
		if overTime {
			timeCharts++
		}
		if band {
			marked++
		}
		if overTime != band {
			t.Errorf("a chart over time without the warm-up, or another chart with it:\n%s", c[:min(len(c), 300)])
		}
		if band && !strings.Contains(c, `<span class="label">warm-up, the first 1 s (measured apart)</span>`) {
			t.Errorf("the warm-up is not named in the chart's legend")
		}
	}
	if timeCharts != 5 || marked != 5 {
		t.Errorf("%d charts over time, %d marked; want 5 and 5", timeCharts, marked)
	}
	b := judged("b")
	b.Report.Warmup = &report.Warmup{DurationS: 2, ElapsedS: 2}
	page = render(t, Page{Runs: []Run{judged("a"), b}})
	if !strings.Contains(page, "<title>a warm-up, the first 1 s (measured apart)</title>") || !strings.Contains(page, "<title>b warm-up, the first 2 s (measured apart)</title>") {
		t.Errorf("two runs' warm-ups are not marked each, with the run's label")
	}
}

// TestChromiumVerdictAndWarmup: chromium renders the verdict above the first chart, the
// crossed threshold in red and the held one in green, and a warm-up band in each of the five
// charts over time, with a silent console.
func TestChromiumVerdictAndWarmup(t *testing.T) {
	bin := chromiumPath(t)
	dir := t.TempDir()
	html := writePage(t, Page{Runs: []Run{judged("stress")}}, filepath.Join(dir, "v.html"))
	const csp = `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`
	script := `<pre id="measured"></pre><script>
const out = {};
const v = [...document.querySelectorAll('h2')].find(h => h.textContent === 'Verdict');
out.verdictTop = v ? v.getBoundingClientRect().top : -1;
out.chartTop = document.querySelector('svg').getBoundingClientRect().top;
out.crossed = getComputedStyle(document.querySelector('li.crossed')).color;
out.held = getComputedStyle(document.querySelector('li.held')).color;
out.bands = [...document.querySelectorAll('svg')].filter(s => s.querySelector('rect.warmup') && s.querySelector('rect.warmup').getBBox().width > 10).length;
document.getElementById('measured').textContent = JSON.stringify(out);
</script>`
	m := filepath.Join(dir, "measure.html")
	if err := os.WriteFile(m, []byte(strings.Replace(strings.Replace(html, csp, "", 1), "</body>", script+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, console := chromium(t, bin, m, "--dump-dom", "--window-size=1000,1600")
	if len(console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
	}
	i, j := strings.Index(dom, `<pre id="measured">`), strings.Index(dom, "</pre>")
	if i < 0 || j < i {
		t.Fatalf("no measurement in the rendered DOM")
	}
	got := html2text(dom[i+len(`<pre id="measured">`) : j])
	for _, want := range []string{`"crossed":"rgb(180, 35, 24)"`, `"held":"rgb(26, 127, 55)"`, `"bands":5`} {
		if !strings.Contains(got, want) {
			t.Errorf("rendered: %s; want %s", got, want)
		}
	}
	var top struct{ VerdictTop, ChartTop float64 }
	if err := json.Unmarshal([]byte(got), &top); err != nil || top.VerdictTop < 0 || top.VerdictTop > top.ChartTop {
		t.Errorf("the verdict is not rendered above the first chart: %s (%v)", got, err)
	}
	t.Log(got)
}
