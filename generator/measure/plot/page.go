package plot

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/clickgen/clickgen/generator/measure/report"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// Dash patterns of the latency percentiles, the same for every run.
var percentileDash = []struct {
	name, key, dash string
}{{"p50", "p50", ""}, {"p95", "p95", "7 4"}, {"p99", "p99", "2 3"}}

const style = `body{font-family:"DejaVu Sans",Arial,sans-serif;margin:24px;color:#222;background:#fff}
h1{font-size:22px}h2{font-size:17px;margin:28px 0 6px}
table{border-collapse:collapse;font-size:13px;max-width:960px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
td:first-child,th:first-child{text-align:left;overflow-wrap:anywhere}
.swatch{display:inline-block;width:12px;height:12px;margin-right:6px;vertical-align:middle}
.chart text{font-size:12px;fill:#333}.chart .title{font-size:14px;font-weight:bold}
.chart .grid{stroke:#e4e4e4}.chart .raxis{stroke:#999}.chart .value{font-size:10px;fill:#555}
.legend{display:flex;flex-wrap:wrap;gap:3px 18px;max-width:890px;margin:0 0 8px 70px;font-size:12px;color:#333}
.legend .key{display:inline-flex;align-items:center;max-width:100%;overflow-wrap:anywhere}
.legend .line{flex:none;width:22px;margin-right:6px}.legend .box{flex:none;width:14px;height:10px;margin-right:6px}
.nodata{color:#555;background:#f4f4f4;border-left:3px solid #ccc;padding:6px 10px;max-width:870px}
.verdict{font-size:14px;max-width:900px}.verdict ul{margin:2px 0 6px}.held{color:#1a7f37}.crossed{color:#b42318;font-weight:bold}
.chart .warmup{fill:#000;fill-opacity:.06}.chart .warmupline{stroke:#777;stroke-dasharray:4 3}`

