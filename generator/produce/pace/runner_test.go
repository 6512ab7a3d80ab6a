package pace

import (
	"context"
	"errors"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// The timing tests run in a synctest bubble: time is virtual and moves only when every
// goroutine of the bubble is blocked, so "exactly at start + due" can be asserted to the
// nanosecond.

// forever yields 0, 1, 2, … until the consumer stops.
func forever(yield func(int) bool) {
	for i := 0; yield(i); i++ {
	}
}

func newRunner(t *testing.T, s Schedule, opts ...Opt) *Runner {
	t.Helper()
	r, err := NewRunner(s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func identity(d time.Duration) time.Duration { return d }

// TestReplayExactTimes replays 1000 messages of a model day and a bit at speed 3600: each is
// sent at start + (m − m₀)/3600 to the nanosecond, none is late, and the intended time handed
// to send is the same instant.
func TestReplayExactTimes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(20260601, 1))
		models := make([]time.Duration, 1000)
		m := 7*time.Hour + 123*time.Millisecond // the first message is not at midnight
		for i := range models {
			models[i] = m
			m += time.Duration(rng.IntN(200_000)) * time.Millisecond // 0 to 200 s apart, ties included
		}
		r := newRunner(t, replay(t, 3600))

		start := time.Now()
		var got []time.Duration
		err := Run(t.Context(), r, slices.Values(models), identity, func(m time.Duration, intended time.Time) error {
			at := time.Since(start)
			if off := intended.Sub(start); off != at {
				t.Errorf("message at model %v: intended %v after start, sent %v after start", m, off, at)
			}
			got = append(got, at)
			return nil
		})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if len(got) != len(models) {
			t.Fatalf("sent %d messages, want %d", len(got), len(models))
		}
		for i, at := range got {
			want := (models[i] - models[0] + 1800) / 3600 // m/3600 rounded to the nanosecond
			if at != want {
				t.Errorf("message %d (model %v) sent at %v, want %v", i, models[i], at, want)
			}
		}
		s := r.Snapshot()
		if s.Sent != 1000 || s.MaxLag != 0 || s.Model != models[999] || s.Elapsed != got[999] {
			t.Errorf("Snapshot = %+v, want Sent 1000, MaxLag 0, Model %v, Elapsed %v", s, models[999], got[999])
		}
	})
}

// TestLateThenCatchUp: one send blocks for 3.5 s of a one-per-second live schedule. The three
// messages that fell due meanwhile go at once with their lag recorded; the next is on its own
// time again, so the schedule has not drifted.
func TestLateThenCatchUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// One message a model minute, replayed at ×60: one a second.
		models := make([]time.Duration, 12)
		for i := range models {
			models[i] = time.Duration(i) * time.Minute
		}
		r := newRunner(t, replay(t, DefaultSpeed))
		start := time.Now()
		type sent struct{ at, intended, lag time.Duration }
		var got []sent
		err := Run(t.Context(), r, slices.Values(models), identity, func(m time.Duration, intended time.Time) error {
			got = append(got, sent{time.Since(start), intended.Sub(start), r.Snapshot().Lag})
			if len(got) == 4 {
				time.Sleep(3500 * time.Millisecond) // a slow sink
			}
			return nil
		})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		for i, g := range got {
			due := time.Duration(i) * time.Second
			at := due
			if i >= 4 && i <= 6 {
				at = 6500 * time.Millisecond // released together when the slow send returns
			}
			if g.at != at || g.intended != due || g.lag != at-due {
				t.Errorf("message %d: sent at %v (intended %v, lag %v), want sent at %v (intended %v, lag %v)",
					i, g.at, g.intended, g.lag, at, due, at-due)
			}
		}
		if s := r.Snapshot(); s.MaxLag != 2500*time.Millisecond || s.Lag != 0 || s.Sent != 12 {
			t.Errorf("Snapshot = %+v, want MaxLag 2.5s, Lag 0, Sent 12", s)
		}
	})
}

func TestCancel(t *testing.T) {
	t.Run("while waiting", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			go func() {
				time.Sleep(2500 * time.Millisecond)
				cancel()
			}()
			r := newRunner(t, byCount(t, "1/s", 0))
			start := time.Now()
			sent := 0
			err := Run(ctx, r, forever, nil, func(int, time.Time) error { sent++; return nil })
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Run = %v, want context.Canceled", err)
			}
			if d := time.Since(start); d != 2500*time.Millisecond {
				t.Errorf("Run returned %v after start, want 2.5s, the moment of cancellation", d)
			}
			if sent != 3 {
				t.Errorf("sent %d messages, want 3 (due at 0s, 1s, 2s)", sent)
			}
		})
	})
	t.Run("from send", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			r := newRunner(t, byCount(t, "1000/s", 0))
			sent := 0
			err := Run(ctx, r, forever, nil, func(i int, _ time.Time) error {
				sent++
				if i == 5 {
					cancel()
				}
				return nil
			})
			if !errors.Is(err, context.Canceled) || sent != 6 {
				t.Errorf("Run = %v after %d sends, want context.Canceled after 6", err, sent)
			}
		})
	})
	t.Run("before start", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		r := newRunner(t, byCount(t, "1/s", 0))
		err := Run(ctx, r, forever, nil, func(int, time.Time) error {
			t.Error("send called after cancellation")
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	})
}

