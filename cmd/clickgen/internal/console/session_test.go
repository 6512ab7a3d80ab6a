package console_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/console"
	"github.com/clickgen/clickgen/generator/pace"
	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/report"
	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
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

// TestSessionFinish: a session plays a day, and Finish prints the summary, writes a report
// whose units are the day's, and closes the sink; an interrupted run says so and still wraps
// context.Canceled.
func TestSessionFinish(t *testing.T) {
	var out, lines bytes.Buffer
	snk, err := sink.NewWriter(&out, sink.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := console.NewSession(&lines, snk, time.Minute, 0, 0, nil)
	res, err := s.Play(context.Background(), play.Plan{World: smallWorld(t), Range: world.Range{From: 0, Days: 1}, Hits: "hits"})
	if err != nil || res.Stopped != play.StopDays {
		t.Fatalf("Play() = %v, %v; want stopped by days", res.Stopped, err)
	}
	reportPath := filepath.Join(t.TempDir(), "r.json")
	err = s.Finish(context.Canceled, reportPath)
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "interrupted: the summary above says exactly what was acknowledged") {
		t.Errorf("Finish(canceled) = %v, want the interrupted explanation wrapping context.Canceled", err)
	}
	if !strings.Contains(lines.String(), "clickgen: hits: ") {
		t.Errorf("Finish printed %q, want the summary", lines.String())
	}
	data, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Interrupted bool
		Units       []report.Unit
	}
	if err := json.Unmarshal(data, &rep); err != nil || !rep.Interrupted || len(rep.Units) != 1 {
		t.Errorf("report = %s (%v); want interrupted and one unit", data, err)
	}
	if err := snk.Send(context.Background(), sink.Message{Topic: "hits", Value: []byte("{}")}); !errors.Is(err, sink.ErrClosed) {
		t.Errorf("Send after Finish = %v, want sink.ErrClosed", err)
	}
}

// TestRateSession: a rate-paced run's session prints the meter's final line once the run is
// flushed, and its report is the stress report: the shape, the ceiling, what was released and
// what stopped it.
func TestRateSession(t *testing.T) {
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
	s := console.NewRateSession(&lines, snk, time.Minute, plan, time.Hour, 50000)
	if res, err := s.Play(context.Background(), plan); err != nil || res.Stopped != play.StopMessages {
		t.Fatalf("Play() = %v, %v; want stopped by messages", res.Stopped, err)
	}
	reportPath := filepath.Join(t.TempDir(), "r.json")
	if err := s.Finish(nil, reportPath); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(lines.String(), "clickgen: stress total: 200 records sent") {
		t.Errorf("the session printed %q, want the stress line", lines.String())
	}
	data, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Stress
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if st := rep.Stress; st.Shape != "100000/s" || st.MaxRatePerS != 50000 || st.Released != 200 || st.Stopped != "messages" {
		t.Errorf("stress report %+v, want shape 100000/s, ceiling 50000, 200 released, stopped by messages", st)
	}
}

// TestReportEvery: the report's interval is a sixtieth of the planned duration in whole
// seconds, between 1 s and 5 s, never longer than the console's line period, and the line's
// period when the duration is not known.
func TestReportEvery(t *testing.T) {
	s := time.Second
	for _, tc := range []struct{ duration, line, want time.Duration }{
		{15 * s, 5 * s, s}, {59 * s, 5 * s, s}, {2 * time.Minute, 5 * s, 2 * s}, {10 * time.Minute, 5 * s, 5 * s},
		{time.Hour, 5 * s, 5 * s}, {time.Hour, 10 * s, 5 * s}, {15 * s, 500 * time.Millisecond, 500 * time.Millisecond},
		{0, 5 * s, 5 * s}, {0, 2 * s, 2 * s},
	} {
		if got := console.ReportEvery(tc.duration, tc.line); got != tc.want {
			t.Errorf("ReportEvery(%v, %v) = %v, want %v", tc.duration, tc.line, got, tc.want)
		}
	}
}
