package play_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

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

// unitLog is an Observer that records what it hears, one line per call.
type unitLog struct {
	lines []string
}

func (l *unitLog) RunStarted(play.Start)                     {}
func (l *unitLog) RunEnded(context.Context, *play.End) error { return nil }

func (l *unitLog) UnitStarted(u play.Unit) { l.lines = append(l.lines, "start "+u.Name()) }
func (l *unitLog) UnitDone(r play.UnitResult) {
	l.lines = append(l.lines, fmt.Sprintf("done %s flushed=%v sent=%d", r.Name(), r.Flushed, r.Sent))
}
func (l *unitLog) Stopped(reason play.StopReason, res play.Result) {
	l.lines = append(l.lines, fmt.Sprintf("stopped %s %d", reason, res.Sent))
}

func discard(t testing.TB) *sink.Writer {
	t.Helper()
	w, err := sink.NewWriter(io.Discard, sink.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestRunOrder: the hits of the run days come first, each day flushed, then the snapshots
// they send (run day X sends the snapshot of X−1), each flushed; the result counts them.
func TestRunOrder(t *testing.T) {
	w := smallWorld(t)
	snk := discard(t)
	var log unitLog
	res, err := play.Run(context.Background(), play.Plan{World: w, Range: world.Range{From: 1, Days: 2}, Hits: "hits", Orders: "orders"}, snk, &log)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, l := range log.lines {
		kinds = append(kinds, strings.SplitN(l, " (", 2)[0])
	}
	want := "start day 1|done day 1|start day 2|done day 2|start snapshot of day 0|done snapshot of day 0|start snapshot of day 1|done snapshot of day 1"
	if got := strings.Join(kinds, "|"); got != want {
		t.Errorf("units:\n got %s\nwant %s", got, want)
	}
	for _, l := range log.lines {
		if strings.HasPrefix(l, "done") && !strings.Contains(l, "flushed=true") {
			t.Errorf("unit not flushed: %s", l)
		}
	}
	st := snk.Stats()
	if res.Stopped != play.StopDays || res.Sent != st.Topics["hits"].Acked || res.Snaps != 2 || res.FirstDay != 1 || res.LastDay != 2 {
		t.Errorf("result %+v; hits acked %d", res, st.Topics["hits"].Acked)
	}
}

// failingSink fails every flush as a sink whose messages were refused does.
type failingSink struct{ *sink.Writer }

func (f failingSink) Flush(context.Context) error {
	return &sink.DeliveryError{Failed: 1, Topic: "hits", Err: errors.New("refused")}
}

// TestRunNamesTheIncompleteDay: a delivery failure ends the run naming the unit that is not
// delivered whole.
func TestRunNamesTheIncompleteDay(t *testing.T) {
	_, err := play.Run(context.Background(), play.Plan{World: smallWorld(t), Range: world.Range{From: 3, Days: 2}, Hits: "hits"}, failingSink{discard(t)}, nil)
	var ie *play.IncompleteError
	if !errors.As(err, &ie) || ie.Unit.Day != 3 || ie.Unit.Kind != play.HitsUnit || !strings.Contains(err.Error(), "day 3 (2026-06-04) is incomplete: ") {
		t.Errorf("Run = %v, want day 3 named incomplete", err)
	}
	var de *sink.DeliveryError
	if !errors.As(err, &de) {
		t.Errorf("%v does not unwrap to the sink's DeliveryError", err)
	}
}

// TestRunStopMessages: a message limit ends the run cleanly, flushed, after exactly that many
// hit messages, and no snapshot is sent.
func TestRunStopMessages(t *testing.T) {
	snk := discard(t)
	var log unitLog
	res, err := play.Run(context.Background(), play.Plan{World: smallWorld(t), Range: world.Range{From: 1, Days: 2}, Hits: "hits", Orders: "orders",
		Stop: play.Stop{Messages: 1000}}, snk, &log)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != play.StopMessages || res.Sent != 1000 || res.Snaps != 0 || snk.Stats().Topics["hits"].Acked != 1000 {
		t.Errorf("result %+v, acked %d; want stopped by messages after 1000, no snapshot", res, snk.Stats().Topics["hits"].Acked)
	}
	if last := log.lines[len(log.lines)-1]; last != "stopped messages 1000" {
		t.Errorf("last observer call %q", last)
	}
}

// TestRunCancelled: a cancelled context is not a stop condition: Run returns its error.
func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := play.Run(ctx, play.Plan{World: smallWorld(t), Range: world.Range{From: 0, Days: 1}, Hits: "hits"}, discard(t), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run(cancelled) = %v, want context.Canceled", err)
	}
}

func TestPlanValidate(t *testing.T) {
	w := smallWorld(t)
	for _, tc := range []struct {
		plan play.Plan
		want string // "" when valid
	}{
		{play.Plan{World: w, Range: world.Range{Days: 1}, Hits: "hits"}, ""},
		{play.Plan{World: w, Hits: "hits", Stop: play.Stop{Messages: 5}}, ""},
		{play.Plan{Range: world.Range{Days: 1}, Hits: "hits"}, "no world"},
		{play.Plan{World: w, Range: world.Range{Days: 1}}, "nothing to send"},
		{play.Plan{World: w, Range: world.Range{Days: -1}, Hits: "hits"}, "days -1"},
		{play.Plan{World: w, Range: world.Range{From: -1, Days: 1}, Hits: "hits"}, "day -1: model days start at 0"},
		{play.Plan{World: w, Range: world.Range{From: world.MaxDay + 1}, Hits: "hits"}, "the last model day"},
		{play.Plan{World: w, Range: world.Range{Days: 1, Segment: world.Segment{I: 3, N: 2}}, Hits: "hits"}, "segment 3/2"},
		{play.Plan{World: w, Range: world.Range{Days: 1, Garbage: world.Garbage{Rate: -1}}, Hits: "hits"}, "garbage.rate -1"},
		{play.Plan{World: w, Orders: "orders"}, "bounded range"},
		{play.Plan{World: w, Range: world.Range{Days: 1}, Hits: "hits", Workers: -2}, "workers -2"},
		{play.Plan{World: w, Range: world.Range{Days: 1}, Hits: "hits", Pacing: play.Pacing{ByCount: true}}, "needs a runner"},
	} {
		err := tc.plan.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Validate(%+v) = %v, want %q", tc.plan, err, tc.want)
		}
	}
}