// WriteHTML writes the page: the verdict of the runs' thresholds, held or crossed with the
// figure, at the top; a table of the runs; one grey line naming the charts these reports
// cannot draw and why (a stress run has no garbage classes, a run without --follow-group no
// consumer lag: one line, not a note per chart); then the charts, each followed by its legend
// (whole labels, wrapped) and what it shows, the warm-up of a run marked on every chart over
// time.
func (p Page) WriteHTML(w io.Writer) error {
	title := p.Title
	if title == "" {
		title = "clickgen runs"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>%s</title><style>%s</style></head>
<body>
<h1>%s</h1>
`, esc(title), style, esc(title))
	var notDrawn []skipped
	if why := p.verdict(&b); why != "" {
		notDrawn = append(notDrawn, skipped{"Verdict", why})
	}
	if why := p.runsTable(&b); why != "" {
		notDrawn = append(notDrawn, skipped{"Runs", why})
	}
	var charts strings.Builder
	type section struct {
		title string
		draw  func(*strings.Builder) string
	}
	var store []section
	if p.storeTitle() != "" { // only pages of runs that followed a table (--follow-clickhouse)
		store = []section{
			{"Freshness until queryable: from the intended send time until the row could be read", p.storeChart},
			{"Freshness until queryable, distribution", p.storeDistributionChart},
		}
	}
	for _, s := range slices.Concat([]section{
		{"Rate: target against achieved", p.rateChart},
		{"Latency from the intended send time to the acknowledgement", p.latencyChart},
		{"Pipeline latency: from the intended send time until the consumer group took it", p.pipelineChart},
		{"Consumer lag", p.consumerLagChart},
		{"Lag behind the schedule", p.lagChart},
		{"Produce latency distribution", p.produceDistributionChart},
		{"Pipeline latency distribution", p.pipelineDistributionChart},
	}, store, []section{
		{"Acknowledged against sent, per topic", p.topicsChart},
		{"Partitions' balance", p.partitionsChart},
		{"Messages per day", p.daysChart},
		{"Messages per garbage class", p.classesChart},
	}) {
		var sb strings.Builder
		if why := s.draw(&sb); why != "" {
			notDrawn = append(notDrawn, skipped{s.title, why})
			continue
		}
		fmt.Fprintf(&charts, "<h2>%s</h2>\n%s", esc(s.title), sb.String())
	}
	foldNotDrawn(&b, notDrawn)
	b.WriteString(charts.String())
	b.WriteString("</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// skipped is a section of the page these reports cannot draw, and why.
type skipped struct{ title, why string }

// foldNotDrawn writes one grey line naming the sections not drawn, those with the same
// reason together: "Not drawn for these reports: Rate…, Latency… and Lag…: none of the
// reports has intervals: …".
func foldNotDrawn(b *strings.Builder, ss []skipped) {
	if len(ss) == 0 {
		return
	}
	var whys []string
	titles := map[string][]string{}
	for _, s := range ss {
		if _, ok := titles[s.why]; !ok {
			whys = append(whys, s.why)
		}
		titles[s.why] = append(titles[s.why], "<b>"+esc(s.title)+"</b>")
	}
	var parts []string
	for _, why := range whys {
		t := titles[why]
		names := t[0]
		if len(t) > 1 {
			names = strings.Join(t[:len(t)-1], ", ") + " and " + t[len(t)-1]
		}
		parts = append(parts, names+": "+esc(why))
	}
	fmt.Fprintf(b, "<p class=\"nodata\">Not drawn for these reports: %s</p>\n", strings.Join(parts, " "))
}

// verdict writes the runs' thresholds (--threshold), each held or crossed with the figure it
// read and its limit, a run's line first saying how many held; it returns why there is no
// verdict when no report has thresholds.
func (p Page) verdict(b *strings.Builder) (notDrawn string) {
	some := false
	for _, r := range p.Runs {
		some = some || len(r.Report.Thresholds) > 0
	}
	if !some {
		return "no report has thresholds: --threshold judges a run (run, batch, live) and its report keeps the verdict."
	}
	b.WriteString("<h2>Verdict</h2>\n<ul class=\"verdict\">\n")
	for i, r := range p.Runs {
		th := r.Report.Thresholds
		if len(th) == 0 {
			fmt.Fprintf(b, "<li><span class=\"swatch\" style=\"background:%s\"></span>%s: no thresholds</li>\n", colorOf(i), esc(r.Label))
			continue
		}
		crossed := 0
		for _, t := range th {
			if !t.Held {
				crossed++
			}
		}
		head := fmt.Sprintf("every threshold held (%d)", len(th))
		class := "held"
		if crossed > 0 {
			head, class = fmt.Sprintf("%d of %d thresholds CROSSED (exit code 3)", crossed, len(th)), "crossed"
		}
		fmt.Fprintf(b, "<li><span class=\"swatch\" style=\"background:%s\"></span>%s: <span class=\"%s\">%s</span><ul>\n", colorOf(i), esc(r.Label), class, head)
		for _, t := range th {
			mark, class, word := "✓", "held", "held"
			if !t.Held {
				mark, class, word = "✗", "crossed", "CROSSED"
			}
			expr := t.Expr
			if t.Group != "" {
				expr += " (group " + t.Group + ")"
			}
			fmt.Fprintf(b, "<li class=\"%s\">%s %s %s: %s</li>\n", class, mark, esc(expr), word, esc(figure(t)))
		}
		b.WriteString("</ul></li>\n")
	}
	b.WriteString("</ul>\n")
	return ""
}

// figure says what a threshold read: "p99 = 114.2 ms, limit 1.0 s", or why nothing was
// measured.
func figure(t report.Threshold) string {
	if t.Value == nil {
		if t.Missing != "" {
			return "not measured: " + t.Missing
		}
		return "not measured"
	}
	v := func(x float64) string {
		switch t.Unit {
		case "ms":
			return fmtMS(x)
		case "ratio":
			return strconv.FormatFloat(x, 'f', 3, 64)
		case "messages":
			return strconv.FormatFloat(x, 'f', 0, 64) + " messages"
		}
		return strconv.FormatFloat(x, 'g', 6, 64) + " " + t.Unit
	}
	return t.Figure + " = " + v(*t.Value) + ", limit " + v(t.Limit)
}

func (p Page) runsTable(b *strings.Builder) (notDrawn string) {
	if len(p.Runs) == 0 {
		return "no reports were given."
	}
	b.WriteString("<table><tr><th>run</th><th>shape</th><th>target/s</th><th>achieved/s</th><th>p50 ms</th><th>p99 ms</th><th>max ms</th><th>acked</th><th>failed</th><th>stopped</th></tr>\n")
	for i, r := range p.Runs {
		rep := r.Report
		var acked, failed int64
		for _, t := range rep.Topics {
			acked, failed = acked+t.Acked, failed+t.Failed
		}
		shape, stopped := "unpaced", "days"
		if s := rep.Stress; s != nil {
			shape, stopped = s.Shape, s.Stopped
		}
		if rep.Interrupted {
			stopped = "interrupted"
		}
		fmt.Fprintf(b, "<tr><td><span class=\"swatch\" style=\"background:%s\"></span>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%s</td></tr>\n",
			colorOf(i), esc(r.Label), esc(shape), fmtF(rep.Rate.TargetPerS), fmtF(rep.Rate.AchievedPerS),
			fmtF(rep.LatencyMS["p50"]), fmtF(rep.LatencyMS["p99"]), fmtF(rep.LatencyMS["max"]), acked, failed, esc(stopped))
	}
	b.WriteString("</table>\n")
	return ""
}

func fmtF(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// fmtMS prints milliseconds short: "472.8 ms", or "26.7 s" from 10 s on.
func fmtMS(ms float64) string {
	if ms >= 10000 {
		return fmtF(ms/1000) + " s"
	}
	return fmtF(ms) + " ms"
}

// intervalSeries builds a line per run from its intervals; ok is false when no run has any.
func (p Page) intervalSeries(f func(run int, at []float64, ivs func(func(i int) float64) []float64) []series) (ss []series, ok bool) {
	for i, r := range p.Runs {
		if r.Report.Stress == nil || len(r.Report.Stress.Intervals) == 0 {
			continue
		}
		ivs := r.Report.Stress.Intervals
		col := func(g func(i int) float64) []float64 {
			out := make([]float64, len(ivs))
			for j := range ivs {
				out[j] = g(j)
			}
			return out
		}
		at := col(func(j int) float64 { return ivs[j].AtS })
		run := f(i, at, col)
		for k := range run {
			run[k].axis = "run " + strconv.Itoa(i) // a run's lines share an axis
		}
		ss = append(ss, run...)
		ok = true
	}
	return ss, ok
}

const noIntervals = "none of the reports has intervals: only a rate-paced run (run stress, or --pace rate) records them."

func (p Page) rateChart(b *strings.Builder) (notDrawn string) {
	var items []legendItem
	ss, ok := p.intervalSeries(func(i int, at []float64, col func(func(int) float64) []float64) []series {
		ivs := p.Runs[i].Report.Stress.Intervals
		l := p.Runs[i].Label
		items = append(items, legendItem{name: l + " achieved", color: colorOf(i)}, legendItem{name: l + " target", color: colorOf(i), dash: "7 4"})
		return []series{
			{name: l + " achieved", color: colorOf(i), x: at, y: col(func(j int) float64 { return ivs[j].PerS })},
			{name: l + " target", color: colorOf(i), dash: "7 4", x: at, y: col(func(j int) float64 { return ivs[j].TargetPerS })},
		}
	})
	if !ok {
		return noIntervals
	}
	lineChart(b, "Messages acknowledged per second, per interval", "seconds since pacing started", "messages/s", ss, items, p.warmups()...)
	return ""
}

func (p Page) latencyChart(b *strings.Builder) (notDrawn string) {
	var items []legendItem
	ss, ok := p.intervalSeries(func(i int, at []float64, col func(func(int) float64) []float64) []series {
		ivs := p.Runs[i].Report.Stress.Intervals
		var out []series
		for _, pc := range percentileDash {
			name := p.Runs[i].Label + " " + pc.name
			items = append(items, legendItem{name: name, color: colorOf(i), dash: pc.dash})
			out = append(out, series{name: name, color: colorOf(i), dash: pc.dash, x: at, y: col(func(j int) float64 {
				switch pc.key {
				case "p50":
					return ivs[j].P50MS
				case "p95":
					return ivs[j].P95MS
				}
				return ivs[j].P99MS
			})})
		}
		return out
	})
	if !ok {
		return noIntervals
	}
	lineChart(b, "Latency percentiles per interval", "seconds since pacing started", "milliseconds", ss, items, p.warmups()...)
	return ""
}

// followed is one consumer group of one run: the pair's colour is the next of the palette,
// so one group per run keeps the run's colour.
type followed struct {
	run   int
	group string
	color string
}

// followedGroups lists every run's followed groups (report "follow", or groups in its
// intervals), runs in order, groups sorted.
func (p Page) followedGroups() []followed {
	var out []followed
	for i, r := range p.Runs {
		set := map[string]bool{}
		for g := range r.Report.Follow {
			set[g] = true
		}
		if s := r.Report.Stress; s != nil {
			for _, iv := range s.Intervals {
				for g := range iv.Follow {
					set[g] = true
				}
			}
		}
		for _, g := range slices.Sorted(maps.Keys(set)) {
			out = append(out, followed{run: i, group: g})
		}
	}
	for k := range out {
		out[k].color = colorOf(out[k].run)
		if len(out) > len(p.Runs) {
			out[k].color = colorOf(k)
		}
	}
	return out
}

// groupSuffix is what a line of fg adds to its run's label: the group's name, unless every
// followed group on the page has the same name (the charts' titles name it then).
func (p Page) groupSuffix(fg followed) string {
	if len(p.groupNames()) == 1 {
		return ""
	}
	return " " + fg.group
}

// groupNames lists the distinct names of the followed groups on the page, sorted.
func (p Page) groupNames() []string {
	set := map[string]bool{}
	for _, fg := range p.followedGroups() {
		set[fg.group] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// groupTitle names the followed group in a chart's title: "group clickstream_hits", or
// "each group" when there are several.
func (p Page) groupTitle() string {
	if n := p.groupNames(); len(n) == 1 {
		return "group " + n[0]
	}
	return "each group"
}

// followSeries builds, per run and followed group, the lines of y over the intervals that
// pass keep (the points of the others are left out, not drawn as zero).
func (p Page) followSeries(lines []struct{ suffix, dash string }, keep func(report.FollowInterval) bool,
	y func(line int, f report.FollowInterval) float64) (ss []series, items []legendItem) {
	for _, fg := range p.followedGroups() {
		s := p.Runs[fg.run].Report.Stress
		if s == nil {
			continue
		}
		for li, l := range lines {
			name := p.Runs[fg.run].Label + p.groupSuffix(fg) + l.suffix
			sr := series{name: name, color: fg.color, dash: l.dash, axis: fmt.Sprintf("run %d group %s", fg.run, fg.group)}
			for _, iv := range s.Intervals {
				if f, ok := iv.Follow[fg.group]; ok && keep(f) {
					sr.x, sr.y = append(sr.x, iv.AtS), append(sr.y, y(li, f))
				}
			}
			if len(sr.x) > 0 {
				ss = append(ss, sr)
				items = append(items, legendItem{name: name, color: fg.color, dash: l.dash})
			}
		}
	}
	return ss, items
}

const noFollowIntervals = "no report has intervals of a followed consumer group: a rate-paced run with --follow-group records them."

// noTakes is why a chart of followed intervals has no line although some report has them.
func (p Page) noTakes() string {
	if len(p.followedGroups()) == 0 {
		return noFollowIntervals
	}
	return "the followed groups took nothing during the run's intervals (what they took, they took after the run: see the pipeline latency distribution)."
}

func (p Page) pipelineChart(b *strings.Builder) (notDrawn string) {
	ss, items := p.followSeries([]struct{ suffix, dash string }{{" pipeline p50", ""}, {" pipeline p99", "2 3"}, {" pipeline max", "7 4"}},
		func(f report.FollowInterval) bool { return f.Taken > 0 },
		func(line int, f report.FollowInterval) float64 { return [...]float64{f.P50MS, f.P99MS, f.MaxMS}[line] })
	if len(ss) == 0 {
		return p.noTakes()
	}
	lineChart(b, "Pipeline latency of the messages "+p.groupTitle()+" took in each interval", "seconds since pacing started", "milliseconds", ss, items, p.warmups()...)
	b.WriteString("<p>Taken: the group's committed offset passed the message, as clickgen's poll of the group's offsets saw it (--follow-every). An interval in which the group took nothing has no point.</p>\n")
	return ""
}

func (p Page) consumerLagChart(b *strings.Builder) (notDrawn string) {
	ss, items := p.followSeries([]struct{ suffix, dash string }{{" consumer lag", ""}},
		func(report.FollowInterval) bool { return true },
		func(_ int, f report.FollowInterval) float64 { return float64(f.Lag) })
	if len(ss) == 0 {
		return noFollowIntervals
	}
	lineChart(b, "Messages acknowledged but not yet taken by "+p.groupTitle()+", at each interval's end", "seconds since pacing started", "messages", ss, items, p.warmups()...)
	return ""
}

// distributionSeries is the line of one distribution ([percentile, ms] pairs) on the
// percentile axis; the maximum (p 100) is beyond the axis and goes into the name.
func distributionSeries(name, color, dash string, dist [][2]float64) (series, legendItem, bool) {
	s := series{color: color, dash: dash}
	maxMS := math.NaN()
	for _, pt := range dist {
		if pt[0] >= 100 {
			maxMS = pt[1]
			continue
		}
		s.x, s.y = append(s.x, percentileX(pt[0])), append(s.y, pt[1])
	}
	if !math.IsNaN(maxMS) {
		name += " (max " + fmtMS(maxMS) + ")"
	}
	s.name = name
	return s, legendItem{name: name, color: color, dash: dash}, len(s.x) > 0
}

func (p Page) produceDistributionChart(b *strings.Builder) (notDrawn string) {
	var ss []series
	var items []legendItem
	for i, r := range p.Runs {
		if s, it, ok := distributionSeries(r.Label, colorOf(i), "", r.Report.LatencyDistributionMS); ok {
			ss, items = append(ss, s), append(items, it)
		}
	}
	if len(ss) == 0 {
		return "no report lists its produce latency distribution: a rate-paced run's report does (latency_distribution_ms)."
	}
	percentileChart(b, "Produce latency by percentile, from the intended send time to the acknowledgement", "milliseconds", ss, items)
	return ""
}

func (p Page) pipelineDistributionChart(b *strings.Builder) (notDrawn string) {
	var ss []series
	var items []legendItem
	for _, fg := range p.followedGroups() {
		g, ok := p.Runs[fg.run].Report.Follow[fg.group]
		if !ok {
			continue
		}
		if s, it, ok := distributionSeries(p.Runs[fg.run].Label+p.groupSuffix(fg)+" pipeline", fg.color, "", g.LatencyDistributionMS); ok {
			ss, items = append(ss, s), append(items, it)
		}
	}
	if len(ss) == 0 {
		return "no report lists a followed group's latency distribution: --follow-group adds it (follow.GROUP.latency_distribution_ms)."
	}
	percentileChart(b, "Pipeline latency by percentile, intended send time until "+p.groupTitle()+" took the message", "milliseconds", ss, items)
	return ""
}

func (p Page) lagChart(b *strings.Builder) (notDrawn string) {
	var items []legendItem
	ss, ok := p.intervalSeries(func(i int, at []float64, col func(func(int) float64) []float64) []series {
		ivs := p.Runs[i].Report.Stress.Intervals
		items = append(items, legendItem{name: p.Runs[i].Label, color: colorOf(i)})
		return []series{{name: p.Runs[i].Label, color: colorOf(i), x: at, y: col(func(j int) float64 { return ivs[j].LagMS })}}
	})
	if !ok {
		return noIntervals
	}
	lineChart(b, "How late the last released message was, at each interval's end", "seconds since pacing started", "milliseconds", ss, items, p.warmups()...)
	return ""
}

// topicNames lists every topic of every run, sorted.
func (p Page) topicNames() []string {
	set := map[string]bool{}
	for _, r := range p.Runs {
		for t := range r.Report.Topics {
			set[t] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func (p Page) topicsChart(b *strings.Builder) (notDrawn string) {
	topics := p.topicNames()
	if len(topics) == 0 {
		return "no report has a topic."
	}
	var groups []group
	var items []legendItem
	for i, r := range p.Runs {
		items = append(items, legendItem{name: r.Label + " sent", color: faint(colorOf(i)), bar: true},
			legendItem{name: r.Label + " acked", color: colorOf(i), bar: true})
	}
	for _, t := range topics {
		g := group{label: t}
		for i, r := range p.Runs {
			tr := r.Report.Topics[t]
			g.bars = append(g.bars, bar{name: r.Label + " " + t + " sent", color: faint(colorOf(i)), value: float64(tr.Sent)},
				bar{name: r.Label + " " + t + " acked", color: colorOf(i), value: float64(tr.Acked)})
		}
		groups = append(groups, g)
	}
	barChart(b, "Messages sent and acknowledged", "messages", groups, items)
	return ""
}

// faint is a lighter shade of a palette colour (#rrggbb), for the bar behind another.
func faint(c string) string {
	v, err := strconv.ParseUint(strings.TrimPrefix(c, "#"), 16, 32)
	if err != nil {
		return c
	}
	mix := func(shift uint) uint64 { ch := v >> shift & 0xff; return ch + (0xff-ch)*3/5 }
	return fmt.Sprintf("#%02x%02x%02x", mix(16), mix(8), mix(0))
}

func (p Page) partitionsChart(b *strings.Builder) (notDrawn string) {
	var groups []group
	for _, t := range p.topicNames() {
		parts := map[int32]bool{}
		for _, r := range p.Runs {
			for part := range r.Report.Topics[t].Partitions {
				parts[part] = true
			}
		}
		for _, part := range slices.Sorted(maps.Keys(parts)) {
			g := group{label: fmt.Sprintf("%s/%d", t, part)}
			for i, r := range p.Runs {
				tr := r.Report.Topics[t]
				var share float64
				if tr.Acked > 0 {
					share = float64(tr.Partitions[part]) / float64(tr.Acked) * 100
				}
				g.bars = append(g.bars, bar{name: fmt.Sprintf("%s %s/%d %% of the topic", r.Label, t, part), color: colorOf(i), value: share})
			}
			groups = append(groups, g)
		}
	}
	if len(groups) == 0 {
		return "no report counts acknowledged messages per partition."
	}
	var items []legendItem
	for i, r := range p.Runs {
		items = append(items, legendItem{name: r.Label, color: colorOf(i), bar: true})
	}
	barChart(b, "Share of each topic's acknowledged messages per partition", "% of the topic", groups, items)
	return ""
}

// unitKey names a unit across reports and the inventory.
type unitKey struct {
	snapshot bool
	day      int
}

func (k unitKey) String() string {
	if k.snapshot {
		return "snapshot " + strconv.Itoa(k.day)
	}
	return "day " + strconv.Itoa(k.day)
}

// unitKeys lists the units any report or the inventory has: hit days first, then snapshots.
func (p Page) unitKeys() []unitKey {
	set := map[unitKey]bool{}
	for _, r := range p.Runs {
		for _, u := range r.Report.Units {
			set[unitKey{u.Kind == "snapshot", u.Day}] = true
		}
	}
	if len(set) == 0 {
		return nil
	}
	if inv := p.Inventory; inv != nil {
		for _, d := range inv.Days {
			set[unitKey{false, d.Day}] = true
		}
		for _, s := range inv.Snapshots {
			set[unitKey{true, s.Day}] = true
		}
	}
	return slices.SortedFunc(maps.Keys(set), func(a, b unitKey) int {
		if a.snapshot != b.snapshot {
			if a.snapshot {
				return 1
			}
			return -1
		}
		return a.day - b.day
	})
}

const inventoryLabel = "inventory (expected)"

func (p Page) daysChart(b *strings.Builder) (notDrawn string) {
	keys := p.unitKeys()
	if len(keys) == 0 {
		return "no report lists a day played whole (a run cut short by --duration or --messages lists only the days it finished)."
	}
	// Sums per unit, once: looking each key up in every report's units was quadratic (100 000
	// units took over 30 s).
	sent := make([]map[unitKey]int64, len(p.Runs))
	for i, r := range p.Runs {
		sent[i] = make(map[unitKey]int64, len(r.Report.Units))
		for _, u := range r.Report.Units {
			sent[i][unitKey{u.Kind == "snapshot", u.Day}] += u.Sent
		}
	}
	expected := inventoryMessages(p.Inventory)
	groups := make([]group, 0, len(keys))
	for _, k := range keys {
		g := group{label: k.String()}
		for i, r := range p.Runs {
			g.bars = append(g.bars, bar{name: r.Label + " " + k.String() + " sent", color: colorOf(i), value: float64(sent[i][k])})
		}
		if p.Inventory != nil {
			g.bars = append(g.bars, bar{name: inventoryLabel + " " + k.String(), color: inventoryColor, value: float64(expected[k])})
		}
		groups = append(groups, g)
	}
	barChart(b, "Messages sent per day's hits and per snapshot (clean, malformed and re-sent)", "messages", groups, p.unitLegend())
	if p.Inventory == nil {
		b.WriteString("<p>Give <code>--inventory FILE</code> (the output of <code>clickgen inventory</code> with the run's flags) to draw the expectation beside each day.</p>\n")
	}
	return ""
}

func (p Page) unitLegend() []legendItem {
	var items []legendItem
	for i, r := range p.Runs {
		items = append(items, legendItem{name: r.Label, color: colorOf(i), bar: true})
	}
	if p.Inventory != nil {
		items = append(items, legendItem{name: inventoryLabel, color: inventoryColor, bar: true})
	}
	return items
}

// inventoryMessages is the messages the inventory expects of each unit (nil without one); a
// day or snapshot listed twice counts its first entry, as a scan from the start did.
func inventoryMessages(inv *world.Inventory) map[unitKey]int {
	if inv == nil {
		return nil
	}
	m := make(map[unitKey]int, len(inv.Days)+len(inv.Snapshots))
	for _, s := range inv.Snapshots {
		if k := (unitKey{true, s.Day}); !has(m, k) {
			m[k] = s.Messages
		}
	}
	for _, d := range inv.Days {
		if k := (unitKey{false, d.Day}); !has(m, k) {
			m[k] = d.Messages
		}
	}
	return m
}

func has[K comparable, V any](m map[K]V, k K) bool {
	_, ok := m[k]
	return ok
}

const redelivered = "redelivered"

func (p Page) classesChart(b *strings.Builder) (notDrawn string) {
	classes := append(world.AllGarbageClasses(), redelivered)
	perRun := make([]map[string]int, len(p.Runs))
	some := false
	for i, r := range p.Runs {
		perRun[i] = map[string]int{}
		for _, u := range r.Report.Units {
			for c, n := range u.Garbage {
				perRun[i][c] += n
			}
			perRun[i][redelivered] += u.Redelivered
		}
		for _, n := range perRun[i] {
			some = some || n > 0
		}
	}
	var expect map[string]int
	if inv := p.Inventory; inv != nil && some {
		expect = map[string]int{}
		for _, d := range inv.Days {
			for c, n := range d.Garbage {
				expect[c] += n
			}
			expect[redelivered] += d.Redelivered
		}
		for _, s := range inv.Snapshots {
			for c, n := range s.Garbage {
				expect[c] += n
			}
			expect[redelivered] += s.Redelivered
		}
	}
	if !some {
		return "no report lists malformed messages or re-sends (run garbage, or --garbage, adds them)."
	}
	var groups []group
	for _, c := range classes {
		g := group{label: c}
		for i, r := range p.Runs {
			g.bars = append(g.bars, bar{name: r.Label + " " + c, color: colorOf(i), value: float64(perRun[i][c])})
		}
		if expect != nil {
			g.bars = append(g.bars, bar{name: inventoryLabel + " " + c, color: inventoryColor, value: float64(expect[c])})
		}
		groups = append(groups, g)
	}
	barChart(b, "Malformed messages by class and byte-identical re-sends, all units", "messages", groups, p.unitLegend())
	return ""
}

// warmups are the runs' warm-ups as bands of the charts over time (seconds since pacing
// started): from 0 to how long each lasted, named with the run when the page has several
// runs; runs whose warm-ups end together share one band.
func (p Page) warmups() []band {
	var out []band
	for _, r := range p.Runs {
		w := r.Report.Warmup
		if w == nil || w.ElapsedS <= 0 {
			continue
		}
		label := fmt.Sprintf("warm-up, the first %s (measured apart)", strconv.FormatFloat(w.ElapsedS, 'g', 4, 64)+" s")
		if len(p.Runs) > 1 {
			label = r.Label + " " + label
		}
		shared := false
		for i := range out {
			if out[i].end == w.ElapsedS {
				out[i].label = "warm-up, the first " + strconv.FormatFloat(w.ElapsedS, 'g', 4, 64) + " s (measured apart)"
				shared = true
			}
		}
		if !shared {
			out = append(out, band{end: w.ElapsedS, label: label})
		}
	}
	return out
}
