package plot

import (
	"strings"
)

// The charts of freshness until queryable (a report's store section, --follow-clickhouse).

// storeTitle names the followed tables of the page's runs.
func (p Page) storeTitle() string {
	var tables []string
	for _, r := range p.Runs {
		if s := r.Report.Store; s != nil && !contains(tables, s.Table) {
			tables = append(tables, s.Table)
		}
	}
	return strings.Join(tables, ", ")
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// storeChart draws each run's time until queryable over the run (p50, p99 and max of the keys
// seen in each sample of the series) and, below it, its sampled keys not yet seen.
func (p Page) storeChart(b *strings.Builder) (notDrawn string) {
	var lat, pend []series
	var latItems, pendItems []legendItem
	for i, r := range p.Runs {
		s := r.Report.Store
		if s == nil || len(s.Series) == 0 {
			continue
		}
		color := colorOf(i)
		lines := []struct {
			suffix, dash string
			y            func(j int) float64
		}{
			{" p50", "", func(j int) float64 { return s.Series[j].P50MS }},
			{" p99", "2 3", func(j int) float64 { return s.Series[j].P99MS }},
			{" max", "7 4", func(j int) float64 { return s.Series[j].MaxMS }},
		}
		prevSeen := int64(0)
		var at []float64
		var idx []int
		for j, x := range s.Series {
			if x.Seen > prevSeen {
				at, idx = append(at, x.T), append(idx, j)
			}
			prevSeen = x.Seen
		}
		if len(at) > 0 {
			for _, l := range lines {
				ys := make([]float64, len(idx))
				for k, j := range idx {
					ys[k] = l.y(j)
				}
				name := r.Label + l.suffix
				lat = append(lat, series{name: name, color: color, dash: l.dash, x: at, y: ys, axis: r.Label})
				latItems = append(latItems, legendItem{name: name, color: color, dash: l.dash})
			}
		}
		var px, py []float64
		for _, x := range s.Series {
			px, py = append(px, x.T), append(py, float64(x.Pending))
		}
		name := r.Label + " not yet seen"
		pend = append(pend, series{name: name, color: color, x: px, y: py})
		pendItems = append(pendItems, legendItem{name: name, color: color})
	}
	if len(pend) == 0 {
		return "no report has a store section: --follow-clickhouse adds it (store.series)."
	}
	if len(lat) > 0 {
		lineChart(b, "Time until queryable of the sampled messages of "+p.storeTitle()+" seen in each sample", "seconds since the follower started", "milliseconds", lat, latItems)
	} else {
		b.WriteString("<p>No sampled key was seen in the followed table: no latency to draw.</p>\n")
	}
	lineChart(b, "Sampled messages not yet readable from "+p.storeTitle(), "seconds since the follower started", "messages", pend, pendItems)
	b.WriteString("<p>Seen: a poll of the table (every --follow-every) returned the sampled message's key (WatchID, order_id); each latency is at most one poll period and round trip late. A sample in which nothing was seen has no point.</p>\n")
	return ""
}

// storeDistributionChart draws each run's time until queryable by percentile.
func (p Page) storeDistributionChart(b *strings.Builder) (notDrawn string) {
	var ss []series
	var items []legendItem
	for i, r := range p.Runs {
		if s := r.Report.Store; s != nil {
			if sr, it, ok := distributionSeries(r.Label+" "+s.Table, colorOf(i), "", s.LatencyDistributionMS); ok {
				ss, items = append(ss, sr), append(items, it)
			}
		}
	}
	if len(ss) == 0 {
		return "no report lists a followed table's latency distribution: --follow-clickhouse adds it (store.latency_distribution_ms)."
	}
	percentileChart(b, "Time until queryable by percentile, intended send time until a poll of "+p.storeTitle()+" returned the key", "milliseconds", ss, items)
	return ""
}
