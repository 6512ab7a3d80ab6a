package play_test

import (
	"context"
	"testing"

	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/report"
	"github.com/clickgen/clickgen/generator/world"
)

// unitReports keeps the report line of every unit done.
type unitReports struct{ units []report.Unit }

func (l *unitReports) UnitStarted(play.Unit)                {}
func (l *unitReports) UnitDone(r play.UnitResult)           { l.units = append(l.units, play.NewUnitReport(r)) }
func (l *unitReports) Stopped(play.StopReason, play.Result) {}

// TestUnitReportCountsClasses: a garbage run's unit lines split every extra into its class or
// a re-send, and what they count is what was sent, matching the inventory of the same days.
func TestUnitReportCountsClasses(t *testing.T) {
	w := smallWorld(t)
	g := world.Garbage{Rate: 0.05, Redeliver: 0.02}
	snk := discard(t)
	var log unitReports
	if _, err := play.Run(context.Background(), play.Plan{World: w, From: 1, Days: 2, Hits: "hits", Garbage: g}, snk, &log); err != nil {
		t.Fatal(err)
	}
	inv, err := w.Inventory(context.Background(), 1, 2, world.PlayOptions{}, g)
	if err != nil {
		t.Fatal(err)
	}
	if len(log.units) != 2 {
		t.Fatalf("%d unit lines, want 2", len(log.units))
	}
	for i, u := range log.units {
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
