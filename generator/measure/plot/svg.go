package plot

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Chart geometry, in SVG user units (pixels at 100 % zoom). The legend is HTML under the
// chart, where labels of any length wrap instead of being cut at the chart's edge.
const (
	chartW = 960
	chartH = 320
	padL   = 70
	padR   = 70 // room for a right-hand axis
	padT   = 30
	padB   = 65 // room for slanted group labels
	plotW  = chartW - padL - padR
	plotH  = chartH - padT - padB
)

// smallShare is the rule that gives a series its own axis: the lines of a run (or of a
// followed group: series.axis) whose largest value is below this share of the largest on
// their chart would lie flat on the shared axis, so they are drawn against a right-hand axis
// (with every such run of the chart), and the legend says so. A run's own lines stay
// together: its p50 beside its p99 is the comparison the chart is for.
const smallShare = 0.1

// rightAxis is the legend's note on a line drawn against the right-hand axis.
const rightAxis = " (right axis)"

// palette colours the runs in order; inventory is the expectation's colour.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"}

const inventoryColor = "#7f7f7f"

func colorOf(run int) string { return palette[run%len(palette)] }

// esc escapes s for HTML text and attribute values (SVG inline in HTML parses the same).
func esc(s string) string { return html.EscapeString(s) }

// num prints a coordinate compactly.
func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// series is one line of a line chart.
type series struct {
	name  string
	color string
	dash  string // stroke-dasharray, "" for solid
	x, y  []float64
	// axis names the lines that share an axis whatever their size (a run's percentiles,
	// its achieved and target rates); "" is a line of its own.
	axis string
}

// legendItem is one line of a chart's legend.
type legendItem struct {
	name, color, dash string
	bar               bool // a filled square rather than a line
}

// niceTicks returns about n round tick values covering [0, hi].
func niceTicks(hi float64, n int) []float64 {
	if hi <= 0 || math.IsNaN(hi) || math.IsInf(hi, 0) {
		hi = 1
	}
	raw := hi / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []float64
	for v := 0.0; v < hi+step*0.999; v += step {
		ticks = append(ticks, v)
	}
	return ticks
}

// label prints a tick value: integers without decimals, large values with k/M.
func label(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	case a == math.Trunc(a):
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// short prints a bar's value in at most about five characters: 57.1k, 1.2M, 265, 49.7.
func short(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 1, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "k"
	case a == math.Trunc(a):
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// scale maps a value to its height on an axis whose ticks end at top.
func scale(ticks []float64) func(float64) float64 {
	top := ticks[len(ticks)-1]
	return func(v float64) float64 { return padT + plotH - v/top*plotH }
}

// frame opens an SVG chart with its title, the y grid up to yTicks' last value and the axis
// titles; it returns the y scale.
func frame(b *strings.Builder, title, xTitle, yTitle string, yTicks []float64) func(float64) float64 {
	y := scale(yTicks)
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`+"\n",
		chartW, chartH, chartW, chartH, esc(title))
	fmt.Fprintf(b, `<text x="%d" y="18" class="title">%s</text>`+"\n", padL, esc(title))
	for _, t := range yTicks {
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%s" y2="%s" class="grid"/><text x="%d" y="%s" class="tick" text-anchor="end">%s</text>`+"\n",
			padL, padL+plotW, num(y(t)), num(y(t)), padL-6, num(y(t)+4), esc(label(t)))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" class="axis" text-anchor="middle">%s</text>`+"\n", padL+plotW/2, chartH-6, esc(xTitle))
	fmt.Fprintf(b, `<text x="14" y="%d" class="axis" text-anchor="middle" transform="rotate(-90 14 %d)">%s</text>`+"\n",
		padT+plotH/2, padT+plotH/2, esc(yTitle))
	return y
}

// rightFrame draws the right-hand axis of the ticks rTicks, titled yTitle, and returns its
// scale: tick marks and values outside the plot, no grid (the grid is the left axis').
func rightFrame(b *strings.Builder, yTitle string, rTicks []float64) func(float64) float64 {
	y := scale(rTicks)
	x := padL + plotW
	fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%d" y2="%d" class="raxis"/>`, x, x, padT, padT+plotH)
	for _, t := range rTicks {
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%s" y2="%s" class="raxis"/><text x="%d" y="%s" class="tick" text-anchor="start">%s</text>`,
			x, x+4, num(y(t)), num(y(t)), x+6, num(y(t)+4), esc(label(t)))
	}
	cx := chartW - 8
	fmt.Fprintf(b, `<text x="%d" y="%d" class="axis" text-anchor="middle" transform="rotate(90 %d %d)">%s</text>`+"\n",
		cx, padT+plotH/2, cx, padT+plotH/2, esc(yTitle+", right axis"))
	return y
}

