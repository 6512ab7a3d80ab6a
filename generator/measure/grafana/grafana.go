// Package grafana holds clickgen's Grafana dashboard, clickgen.json: rate target vs achieved,
// latency percentiles from intended send time (windowed and whole-run), lag, sent vs
// acknowledged per topic, errors, the Kafka client per broker (request latency, records,
// bytes, connections) and the process's CPU and memory, over the series clickgen serves with
// --metrics-addr (generator/measure/prom).
//
// The file is a plain dashboard model, provisionable as it is: it drops unchanged into the
// folder a Grafana file provider reads (the stand's reads /etc/grafana/provisioning/dashboards;
// provider.yaml beside it is such a provider for a Grafana without one). It picks its
// Prometheus data source with the variable datasource (a datasource variable over prometheus,
// no uid anywhere), and filters by the variables job and instance, so it needs no edit for a
// stand's data source or scrape job names. Beside it: datasource.yaml, a Prometheus data
// source to provision, and prometheus.yml, the scrape job (clickgen:9100 every 15 s, the
// stand's interval).
package grafana

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Dashboard is clickgen.json, byte for byte.
//
//go:embed clickgen.json
var Dashboard []byte

// Metrics returns the metric names the dashboard's queries read, each once, in the order they
// first appear; series of histograms and summaries keep their _bucket, _sum or _count suffix.
func Metrics() ([]string, error) {
	var d struct {
		Panels []struct {
			Targets []struct{ Expr string } `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(Dashboard, &d); err != nil {
		return nil, fmt.Errorf("grafana: clickgen.json: %w", err)
	}
	var names []string
	seen := map[string]bool{}
	for _, p := range d.Panels {
		for _, q := range p.Targets {
			for _, n := range MetricNames(q.Expr) {
				if !seen[n] {
					seen[n] = true
					names = append(names, n)
				}
			}
		}
	}
	return names, nil
}

var (
	promStrings  = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`)
	promBlocks   = regexp.MustCompile(`\{[^}]*\}|\[[^\]]*\]`)
	promGrouping = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent    = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*|[0-9][0-9A-Za-z_.+-]*`)
	promKeywords = map[string]bool{"by": true, "without": true, "on": true, "ignoring": true, "group_left": true,
		"group_right": true, "and": true, "or": true, "unless": true, "bool": true, "offset": true, "atan2": true}
)

// MetricNames returns the metric names a PromQL expression reads, in order, repeats included:
// every identifier that is not a function call, a keyword, a label (inside {} or a grouping),
// a string or a number. It is a reader of the simple queries of a dashboard, not a parser.
func MetricNames(expr string) []string {
	e := promStrings.ReplaceAllString(expr, `""`)
	e = promBlocks.ReplaceAllString(e, " ")
	e = promGrouping.ReplaceAllString(e, " ")
	var names []string
	for _, loc := range promIdent.FindAllStringIndex(e, -1) {
		w := e[loc[0]:loc[1]]
		if w[0] >= '0' && w[0] <= '9' || promKeywords[w] || strings.HasPrefix(strings.TrimLeft(e[loc[1]:], " \t\n"), "(") {
			continue
		}
		names = append(names, w)
	}
	return names
}
