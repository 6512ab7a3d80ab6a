package console_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/measure/console"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// smallWorld is the smoke profile's world: ~700 events a day.
func smallWorld(t testing.TB) *world.World {
	t.Helper()
	w, err := world.NewWorld(world.Params{Scale: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestPrinterEnd: the printer hears a day played and ended with its measurement before it:
// the day's line, each wait of the end with its bound (the flush of what an interrupted run
// left in flight), then the summary with the measurement's total time.
func TestPrinterEnd(t *testing.T) {
	var out, lines bytes.Buffer
	snk, err := sink.NewWriter(&out, sink.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := measure.New(measure.Options{})
	p := console.NewPrinter(&lines, console.Options{})
	obs := play.Observers(m, p)
	ctx := context.Background()
	res, err := play.Run(ctx, play.Plan{World: smallWorld(t), Range: world.Range{From: 0, Days: 1}, Hits: "hits"}, snk, obs)
	if err != nil || res.Stopped != play.StopDays {
		t.Fatalf("Run() = %v, %v; want stopped by days", res.Stopped, err)
	}
	// Three more messages queued, then an interrupt: the end flushes them, saying so first.
	for range 3 {
		if err := snk.Send(ctx, sink.Message{Topic: "hits", Value: []byte("{}")}); err != nil {
			t.Fatal(err)
		}
	}
	if err := play.Finish(ctx, snk, obs, 42*time.Second, res, context.Canceled); !strings.Contains(err.Error(), context.Canceled.Error()) {
		t.Fatalf("Finish = %v, want the run's context.Canceled", err)
	}
	got := lines.String()
	day := strings.Index(got, "clickgen: day 0 (2026-06-01): ")
	wait := strings.Index(got, "clickgen: flushing the 3 message(s) in flight, at most 42s\n")
	summary := strings.Index(got, "clickgen: hits: ")
	if day < 0 || wait < day || summary < wait || !strings.Contains(got, "clickgen: total time ") {
		t.Errorf("the printer printed\n%s\nwant the day's line, the flush's wait, then the summary", got)
	}
	if total := m.Figures().Elapsed.Round(time.Millisecond).String(); !strings.Contains(got, "clickgen: total time "+total+"\n") {
		t.Errorf("summary's total time is not the measurement's %s:\n%s", total, got)
	}
}

// TestRatePrinter: a rate-paced run's printer prints the measurement's total line once the
// run is flushed, before the topics' summary, and says where the run stopped.
func TestRatePrinter(t *testing.T) {
	var out, lines bytes.Buffer
	snk, err := sink.NewWriter(&out, sink.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	shape, err := pace.Constant(100000)
	if err != nil {
		t.Fatal(err)
	}
	runner, err := pace.NewRunner(pace.ByCount(shape))
	if err != nil {
		t.Fatal(err)
	}
	plan := play.Plan{World: smallWorld(t), Range: world.Range{From: 0, Days: 1}, Hits: "hits", Stop: play.Stop{Messages: 200},
		Pacing: play.Pacing{Runner: runner, ByCount: true, Shape: shape}}
	m := measure.New(measure.Options{MaxRate: 50000, LineEvery: time.Hour})
	p := console.NewPrinter(&lines, console.Options{LineEvery: time.Hour, Interval: m.Interval, LimitName: "--messages 200"})
	obs := play.Observers(m, p)
	ctx := context.Background()
	res, err := play.Run(ctx, plan, snk, obs)
	if err != nil || res.Stopped != play.StopMessages {
		t.Fatalf("Run() = %v, %v; want stopped by messages", res.Stopped, err)
	}
	if err := play.Finish(ctx, snk, obs, time.Minute, res, nil); err != nil {
		t.Fatal(err)
	}
	got := lines.String()
	stop := strings.Index(got, "clickgen: stopped at --messages 200 after 200 hit messages\n")
	total := strings.Index(got, "clickgen: stress total: 200 records sent, ")
	summary := strings.Index(got, "clickgen: hits: 200 sent, 200 acked, 0 failed")
	if stop < 0 || total < stop || summary < total || strings.Contains(got, "at most") {
		t.Errorf("the printer printed\n%s\nwant the stop, the stress total, then the summary, and no wait", got)
	}
}