// legend writes the chart's legend as HTML after it: each item's key (a line in its colour
// and dash, or a filled box for bars) and its whole label, wrapping as the page needs.
func legend(b *strings.Builder, items []legendItem) {
	b.WriteString(`<div class="legend">`)
	for _, it := range items {
		key := fmt.Sprintf(`<span class="box" style="background:%s"></span>`, it.color)
		if !it.bar {
			key = fmt.Sprintf(`<span class="line" style="border-top:2px %s %s"></span>`, dashStyle(it.dash), it.color)
		}
		fmt.Fprintf(b, `<span class="key">%s<span class="label">%s</span></span>`, key, esc(it.name))
	}
	b.WriteString("</div>\n")
}

// dashStyle is the CSS border style closest to an SVG dash pattern: the percentiles' "7 4"
// dashed, "2 3" dotted.
func dashStyle(dash string) string {
	switch dash {
	case "":
		return "solid"
	case "2 3":
		return "dotted"
	}
	return "dashed"
}

// splitAxes decides which of ss are drawn against a right-hand axis: the lines of each axis
// group (series.axis) whose largest value is above 0 and below smallShare of the largest of
// all. It returns the largest value of the left-hand lines and of the right-hand ones.
func splitAxes(ss []series) (right []bool, leftMax, rightMax float64) {
	groupOf := make([]string, len(ss))
	maxOf := map[string]float64{}
	var top float64
	for i, s := range ss {
		groupOf[i] = s.axis
		if s.axis == "" {
			groupOf[i] = "\x00" + strconv.Itoa(i) // a line of its own
		}
		for _, v := range s.y {
			maxOf[groupOf[i]] = max(maxOf[groupOf[i]], v)
		}
		top = max(top, maxOf[groupOf[i]])
	}
	right = make([]bool, len(ss))
	for i := range ss {
		if m := maxOf[groupOf[i]]; m > 0 && m < top*smallShare {
			right[i], rightMax = true, max(rightMax, m)
		} else {
			leftMax = max(leftMax, m)
		}
	}
	return right, leftMax, rightMax
}

// onRight notes in the legend which lines are drawn against the right-hand axis: the items
// named as a series of ss for which right is set.
func onRight(items []legendItem, ss []series, right []bool) []legendItem {
	names := map[string]bool{}
	for i, s := range ss {
		if right[i] {
			names[s.name] = true
		}
	}
	out := make([]legendItem, len(items))
	for i, it := range items {
		out[i] = it
		if names[it.name] {
			out[i].name += rightAxis
		}
	}
	return out
}

// axes draws the y axes of ss (frame, and rightFrame when some series are small: splitAxes)
// and returns each series' y scale and the legend items noting the right-hand lines.
func axes(b *strings.Builder, title, xTitle, yTitle string, ss []series, items []legendItem) ([]func(float64) float64, []legendItem) {
	right, leftMax, rightMax := splitAxes(ss)
	left := frame(b, title, xTitle, yTitle, niceTicks(leftMax, 5))
	ys := make([]func(float64) float64, len(ss))
	for i := range ys {
		ys[i] = left
	}
	if rightMax > 0 {
		r := rightFrame(b, yTitle, niceTicks(rightMax, 5))
		for i := range ys {
			if right[i] {
				ys[i] = r
			}
		}
		items = onRight(items, ss, right)
	}
	return ys, items
}

