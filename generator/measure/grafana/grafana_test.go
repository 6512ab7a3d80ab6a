package grafana

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
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

// checkDatasources returns what in the dashboard model d ties it to one data source instead of
// its datasource variable: a datasource reference (a panel's, a target's, a variable's,
// anywhere) that is not the variable, a uid other than the dashboard's own, an import-only
// placeholder (${DS_…}, __inputs, __requires: a file provider resolves none of them), a fixed
// dashboard id, or a datasource variable that is missing or not Prometheus'.
func checkDatasources(d []byte) []string {
	var root map[string]any
	if err := json.Unmarshal(d, &root); err != nil {
		return []string{err.Error()}
	}
	var bad []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				p := path + "." + k
				switch {
				case k == "datasource":
					ref, ok := x.(map[string]any)
					if s, isString := x.(string); isString && s == "${datasource}" {
						break
					}
					if !ok || ref["uid"] != "${datasource}" || ref["type"] != "prometheus" {
						bad = append(bad, fmt.Sprintf("%s is %v, not the datasource variable", p, x))
					}
					continue
				case k == "uid" && path != "":
					bad = append(bad, fmt.Sprintf("%s is a fixed uid %v", p, x))
				case k == "__inputs" || k == "__requires":
					bad = append(bad, p+": an import-only section")
				}
				walk(p, x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), x)
			}
		case string:
			if strings.Contains(v, "${DS_") {
				bad = append(bad, fmt.Sprintf("%s holds an import placeholder: %s", path, v))
			}
		}
	}
	walk("", root)
	if id, ok := root["id"]; ok && id != nil {
		bad = append(bad, fmt.Sprintf("dashboard id %v: a provisioned dashboard gets its id from Grafana", id))
	}
	found := false
	if t, ok := root["templating"].(map[string]any); ok {
		list, _ := t["list"].([]any)
		for _, x := range list {
			if v, ok := x.(map[string]any); ok && v["name"] == "datasource" {
				found = true
				if v["type"] != "datasource" || v["query"] != "prometheus" {
					bad = append(bad, fmt.Sprintf("variable datasource: type %v query %v, want a datasource variable over prometheus", v["type"], v["query"]))
				}
				if cur, _ := v["current"].(map[string]any); len(cur) != 0 {
					bad = append(bad, fmt.Sprintf("variable datasource: current %v names one data source", cur))
				}
			}
		}
	}
	if !found {
		bad = append(bad, "no variable datasource")
	}
	sort.Strings(bad)
	return bad
}

// TestDashboardDatasourceIsAVariable: clickgen.json drops unchanged into a file provider's
// folder (the stand's /etc/grafana/provisioning/dashboards): every datasource reference at any
// depth is the datasource variable, a Prometheus datasource variable without a preset value;
// no panel, target or variable names a fixed uid; nothing is left for an import to fill in.
// The same check finds each way of breaking that, planted in a copy.
func TestDashboardDatasourceIsAVariable(t *testing.T) {
	if bad := checkDatasources(Dashboard); len(bad) != 0 {
		t.Errorf("clickgen.json is bound to a data source:\n%s", strings.Join(bad, "\n"))
	}
	for _, c := range []struct{ name, old, new string }{
		{"a target's fixed uid", `"refId": "A", "datasource": { "type": "prometheus", "uid": "${datasource}" }`, `"refId": "A", "datasource": { "type": "prometheus", "uid": "P1809F7CD0C75ACF3" }`},
		{"an import placeholder", `"uid": "${datasource}"`, `"uid": "${DS_PROMETHEUS}"`},
		{"a variable over another type", `"type": "datasource", "query": "prometheus"`, `"type": "datasource", "query": "clickhouse"`},
	} {
		broken := compact(t, Dashboard)
		o, n := compact(t, []byte("{"+c.old+"}")), compact(t, []byte("{"+c.new+"}"))
		o, n = o[1:len(o)-1], n[1:len(n)-1]
		if !bytes.Contains(broken, o) {
			t.Fatalf("%s: %s is not in clickgen.json", c.name, o)
		}
		broken = bytes.Replace(broken, o, n, 1)
		if bad := checkDatasources(broken); len(bad) == 0 {
			t.Errorf("%s: not found", c.name)
		}
	}
}

