package grafana

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// Panel is the part of a dashboard panel the tests read.
type panel struct {
	ID         int    `json:"id"`
	Type       string `json:"type"`
	Title      string `json:"title"`
	Datasource struct {
		UID string `json:"uid"`
	} `json:"datasource"`
	GridPos struct{ X, Y, W, H int } `json:"gridPos"`
	Targets []struct {
		RefID string `json:"refId"`
		Expr  string `json:"expr"`
	} `json:"targets"`
}

// TestDashboardParses: the dashboard is one JSON dashboard model as a file provider wants it
// (uid, title, schemaVersion, no import-only __inputs), its panels have distinct ids and do
// not overlap, every query panel reads the datasource variable and filters by job and
// instance, and the variables it uses are defined.
func TestDashboardParses(t *testing.T) {
	var d struct {
		UID           string            `json:"uid"`
		Title         string            `json:"title"`
		SchemaVersion int               `json:"schemaVersion"`
		Inputs        []json.RawMessage `json:"__inputs"`
		Templating    struct {
			List []struct{ Name, Type string }
		} `json:"templating"`
		Panels []panel `json:"panels"`
	}
	if err := json.Unmarshal(Dashboard, &d); err != nil {
		t.Fatalf("clickgen.json: %v", err)
	}
	if d.UID != "clickgen" || d.Title == "" || d.SchemaVersion == 0 || d.Inputs != nil {
		t.Errorf("uid %q title %q schemaVersion %d __inputs %d: not a provisionable dashboard model", d.UID, d.Title, d.SchemaVersion, len(d.Inputs))
	}
	vars := map[string]bool{}
	for _, v := range d.Templating.List {
		vars[v.Name] = true
	}
	for _, v := range []string{"datasource", "job", "instance"} {
		if !vars[v] {
			t.Errorf("no variable %s", v)
		}
	}
	ids := map[int]bool{}
	taken := map[[2]int]int{}
	queries := 0
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		for x := p.GridPos.X; x < p.GridPos.X+p.GridPos.W; x++ {
			for y := p.GridPos.Y; y < p.GridPos.Y+p.GridPos.H; y++ {
				if o, ok := taken[[2]int{x, y}]; ok {
					t.Errorf("panel %q overlaps panel %d at %d,%d", p.Title, o, x, y)
				}
				taken[[2]int{x, y}] = p.ID
			}
		}
		if p.Type == "row" {
			continue
		}
		if p.Datasource.UID != "${datasource}" || len(p.Targets) == 0 || p.GridPos.W > 24 {
			t.Errorf("panel %q: datasource %q, %d targets, width %d", p.Title, p.Datasource.UID, len(p.Targets), p.GridPos.W)
		}
		for _, q := range p.Targets {
			queries++
			for _, sel := range regexp.MustCompile(`[a-z_:]+\{[^}]*\}`).FindAllString(q.Expr, -1) {
				if !strings.Contains(sel, `job=~"$job"`) || !strings.Contains(sel, `instance=~"$instance"`) {
					t.Errorf("panel %q: selector %s does not filter by $job and $instance", p.Title, sel)
				}
			}
		}
	}
	if queries < 20 {
		t.Errorf("%d queries: the dashboard lost its panels", queries)
	}
}

// TestMetricNames: the names a query reads, without functions, keywords, labels, grouping
// labels, strings or ranges.
func TestMetricNames(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{`sum by (topic) (rate(clickgen_messages_sent_total{job=~"$job", topic="by"}[$__rate_interval]))`, "clickgen_messages_sent_total"},
		{`histogram_quantile(0.99, sum by (le, node_id) (rate(a_bucket{x="y"}[5m]))) / on (job) group_left b_count or vector(0)`, "a_bucket b_count"},
		{`max(up) without (instance) + 1e3 * c`, "up c"},
	} {
		if got := strings.Join(MetricNames(c.expr), " "); got != c.want {
			t.Errorf("MetricNames(%q) = %q, want %q", c.expr, got, c.want)
		}
	}
	names, err := Metrics()
	if err != nil || len(names) < 20 {
		t.Errorf("Metrics() = %d names, %v", len(names), err)
	}
}