// slowSink takes every message only after a pause, like a cluster that cannot keep up.
type slowSink struct {
	*sink.Writer
	pause time.Duration
}

func (s slowSink) Send(ctx context.Context, m sink.Message) error {
	time.Sleep(s.pause)
	return s.Writer.Send(ctx, m)
}

// TestStopDurationIsWallClock: a rate-paced run whose sink cannot keep up still ends at its
// duration (issue 11 item 9: a 15 s stress run went on for 22.7 s sending late messages).
// 20000/s for 200 ms schedules 4000 messages; a sink taking 1 ms each manages a few hundred
// in that time, so a run that sent them all would have overrun by seconds.
func TestStopDurationIsWallClock(t *testing.T) {
	shape, err := pace.Constant(20000)
	if err != nil {
		t.Fatal(err)
	}
	const d = 200 * time.Millisecond
	cut, err := pace.Until(shape, d)
	if err != nil {
		t.Fatal(err)
	}
	runner, err := pace.NewRunner(pace.ByCount(cut))
	if err != nil {
		t.Fatal(err)
	}
	snk := slowSink{discard(t), time.Millisecond}
	var log unitLog
	res, err := play.Run(context.Background(), play.Plan{World: smallWorld(t), Range: world.Range{From: 0}, Hits: "hits",
		Pacing: play.Pacing{Runner: runner, ByCount: true, Shape: shape}, Stop: play.Stop{Duration: d}}, snk, &log)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stopped != play.StopDuration || res.Sent >= 4000 || res.Sent == 0 {
		t.Errorf("stopped by %q after %d of the 4000 scheduled messages; want the duration to cut the late ones", res.Stopped, res.Sent)
	}
	if acked := snk.Stats().Topics["hits"].Acked; acked != res.Sent {
		t.Errorf("%d acknowledged of %d sent: the stop must flush", acked, res.Sent)
	}
}

