package play_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"sync"

	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/measure/report"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// hashSink is a program's own sink: it hashes every value followed by a newline (exactly the
// bytes of `clickgen batch --file`) and counts what it took. A sink that delivers
// synchronously acknowledges in Send, so Flush has nothing to wait for.
type hashSink struct {
	mu    sync.Mutex
	h     hash.Hash
	stats sink.Stats
}

func (s *hashSink) Send(_ context.Context, m sink.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.h.Write(m.Value)
	s.h.Write([]byte{'\n'})
	t := s.stats.Topics[m.Topic]
	t.Sent++
	t.Acked++
	t.Bytes += int64(len(m.Value))
	s.stats.Topics[m.Topic] = t
	return nil
}

func (s *hashSink) Flush(context.Context) error { return nil }
func (s *hashSink) Close() error                { return nil }

func (s *hashSink) Stats() sink.Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sink.Stats{Topics: map[string]sink.TopicStats{"hits": s.stats.Topics["hits"]}}
}

// dayPrinter is an Observer that prints each unit as it is done and why the run stopped: it
// hooks those two events (play.HookUnitDone, play.HookStopped) besides the start and the end
// every observer hears.
type dayPrinter struct{}

func (dayPrinter) RunStarted(play.Start)                     {}
func (dayPrinter) RunEnded(context.Context, *play.End) error { return nil }

func (dayPrinter) UnitDone(r play.UnitResult) {
	fmt.Printf("%s: %d events, %d messages sent\n", r.Name(), r.Clean, r.Sent)
}
func (dayPrinter) Stopped(reason play.StopReason, res play.Result) {
	fmt.Printf("stopped by %s after %d messages\n", reason, res.Sent)
}

// Example plays day 0 of the canonical world into a program's own sink. The hash is the
// inventory's sha256 of day 0 (`clickgen inventory --day 0`): the same bytes, whoever sends
// them. A measurement (generator/measure) beside the program's observer makes the run's
// report; play.Finish ends the run (each observer's end work, then the sink closed).
func Example() {
	w, err := world.NewWorld(world.Params{}) // the canonical world: seed 20260601, scale 1
	if err != nil {
		panic(err)
	}
	snk := &hashSink{h: sha256.New(), stats: sink.Stats{Topics: map[string]sink.TopicStats{}}}
	plan := play.Plan{World: w, Range: world.Range{From: 0, Days: 1}, Hits: "hits"}
	// Two observers side by side: the program's own lines, and the run's measurement.
	m := measure.New(measure.Options{})
	obs := play.Observers(dayPrinter{}, m)
	ctx := context.Background()
	res, err := play.Run(ctx, plan, snk, obs)
	if err := play.Finish(ctx, snk, obs, 0, res, err); err != nil {
		panic(err)
	}
	fmt.Println("run ended:", res.Stopped)
	fmt.Printf("sha256 %x\n", snk.h.Sum(nil))
	u := m.Report().(report.Run).Units[0]
	fmt.Printf("report: %s day %d (%s), %d clean, %d sent, flushed %v\n", u.Kind, u.Day, u.Date, u.Clean, u.Sent, u.Flushed)

	// A stop condition ends a run cleanly: the first 100 messages of the same day.
	plan.Stop.Messages = 100
	if _, err := play.Run(context.Background(), plan, &hashSink{h: sha256.New(), stats: sink.Stats{Topics: map[string]sink.TopicStats{}}}, dayPrinter{}); err != nil {
		panic(err)
	}
	// Output:
	// day 0 (2026-06-01): 52100 events, 52100 messages sent
	// run ended: days
	// sha256 addb04abbf452d12a2d8d1566abf549378a741f7067ff81ea4f9d50b4bfd5a0e
	// report: hits day 0 (2026-06-01), 52100 clean, 52100 sent, flushed true
	// stopped by messages after 100 messages
}
