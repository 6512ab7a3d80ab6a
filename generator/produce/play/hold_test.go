package play_test

import (
	"context"
	"hash/fnv"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// holdingSink is a sink that keeps holds (sink.HoldKeeper) the way the Kafka sink does: it
// refers to the bytes it was handed, unacknowledged, until they are acknowledged lag
// messages later (or flushed), and checks at acknowledgement that the bytes are still those
// it was handed: a batch released while the sink still refers to it is rendered over by a
// later batch, and its messages change under the sink.
type holdingSink struct {
	*sink.Writer
	lag      int
	pending  []held
	flushes  int
	changed  int // messages whose bytes changed before their acknowledgement
	acked    int
	unheld   int // messages sent without a hold
	mostHeld int // most bytes referred to at once
	heldNow  int
}

type held struct {
	key, value []byte
	sum        uint64
	hold       *sink.Hold
}

func sum(key, value []byte) uint64 {
	h := fnv.New64a()
	h.Write(key)
	h.Write(value)
	return h.Sum64()
}

func (s *holdingSink) KeepsHolds() bool { return true }

func (s *holdingSink) Send(ctx context.Context, m sink.Message) error {
	if m.Hold == nil {
		s.unheld++
	} else {
		m.Hold.Acquire()
	}
	s.pending = append(s.pending, held{m.Key, m.Value, sum(m.Key, m.Value), m.Hold})
	s.heldNow += len(m.Value)
	s.mostHeld = max(s.mostHeld, s.heldNow)
	for len(s.pending) > s.lag {
		s.ack()
	}
	return s.Writer.Send(ctx, m)
}

// ack acknowledges the oldest message.
func (s *holdingSink) ack() {
	p := s.pending[0]
	s.pending = s.pending[1:]
	if sum(p.key, p.value) != p.sum {
		s.changed++
	}
	s.heldNow -= len(p.value)
	s.acked++
	if p.hold != nil {
		p.hold.Release()
	}
}

func (s *holdingSink) Flush(ctx context.Context) error {
	s.flushes++
	for len(s.pending) > 0 {
		s.ack()
	}
	return s.Writer.Flush(ctx)
}

// TestRunReleasesOnAcknowledgement: a sink that keeps holds is not flushed within a day, even
// one larger than FlushWindow (day 0 at scale 1, ~60 MB): the run releases each batch once
// the sink no longer refers to it, and never before (every message's bytes are unchanged
// when acknowledged), and flushes only at the day's end.
func TestRunReleasesOnAcknowledgement(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a day at scale 1")
	}
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		t.Fatal(err)
	}
	// Acknowledgements lag 3 batches: released batches come back to the renderer while
	// later ones are still referred to.
	snk := &holdingSink{Writer: discard(t), lag: 3 * world.BatchEvents}
	var log unitLog
	res, err := play.Run(context.Background(), play.Plan{World: w, Range: world.Range{From: 0, Days: 2}, Hits: "hits"}, snk, &log)
	if err != nil {
		t.Fatal(err)
	}
	if snk.flushes != 2 {
		t.Errorf("%d flushes in 2 days, want 2 (one per day)", snk.flushes)
	}
	if snk.changed != 0 {
		t.Errorf("%d of %d messages changed before their acknowledgement: a batch was released too early", snk.changed, snk.acked)
	}
	if snk.unheld != 0 || snk.acked != int(res.Sent) {
		t.Errorf("%d acknowledged, %d without a hold; want all %d held and acknowledged", snk.acked, snk.unheld, res.Sent)
	}
	if snk.mostHeld > play.FlushWindow {
		t.Errorf("the sink referred to %d bytes at once, want at most %d", snk.mostHeld, play.FlushWindow)
	}
	if got := log.lines[len(log.lines)-1]; !strings.Contains(got, "flushed=true") {
		t.Errorf("last line %q: the day is not reported flushed", got)
	}
}

// TestRunFlushesWhenHoldsLag: when the sink holds the day's batches past FlushWindow (it
// acknowledges nothing until flushed), the run falls back to flushing within the day, so
// what it holds stays bounded.
func TestRunFlushesWhenHoldsLag(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a day at scale 1")
	}
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		t.Fatal(err)
	}
	snk := &holdingSink{Writer: discard(t), lag: 1 << 30}
	if _, err := play.Run(context.Background(), play.Plan{World: w, Range: world.Range{From: 0, Days: 1}, Hits: "hits"}, snk, nil); err != nil {
		t.Fatal(err)
	}
	const batch = world.BatchEvents * 1500 // a batch's bytes, at most
	if snk.flushes < 2 || snk.mostHeld > play.FlushWindow+batch || snk.changed != 0 {
		t.Errorf("day 0: %d flushes, at most %d bytes held, %d changed; want ≥ 2 flushes, ≤ %d bytes, none changed",
			snk.flushes, snk.mostHeld, snk.changed, play.FlushWindow+batch)
	}
}

// TestRunReleasesWhileRendering is TestRunReleasesOnAcknowledgement small enough for -short,
// so that the race detector watches it: acknowledgements lag one batch, so batches are
// released while the world renders the next ones into the memory they hand back.
func TestRunReleasesWhileRendering(t *testing.T) {
	w, err := world.NewWorld(world.Params{Scale: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	snk := &holdingSink{Writer: discard(t), lag: world.BatchEvents}
	res, err := play.Run(context.Background(), play.Plan{World: w, Range: world.Range{From: 0, Days: 2}, Hits: "hits", Workers: 2}, snk, nil)
	if err != nil {
		t.Fatal(err)
	}
	if snk.changed != 0 || snk.acked != int(res.Sent) || snk.flushes != 2 {
		t.Errorf("%d of %d messages changed before their acknowledgement, %d sent, %d flushes; want none changed, all acknowledged, 2 flushes",
			snk.changed, snk.acked, res.Sent, snk.flushes)
	}
}