// windowSink counts flushes and the most bytes sent between two of them. It stands for a
// sink that refers to what it was sent until a flush: it keeps no holds (the Writer it
// wraps copies every message, and says so).
type windowSink struct {
	*sink.Writer
	flushes       int
	pending, most int
}

func (s *windowSink) KeepsHolds() bool { return false }

func (s *windowSink) Send(ctx context.Context, m sink.Message) error {
	s.pending += len(m.Value)
	s.most = max(s.most, s.pending)
	return s.Writer.Send(ctx, m)
}

func (s *windowSink) Flush(ctx context.Context) error {
	s.flushes++
	s.pending = 0
	return s.Writer.Flush(ctx)
}

// TestRunFlushesWithinADay: a day larger than FlushWindow (day 0 at scale 1, ~60 MB) is
// flushed in windows, so the batches it holds stay bounded, and once more at its end.
func TestRunFlushesWithinADay(t *testing.T) {
	snk := &windowSink{Writer: discard(t)}
	playDayZero(t, snk)
	const batch = world.BatchEvents * 1500 // a batch's bytes, at most
	if snk.flushes < 2 || snk.most > play.FlushWindow+batch {
		t.Errorf("day 0: %d flushes, at most %d bytes between two; want ≥ 2 and ≤ %d", snk.flushes, snk.most, play.FlushWindow+batch)
	}
}

// playDayZero plays day 0 at scale 1 (~60 MB, more than FlushWindow) into snk and checks
// that the day is reported flushed; it skips in short mode.
func playDayZero(t *testing.T, snk sink.Sink) {
	t.Helper()
	if testing.Short() {
		t.Skip("plays a day at scale 1")
	}
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		t.Fatal(err)
	}
	var log unitLog
	if _, err := play.Run(context.Background(), play.Plan{World: w, Range: world.Range{From: 0, Days: 1}, Hits: "hits"}, snk, &log); err != nil {
		t.Fatal(err)
	}
	if got := log.lines[len(log.lines)-1]; !strings.Contains(got, "flushed=true") {
		t.Errorf("last line %q: the day is not reported flushed", got)
	}
}

// TestRunIntoAFileFlushesOnceADay: the file writer copies what it is sent, so a run releases
// each batch once it is sent rather than holding a day's bytes to flushes in windows (the
// batch's memory, still in the cache, renders the next): day 0 at scale 1 (~60 MB) is
// flushed once, at its end, and reported flushed.
func TestRunIntoAFileFlushesOnceADay(t *testing.T) {
	snk := &countingWriter{Writer: discard(t)}
	playDayZero(t, snk)
	if snk.flushes != 1 {
		t.Errorf("day 0 into a file: %d flushes, want 1 (its end): the writer refers to nothing it was sent", snk.flushes)
	}
}

// countingWriter is the file writer, counting flushes; it keeps holds as the writer does.
type countingWriter struct {
	*sink.Writer
	flushes int
}

func (s *countingWriter) Flush(ctx context.Context) error {
	s.flushes++
	return s.Writer.Flush(ctx)
}

// TestReplayScheduleEndIsAnError is issue 24 item 6 in the engine: a model-time schedule that
// ends (its due time no longer fits a time.Duration) is a failure of the run, not a clean
// stop at the duration limit.
func TestReplayScheduleEndIsAnError(t *testing.T) {
	runner, err := pace.NewRunner(func(n uint64, _ time.Duration) (time.Duration, bool) { return 0, n < 3 })
	if err != nil {
		t.Fatal(err)
	}
	res, err := play.Run(context.Background(), play.Plan{World: smallWorld(t), Range: world.Range{From: 0, Days: 1}, Hits: "hits",
		Pacing: play.Pacing{Runner: runner}}, discard(t), nil)
	if err == nil || !strings.Contains(err.Error(), "the replay schedule ends at model time") || res.Stopped != "" {
		t.Errorf("Run with a replay schedule that ends: %+v, %v; want an error, no stop reason", res, err)
	}
}