// compact is b as compact JSON, keys in the order they are written.
func compact(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestProvisioningFiles: the files beside the dashboard parse as what they are, strictly (no
// key the structs do not know): datasource.yaml provisions one Prometheus data source, not the
// default one, whose minimum interval is prometheus.yml's scrape interval; prometheus.yml is
// one scrape job with the stand's 15 s interval, /metrics, and a static target whose port is
// one --metrics-addr accepts; provider.yaml is a file provider with a path.
func TestProvisioningFiles(t *testing.T) {
	var ds struct {
		APIVersion  int `yaml:"apiVersion"`
		Datasources []struct {
			Name, Type, UID, Access, URL string
			IsDefault                    bool `yaml:"isDefault"`
			Editable                     bool
			JSONData                     struct {
				TimeInterval string `yaml:"timeInterval"`
			} `yaml:"jsonData"`
		}
	}
	var sc struct {
		ScrapeConfigs []struct {
			JobName        string `yaml:"job_name"`
			ScrapeInterval string `yaml:"scrape_interval"`
			MetricsPath    string `yaml:"metrics_path"`
			StaticConfigs  []struct {
				Targets []string
			} `yaml:"static_configs"`
		} `yaml:"scrape_configs"`
	}
	var pv struct {
		APIVersion int `yaml:"apiVersion"`
		Providers  []struct {
			Name, Folder, Type string
			DisableDeletion    bool `yaml:"disableDeletion"`
			AllowUIUpdates     bool `yaml:"allowUiUpdates"`
			Options            struct {
				Path                      string
				FoldersFromFilesStructure bool `yaml:"foldersFromFilesStructure"`
			}
		}
	}
	for file, v := range map[string]any{"datasource.yaml": &ds, "prometheus.yml": &sc, "provider.yaml": &pv} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}

	if len(sc.ScrapeConfigs) != 1 {
		t.Fatalf("prometheus.yml: %d scrape jobs, want 1", len(sc.ScrapeConfigs))
	}
	job := sc.ScrapeConfigs[0]
	interval, err := time.ParseDuration(job.ScrapeInterval)
	if job.JobName != "clickgen" || err != nil || interval != 15*time.Second || job.MetricsPath != "/metrics" ||
		len(job.StaticConfigs) != 1 || len(job.StaticConfigs[0].Targets) != 1 {
		t.Errorf("prometheus.yml: job %+v (interval %v, %v), want clickgen every 15 s on /metrics of one static target", job, interval, err)
	} else {
		target := job.StaticConfigs[0].Targets[0]
		host, port, err := net.SplitHostPort(target)
		// A port clickgen's --metrics-addr :PORT takes (generator/measure/prom.CheckAddr): decimal,
		// 0 to 65535. Not asked of prom itself: nothing under metrics imports upwards.
		if _, perr := strconv.ParseUint(port, 10, 16); err != nil || host == "" || perr != nil {
			t.Errorf("prometheus.yml: target %q (%v) is not HOST:PORT of a --metrics-addr :PORT", target, err)
		}
	}

	if ds.APIVersion != 1 || len(ds.Datasources) != 1 {
		t.Fatalf("datasource.yaml: apiVersion %d, %d data sources, want 1 and 1", ds.APIVersion, len(ds.Datasources))
	}
	src := ds.Datasources[0]
	u, err := url.Parse(src.URL)
	if src.Type != "prometheus" || src.Access != "proxy" || src.Name == "" || err != nil || u.Scheme != "http" || u.Host == "" {
		t.Errorf("datasource.yaml: %+v, want a Prometheus data source reached by Grafana's proxy at an http URL", src)
	}
	if src.IsDefault {
		t.Errorf("datasource.yaml: the default data source: the stand's ClickHouse one would lose that")
	}
	if src.JSONData.TimeInterval != job.ScrapeInterval {
		t.Errorf("datasource.yaml: timeInterval %q, want prometheus.yml's scrape interval %q", src.JSONData.TimeInterval, job.ScrapeInterval)
	}

	if pv.APIVersion != 1 || len(pv.Providers) != 1 || pv.Providers[0].Type != "file" || pv.Providers[0].Options.Path == "" {
		t.Errorf("provider.yaml: %+v, want one file provider with a path", pv)
	}
}
