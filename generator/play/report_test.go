package play_test

import (
	"context"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/report"
	"github.com/clickgen/clickgen/generator/world"
)

// TestCollectorCountsClasses: a run with a report and no console. The report's collector,
// the only observer, keeps a line per unit that splits every extra into its class or a
// re-send, and what the lines count is what was sent, matching the inventory of the same
// days; the report built from the sink agrees.
func TestCollectorCountsClasses(t *testing.T) {
	w := smallWorld(t)
	g := world.Garbage{Rate: 0.05, Redeliver: 0.02}
	snk := discard(t)
	var c play.Collector
	if got := c.Units(); got == nil || len(got) != 0 {
		t.Errorf("Units() before a run = %#v, want an empty list (the report's units are [], not null)", got)
	}
	res, err := play.Run(context.Background(), play.Plan{World: w, Range: world.Range{From: 1, Days: 2, Garbage: g}, Hits: "hits"}, snk, &c)
	if err != nil {
		t.Fatal(err)
	}
	inv, err := w.Inventory(context.Background(), world.Range{From: 1, Days: 2, Garbage: g}, 0)
	if err != nil {
		t.Fatal(err)
	}
	units := c.Units()
	if len(units) != 2 {
		t.Fatalf("%d unit lines, want 2", len(units))
	}
	rep := report.Run{Report: play.NewReport(snk.Stats(), time.Second, 0, false), Units: units}
	if h := rep.Topics["hits"]; h.Sent != res.Sent || h.Sent != units[0].Sent+units[1].Sent {
		t.Errorf("report: hits sent %d; the run sent %d, its units %d + %d", h.Sent, res.Sent, units[0].Sent, units[1].Sent)
	}
	for i, u := range units {
		want := inv.Days[i]
		extras := u.Redelivered
		for _, n := range u.Garbage {
			extras += n
		}
		if u.Kind != "hits" || u.Day != want.Day || u.Date != want.Date || !u.Flushed {
			t.Errorf("unit %d = %+v, want flushed hits of day %d (%s)", i, u, want.Day, want.Date)
		}
		if u.Clean != want.Events || int64(u.Clean+extras) != u.Sent || int(u.Sent) != want.Messages {
			t.Errorf("day %d: clean %d + extras %d, sent %d; inventory: %d events, %d messages", u.Day, u.Clean, extras, u.Sent, want.Events, want.Messages)
		}
		if u.Redelivered != want.Redelivered || len(u.Garbage) == 0 {
			t.Errorf("day %d: redelivered %d, garbage %v; inventory: redelivered %d, garbage %v", u.Day, u.Redelivered, u.Garbage, want.Redelivered, want.Garbage)
		}
		for c, n := range u.Garbage {
			if want.Garbage[c] != n {
				t.Errorf("day %d class %s: sent %d, inventory %d", u.Day, c, n, want.Garbage[c])
			}
		}
	}
}