func TestSendError(t *testing.T) {
	boom := errors.New("broker gone")
	r := newRunner(t, byCount(t, "1000000/s", 0))
	sent := 0
	err := Run(t.Context(), r, forever, nil, func(i int, _ time.Time) error {
		sent++
		if i == 2 {
			return boom
		}
		return nil
	})
	if err != boom || sent != 3 {
		t.Errorf("Run = %v after %d sends, want the send error unchanged after 3", err, sent)
	}
}

// TestScheduleEnd: a shape cut off at 1 s sends exactly rate × 1 s messages, on time, and
// Run ends without error; Wait then keeps saying ErrEnd.
func TestScheduleEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRunner(t, byCount(t, "100/s", time.Second))
		start := time.Now()
		var last time.Duration
		sent := 0
		err := Run(t.Context(), r, forever, nil, func(int, time.Time) error {
			sent, last = sent+1, time.Since(start)
			return nil
		})
		if err != nil || sent != 100 || last != 990*time.Millisecond {
			t.Errorf("Run = %v after %d sends, the last at %v; want nil after 100, the last at 990ms", err, sent, last)
		}
		if _, err := r.Wait(t.Context(), 0); err != ErrEnd {
			t.Errorf("Wait after the end = %v, want ErrEnd", err)
		}
	})
}

// TestMaxRateCaps: a schedule of 10000/s under a 1000/s ceiling sends 1000/s (plus the
// limiter's burst), records the lag it causes instead of hiding it, and stops exactly at the
// context's deadline.
func TestMaxRateCaps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		r := newRunner(t, byCount(t, "10000/s", 0), WithMaxRate(1000))
		start := time.Now()
		sent := 0
		err := Run(ctx, r, forever, nil, func(int, time.Time) error { sent++; return nil })
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Run = %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d != 10*time.Second {
			t.Errorf("Run returned %v after start, want 10s, the deadline", d)
		}
		const burst = 10 // 1000/s / 100
		if sent < 10000 || sent > 10000+burst+1 {
			t.Errorf("sent %d messages in 10s under a 1000/s ceiling, want 10000 to %d", sent, 10000+burst+1)
		}
		// Message ~10000 was due at ~1 s and went at ~10 s.
		if s := r.Snapshot(); s.MaxLag < 8*time.Second {
			t.Errorf("MaxLag = %v, want ≥ 8s: the ceiling's delay must show as lag", s.MaxLag)
		}
	})
}

// TestMaxRateAboveSchedule: a ceiling above the schedule's rate changes no send time.
func TestMaxRateAboveSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRunner(t, byCount(t, "100/s", time.Second), WithMaxRate(1000))
		start := time.Now()
		i := 0
		err := Run(t.Context(), r, forever, nil, func(int, time.Time) error {
			if at, want := time.Since(start), time.Duration(i)*10*time.Millisecond; at != want {
				t.Errorf("message %d sent at %v, want %v", i, at, want)
			}
			i++
			return nil
		})
		if err != nil || i != 100 || r.Snapshot().MaxLag != 0 {
			t.Errorf("Run = %v after %d sends with MaxLag %v; want nil after 100, MaxLag 0", err, i, r.Snapshot().MaxLag)
		}
	})
}

func TestProgress(t *testing.T) {
	t.Run("steady", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var got []Snapshot
			r := newRunner(t, byCount(t, "10/s", 5*time.Minute),
				WithProgress(time.Minute, func(s Snapshot) { got = append(got, s) }))
			if err := Run(t.Context(), r, forever, nil, func(int, time.Time) error { return nil }); err != nil {
				t.Fatal(err)
			}
			// At k minutes, messages 0 … 600k−1 have gone; 600k is due at that very moment.
			if len(got) != 4 {
				t.Fatalf("%d progress calls in 5 minutes, want 4: %+v", len(got), got)
			}
			for i, s := range got {
				k := uint64(i + 1)
				if s.Elapsed != time.Duration(k)*time.Minute || s.Sent != 600*k {
					t.Errorf("progress call %d = %+v, want Elapsed %dm0s, Sent %d", i, s, k, 600*k)
				}
			}
		})
	})
	t.Run("during a long wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var got []Snapshot
			r := newRunner(t, replay(t, 1), WithProgress(time.Minute, func(s Snapshot) { got = append(got, s) }))
			start := time.Now()
			var last time.Duration
			models := []time.Duration{0, 150 * time.Second}
			err := Run(t.Context(), r, slices.Values(models), identity, func(time.Duration, time.Time) error {
				last = time.Since(start)
				return nil
			})
			if err != nil || last != 150*time.Second {
				t.Errorf("Run = %v, last message at %v; want nil, at 2m30s", err, last)
			}
			if len(got) != 2 || got[0].Elapsed != time.Minute || got[1].Elapsed != 2*time.Minute || got[1].Sent != 1 {
				t.Errorf("progress calls %+v, want two, at 1m0s and 2m0s, with Sent 1", got)
			}
		})
	})
	t.Run("after a stalled send", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var got []time.Duration
			r := newRunner(t, byCount(t, "1/s", 250*time.Second),
				WithProgress(time.Minute, func(s Snapshot) { got = append(got, s.Elapsed) }))
			err := Run(t.Context(), r, forever, nil, func(i int, _ time.Time) error {
				if i == 0 {
					time.Sleep(200 * time.Second)
				}
				return nil
			})
			// The ticks at 1, 2 and 3 minutes fall inside the stalled send: one call when it
			// returns, then back on the minute grid.
			want := []time.Duration{200 * time.Second, 4 * time.Minute}
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("Run = %v, progress at %v; want nil, progress at %v", err, got, want)
			}
		})
	})
}