// polyline draws series s with x and y scales; a single point is a dot too.
func polyline(b *strings.Builder, s series, x, y func(float64) float64) {
	var pts strings.Builder
	for i := range s.x {
		fmt.Fprintf(&pts, "%s,%s ", num(x(s.x[i])), num(y(s.y[i])))
	}
	fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="2" stroke-dasharray="%s" points="%s"><title>%s</title></polyline>`+"\n",
		s.color, s.dash, strings.TrimSpace(pts.String()), esc(s.name))
}

// band is a stretch of a chart's x axis from 0, shaded and named: a run's warm-up.
type band struct {
	end   float64
	label string
}

// lineChart draws ss over a shared x axis from 0, over the shaded bands (each from 0 to its
// end, named at its top and in the legend); a series far smaller than the others gets the
// right-hand axis (splitAxes).
func lineChart(b *strings.Builder, title, xTitle, yTitle string, ss []series, items []legendItem, bands ...band) {
	var xMax float64
	for _, s := range ss {
		for i := range s.x {
			xMax = max(xMax, s.x[i])
		}
	}
	for _, bd := range bands {
		xMax = max(xMax, bd.end)
	}
	xTicks := niceTicks(xMax, 8)
	xTop := xTicks[len(xTicks)-1]
	x := func(v float64) float64 { return padL + v/xTop*plotW }
	ys, items := axes(b, title, xTitle, yTitle, ss, items)
	for _, t := range xTicks {
		fmt.Fprintf(b, `<text x="%s" y="%d" class="tick" text-anchor="middle">%s</text>`, num(x(t)), padT+plotH+16, esc(label(t)))
	}
	b.WriteByte('\n')
	for i, bd := range bands {
		fmt.Fprintf(b, `<rect class="warmup" x="%d" y="%d" width="%s" height="%d"><title>%s</title></rect>`+
			`<line class="warmupline" x1="%s" x2="%s" y1="%d" y2="%d"/><text x="%d" y="%d" class="tick">%s</text>`+"\n",
			padL, padT, num(x(bd.end)-padL), plotH, esc(bd.label), num(x(bd.end)), num(x(bd.end)), padT, padT+plotH,
			padL+4, padT+12+12*i, esc(bd.label))
		items = append(items, legendItem{name: bd.label, color: "#e8e8e8", bar: true})
	}
	for i, s := range ss {
		polyline(b, s, x, ys[i])
		if len(s.x) == 1 { // a single interval is a point, not a line
			fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", num(x(s.x[0])), num(ys[i](s.y[0])), s.color)
		}
	}
	b.WriteString("</svg>\n")
	legend(b, items)
}

// bar is one bar of a group.
type bar struct {
	name  string // for its tooltip
	color string
	value float64
}

// group is a cluster of bars side by side under one label.
type group struct {
	label string
	bars  []bar
}

// barChart draws groups of bars from 0.
func barChart(b *strings.Builder, title, yTitle string, groups []group, items []legendItem) {
	var yMax float64
	for _, g := range groups {
		for _, br := range g.bars {
			yMax = max(yMax, br.value)
		}
	}
	y := frame(b, title, "", yTitle, niceTicks(yMax*1.08, 5)) // headroom for the value over the tallest bar
	gw := float64(plotW) / float64(len(groups))
	// Labels wider than their group (about 7 units a character) are slanted, not overlapped.
	slant := false
	for _, g := range groups {
		slant = slant || float64(utf8.RuneCountInString(g.label)*7) > gw
	}
	for i, g := range groups {
		x0 := padL + float64(i)*gw
		bw := gw * 0.8 / float64(max(1, len(g.bars)))
		for j, br := range g.bars {
			x := x0 + gw*0.1 + float64(j)*bw
			fmt.Fprintf(b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s: %s</title></rect>`,
				num(x), num(y(br.value)), num(max(bw-1, 1)), num(y(0)-y(br.value)), br.color, esc(br.name), esc(strconv.FormatFloat(br.value, 'f', -1, 64)))
			if bw >= 36 { // wide enough to print its value, which also shows a bar too short to see
				fmt.Fprintf(b, `<text x="%s" y="%s" class="value" text-anchor="middle">%s</text>`, num(x+bw/2), num(y(br.value)-3), esc(short(br.value)))
			}
		}
		if slant {
			x, y := num(x0+gw/2+4), strconv.Itoa(padT+plotH+14)
			fmt.Fprintf(b, `<text x="%s" y="%s" class="tick" text-anchor="end" transform="rotate(-25 %s %s)">%s</text>`+"\n", x, y, x, y, esc(g.label))
			continue
		}
		fmt.Fprintf(b, `<text x="%s" y="%d" class="tick" text-anchor="middle">%s</text>`+"\n", num(x0+gw/2), padT+plotH+16, esc(g.label))
	}
	b.WriteString("</svg>\n")
	legend(b, items)
}

// percentileX is percentile p's place on HdrHistogram's axis: log10(1/(1−p/100)), so 90 %
// is 1, 99 % 2, 99.9 % 3. p 100 has no place.
func percentileX(p float64) float64 { return -math.Log10(1 - p/100) }

// percentileLabel names the tick at percentileX k: 0%, 90%, 99%, 99.9%, …
func percentileLabel(k int) string {
	if k == 0 {
		return "0%"
	}
	return strconv.FormatFloat(100-math.Pow(10, 2-float64(k)), 'f', max(0, k-2), 64) + "%"
}

// percentileChart draws ss, whose x are percentileX values, on a percentile axis with a tick
// at each power of ten of 1/(1−p), as HdrHistogram plots a latency distribution.
func percentileChart(b *strings.Builder, title, yTitle string, ss []series, items []legendItem) {
	var xMax float64
	for _, s := range ss {
		for i := range s.x {
			xMax = max(xMax, s.x[i])
		}
	}
	top := max(1, int(math.Ceil(xMax-1e-9)))
	x := func(v float64) float64 { return padL + v/float64(top)*plotW }
	ys, items := axes(b, title, "percentile (log scale of 1/(1−p))", yTitle, ss, items)
	for k := 0; k <= top; k++ {
		fmt.Fprintf(b, `<line x1="%s" x2="%s" y1="%d" y2="%d" class="grid"/><text x="%s" y="%d" class="tick" text-anchor="middle">%s</text>`,
			num(x(float64(k))), num(x(float64(k))), padT, padT+plotH, num(x(float64(k))), padT+plotH+16, esc(percentileLabel(k)))
	}
	b.WriteByte('\n')
	for i, s := range ss {
		polyline(b, s, x, ys[i])
	}
	b.WriteString("</svg>\n")
	legend(b, items)
}
