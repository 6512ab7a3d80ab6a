package play_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// sent is one message as a sink was handed it.
type sent struct {
	due, at time.Time
	warm    bool
}

// recordSink keeps what it is handed and when, then takes each message only after pause (a
// sink that cannot keep up).
type recordSink struct {
	*sink.Writer
	pause time.Duration
	mu    sync.Mutex
	msgs  []sent
}

func (s *recordSink) Send(ctx context.Context, m sink.Message) error {
	s.mu.Lock()
	s.msgs = append(s.msgs, sent{due: m.Due, at: time.Now(), warm: m.Warmup})
	s.mu.Unlock()
	time.Sleep(s.pause)
	return s.Writer.Send(ctx, m)
}

// TestWarmupByIntendedTime: a rate-paced run's warm-up holds exactly the messages intended
// before its pacing's start plus Warmup, however late they leave: at 1000/s for 1 s with a
// 300 ms warm-up, the first 300 messages, of which a sink taking 2 ms each hands most over
// after the warm-up's end. The sink counts them apart.
func TestWarmupByIntendedTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		shape, err := pace.Constant(1000)
		if err != nil {
			t.Fatal(err)
		}
		cut, err := pace.Until(shape, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		runner, err := pace.NewRunner(pace.ByCount(cut))
		if err != nil {
			t.Fatal(err)
		}
		snk := &recordSink{Writer: discard(t), pause: 2 * time.Millisecond}
		const warmup = 300 * time.Millisecond
		plan := play.Plan{World: smallWorld(t), Range: world.Range{From: 0}, Hits: "hits", Warmup: warmup, Workers: 1,
			Pacing: play.Pacing{Runner: runner, ByCount: true, Shape: shape}, Stop: play.Stop{Messages: 1000}}
		res, err := play.Run(context.Background(), plan, snk, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.WarmupUntil.IsZero() || !res.WarmupUntil.Equal(res.PacedFrom.Add(warmup)) {
			t.Fatalf("warm-up until %v, paced from %v: want the pacing's start plus %v", res.WarmupUntil, res.PacedFrom, warmup)
		}
		warm, lateWarm := 0, 0
		for i, m := range snk.msgs {
			if want := m.due.Before(res.WarmupUntil); m.warm != want {
				t.Fatalf("message %d intended at +%v: warm-up %v, want %v", i, m.due.Sub(res.PacedFrom), m.warm, want)
			}
			if m.warm {
				warm++
				if !m.at.Before(res.WarmupUntil) {
					lateWarm++
				}
			}
		}
		if warm != 300 || lateWarm == 0 {
			t.Errorf("%d messages in the warm-up, %d of them handed over after its end; want 300, some", warm, lateWarm)
		}
		if st := snk.Stats(); st.Warmup.Acked != 300 || st.AfterWarmup.Count() != uint64(len(snk.msgs)-300) {
			t.Errorf("the sink counted %d in the warm-up, %d after; want 300, %d", st.Warmup.Acked, st.AfterWarmup.Count(), len(snk.msgs)-300)
		}
	})
}

// TestWarmupUnpaced: an unpaced run's warm-up begins with its first message and holds those
// handed to the sink before its end, snapshots as well as hits; a run without Warmup flags
// nothing.
func TestWarmupUnpaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		snk := &recordSink{Writer: discard(t), pause: time.Millisecond}
		const warmup = 100 * time.Millisecond
		plan := play.Plan{World: smallWorld(t), Range: world.Range{From: 1, Days: 1}, Hits: "hits", Orders: "orders", Warmup: warmup, Workers: 1}
		start := time.Now()
		res, err := play.Run(context.Background(), plan, snk, nil)
		if err != nil {
			t.Fatal(err)
		}
		first := snk.msgs[0].at
		if !res.WarmupUntil.Equal(first.Add(warmup)) || !res.PacedFrom.IsZero() {
			t.Fatalf("warm-up until +%v after the start, first message at +%v: want the first message's hand-over plus %v",
				res.WarmupUntil.Sub(start), first.Sub(start), warmup)
		}
		warm := 0
		for i, m := range snk.msgs {
			if m.warm && m.at.After(res.WarmupUntil) || !m.warm && m.at.Before(res.WarmupUntil) {
				t.Fatalf("message %d handed over at +%v: warm-up %v, the warm-up ends at +%v", i, m.at.Sub(first), m.warm, warmup)
			}
			if m.warm {
				warm++
			}
		}
		// A message a millisecond: about 100 in the warm-up (the one handed over at its very
		// end may fall either side), and the snapshot's after it.
		if warm < 99 || warm > 101 || snk.msgs[len(snk.msgs)-1].warm {
			t.Errorf("%d of %d messages in the warm-up; want about 100, the last (a snapshot's) not", warm, len(snk.msgs))
		}

		none := &recordSink{Writer: discard(t)}
		plan.Warmup = 0
		if _, err := play.Run(context.Background(), plan, none, nil); err != nil {
			t.Fatal(err)
		}
		for i, m := range none.msgs {
			if m.warm {
				t.Fatalf("message %d of a run without a warm-up flagged Warmup", i)
			}
		}
	})
}

// TestWarmupValidate: a negative warm-up, or one that leaves nothing of the stop duration, is
// refused before anything is sent.
func TestWarmupValidate(t *testing.T) {
	w := smallWorld(t)
	for _, tc := range []struct {
		warmup, duration time.Duration
		want             string
	}{
		{-time.Second, 0, "warmup -1s: want a duration ≥ 0"},
		{10 * time.Second, 10 * time.Second, "warmup 10s is not shorter than the stop duration 10s"},
		{11 * time.Second, 10 * time.Second, "not shorter"},
		{9 * time.Second, 10 * time.Second, ""},
		{time.Hour, 0, ""},
	} {
		plan := play.Plan{World: w, Range: world.Range{Days: 1}, Hits: "hits", Warmup: tc.warmup, Stop: play.Stop{Duration: tc.duration}}
		err := plan.Validate()
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("warm-up %v, duration %v: %v, want %q", tc.warmup, tc.duration, err, tc.want)
		}
	}
}
