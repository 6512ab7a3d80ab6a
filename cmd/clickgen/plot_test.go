package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlotRealReports: the reports a stress run and a garbage batch write, and the inventory
// of the batch, draw every chart: the stress run's intervals carry their own percentiles, the
// batch's day its classes beside the inventory's, the stress run's latency distribution on
// the percentile axis.
func TestPlotRealReports(t *testing.T) {
	dir := t.TempDir()
	stress, batch, inv := filepath.Join(dir, "stress.json"), filepath.Join(dir, "batch.json"), filepath.Join(dir, "inv.json")
	if out, errs, code := clickgen(t, "run", "stress", "--rate", "4000/s", "--messages", "8000", "--interval", "100ms", "--scale", "0.05", "--report", stress); code != 0 {
		t.Fatalf("run stress: exit %d\n%s\n%s", code, out, errs)
	}
	d := readStress(t, stress)
	// Intervals before the first acknowledgement (a slow machine, -race) have no latency, and
	// a loaded machine may acknowledge in bursts: a CI rehearsal acknowledged 238 of 2,000
	// messages in one interval after 0.59 s and the rest in the final flush, which no interval
	// covers. So the run sends for 2 s, and one interval with acknowledgements is all that is
	// asked of the clock.
	withLatency := 0
	for _, iv := range d.Stress.Intervals {
		if iv.Records == 0 {
			continue
		}
		if iv.P50MS <= 0 || iv.P99MS < iv.P50MS {
			t.Errorf("interval %+v: want 0 < p50 ≤ p99", iv)
		}
		withLatency++
	}
	if withLatency < 1 {
		t.Errorf("stress intervals = %+v, want at least one with acknowledgements", d.Stress.Intervals)
	}
	garbage := []string{"--day", "1", "--scale", "0.05", "--garbage", "0.05", "--redeliver", "0.01"}
	if out, errs, code := clickgen(t, append([]string{"batch", "--file", filepath.Join(dir, "hits.jsonl"), "--report", batch}, garbage...)...); code != 0 {
		t.Fatalf("batch: exit %d\n%s\n%s", code, out, errs)
	}
	out, errs, code := clickgen(t, append([]string{"inventory"}, garbage...)...)
	if code != 0 {
		t.Fatalf("inventory: exit %d\n%s", code, errs)
	}
	if err := os.WriteFile(inv, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	page, errs, code := clickgen(t, "plot", "--label", "нагрузка", "--label", "<b>garbage</b>", "--inventory", inv, stress, batch)
	if code != 0 {
		t.Fatalf("plot: exit %d\n%s", code, errs)
	}
	if n := strings.Count(page, "<svg"); n != 8 {
		t.Errorf("%d charts, want 8 (rate, latency, lag, produce latency distribution, topics, partitions, days, classes)", n)
	}
	for _, want := range []string{"нагрузка", "&lt;b&gt;garbage&lt;/b&gt;", "inventory (expected) day 1", "aria-label=\"Produce latency by percentile"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

// TestPlotUsage: plot needs a report, at most one label per report, and files that are reports:
// a file that is not one is a usage error, exit 2 (issue 31; TestInputExitCodes for the rest).
func TestPlotUsage(t *testing.T) {
	notReport := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(notReport, []byte(`{"seed": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"plot"}, 2, "no report given"},
		{[]string{"plot", "--label", "a", "--label", "b", notReport}, 2, "2 labels for 1 reports"},
		{[]string{"plot", notReport}, 2, "x.json: not a clickgen report"},
		{[]string{"plot", "--inventory", notReport, notReport}, 2, "not a clickgen report"},
	} {
		_, errs, code := clickgen(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("clickgen %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}