// TestSnapshotConcurrent reads Snapshot from another goroutine while the loop runs (the race
// detector checks the sharing) and sees counters that only grow.
func TestSnapshotConcurrent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRunner(t, byCount(t, "1000/s", 2*time.Second))
		done := make(chan struct{})
		polled := make(chan Snapshot)
		go func() {
			var prev Snapshot
			for {
				select {
				case <-done:
					polled <- prev
					return
				case <-time.After(time.Millisecond):
				}
				s := r.Snapshot()
				if s.Sent < prev.Sent || s.MaxLag < prev.MaxLag || s.Elapsed < prev.Elapsed {
					t.Errorf("Snapshot went back: %+v after %+v", s, prev)
				}
				prev = s
			}
		}()
		err := Run(t.Context(), r, forever, nil, func(i int, _ time.Time) error {
			if i%100 == 0 {
				time.Sleep(3 * time.Millisecond) // some lag to publish
			}
			return nil
		})
		close(done)
		last := <-polled
		if err != nil || last.Sent < 1900 || last.MaxLag == 0 {
			t.Errorf("Run = %v; last polled snapshot %+v, want nil and one near the end with lag", err, last)
		}
	})
}

func TestNewRunnerErrors(t *testing.T) {
	s := byCount(t, "1/s", 0)
	fn := func(Snapshot) {}
	for _, tc := range []struct {
		name string
		s    Schedule
		opts []Opt
	}{
		{"nil schedule", nil, nil},
		{"negative max rate", s, []Opt{WithMaxRate(-1)}},
		{"NaN max rate", s, []Opt{WithMaxRate(Rate(math.NaN()))}},
		{"infinite max rate", s, []Opt{WithMaxRate(Rate(math.Inf(1)))}},
		{"max rate above 1e9/s", s, []Opt{WithMaxRate(2e9)}},
		{"zero progress interval", s, []Opt{WithProgress(0, fn)}},
		{"nil progress function", s, []Opt{WithProgress(time.Second, nil)}},
	} {
		if r, err := NewRunner(tc.s, tc.opts...); err == nil {
			t.Errorf("NewRunner(%s) = %v, nil; want an error", tc.name, r)
		}
	}
}

func TestReplayErrors(t *testing.T) {
	for _, speed := range []float64{0, -60, math.NaN(), math.Inf(1)} {
		if _, err := Replay(speed); err == nil {
			t.Errorf("Replay(%v): no error, want one", speed)
		}
	}
}

// byCount is the schedule of the shape spec, cut off at end unless end is 0.
func byCount(t *testing.T, spec string, end time.Duration) Schedule {
	t.Helper()
	must := pacerOf(t)
	p := must(ParseShape(spec))
	if end > 0 {
		p = must(Until(p, end))
	}
	return ByCount(p)
}

func replay(t *testing.T, speed float64) Schedule {
	t.Helper()
	s, err := Replay(speed)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// BenchmarkRunnerWait measures the runner's own cost per message: a schedule whose every
// message is already due, no ceiling, no progress.
func BenchmarkRunnerWait(b *testing.B) {
	r, err := NewRunner(func(uint64, time.Duration) (time.Duration, bool) { return 0, true })
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	b.ReportAllocs()
	var n float64
	for b.Loop() {
		if _, err := r.Wait(ctx, 0); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(n/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkRun is BenchmarkRunnerWait through the Run loop, with an iterator and a send.
func BenchmarkRun(b *testing.B) {
	r, err := NewRunner(func(uint64, time.Duration) (time.Duration, bool) { return 0, true })
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var n float64
	msgs := iter.Seq[int](func(yield func(int) bool) {
		for i := 0; b.Loop() && yield(i); i++ {
		}
	})
	if err := Run(b.Context(), r, msgs, nil, func(int, time.Time) error { n++; return nil }); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(n/b.Elapsed().Seconds(), "msgs/s")
}
