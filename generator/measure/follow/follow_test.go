package follow

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/clickgen/clickgen/generator/field"
)

// fakeAdmin answers FetchOffsets with the commits a test sets.
type fakeAdmin struct {
	mu      sync.Mutex
	commits map[string]map[int32]int64 // group -> partition of hits -> committed offset
}

func (a *fakeAdmin) set(group string, part int32, at int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.commits[group] == nil {
		a.commits[group] = map[int32]int64{}
	}
	a.commits[group][part] = at
}

func (a *fakeAdmin) FetchOffsets(_ context.Context, group string) (kadm.OffsetResponses, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c, ok := a.commits[group]
	if !ok {
		return nil, kerr.GroupIDNotFound
	}
	resp := kadm.OffsetResponses{}
	for p, at := range c {
		resp.Add(kadm.OffsetResponse{Offset: kadm.Offset{Topic: "hits", Partition: p, At: at}})
	}
	return resp, nil
}

func newTest(t *testing.T, groups ...string) (*Follower, *fakeAdmin) {
	t.Helper()
	a := &fakeAdmin{commits: map[string]map[int32]int64{}}
	f, err := New(a, Options{Groups: groups, Topics: []string{"hits"}, Every: MinEvery})
	if err != nil {
		t.Fatal(err)
	}
	return f, a
}

// TestRunsAndRelease: consecutive offsets with dues within Resolution share one run; a commit
// inside a run takes part of it; acknowledgements out of offset order are kept in order and
// counted; one that arrives after the group committed past it is charged from the first poll
// that saw it taken; what is taken is released.
func TestRunsAndRelease(t *testing.T) {
	f, a := newTest(t, "g")
	due := time.Now().Add(-time.Second)
	for o := int64(0); o < 100; o++ {
		f.Acked(Ack{Topic: "hits", Partition: 0, Offset: o, Due: due, Intended: true})
	}
	f.Acked(Ack{Topic: "hits", Partition: 0, Offset: 102, Due: due.Add(time.Second), Intended: true})
	f.Acked(Ack{Topic: "hits", Partition: 0, Offset: 101, Due: due.Add(time.Second), Intended: true}) // out of order
	f.Acked(Ack{Topic: "other", Partition: 0, Offset: 0, Due: due, Intended: true})                   // not a run topic
	g := f.groups[0]
	p := g.parts[tp{"hits", 0}]
	if n := len(p.runs) - p.head; n != 3 || p.pending != 102 || p.reordered != 1 {
		t.Fatalf("runs %d pending %d reordered %d, want 3, 102, 1: %+v", n, p.pending, p.reordered, p.runs[p.head:])
	}
	if r := p.runs[p.head+1]; r.first != 101 {
		t.Errorf("second run starts at %d, want 101 (offset order)", r.first)
	}
	a.set("g", 0, 40)
	f.poll(context.Background())
	if p.pending != 62 || p.runs[p.head].first != 40 || g.hist.Count() != 40 || g.hist.Quantile(0.5) < time.Second {
		t.Errorf("after commit 40: pending %d, head run %+v, taken %d, p50 %v; want 62, from 40, 40, ≥ 1s",
			p.pending, p.runs[p.head], g.hist.Count(), g.hist.Quantile(0.5))
	}
	a.set("g", 0, 103)
	f.poll(context.Background())
	if p.pending != 0 || len(p.runs) != 0 || g.hist.Count() != 102 {
		t.Errorf("after commit 103: pending %d, runs %d, taken %d; want 0, 0 (released), 102", p.pending, len(p.runs), g.hist.Count())
	}
	// Offset 100 is acknowledged after the group took it: charged from the poll that saw 103.
	seen := p.history[len(p.history)-1].at
	f.Acked(Ack{Topic: "hits", Partition: 0, Offset: 100, Due: seen.Add(-3 * time.Second), Intended: true})
	if p.late != 1 || g.hist.Count() != 103 || g.hist.Max() != 3*time.Second {
		t.Errorf("late ack: late %d, taken %d, max %v; want 1, 103, 3s exactly", p.late, g.hist.Count(), g.hist.Max())
	}
	res := f.Finish(context.Background(), false, nil)
	if err := res.Err(); err != nil || !res.Groups[0].Drained || f.unknown != 1 {
		t.Errorf("Finish = %+v, %v (unknown acks %d); want drained, one unknown", res, err, f.unknown)
	}
	// The most held at a poll: runs 40–99, 101 and 102 after the commit at 40.
	if b := res.Groups[0].PeakStateBytes; b != 3*24 {
		t.Errorf("peak_state_bytes = %d, want 72 (3 runs of 24 B)", b)
	}
}

// TestFinishNamesLag: a group that took nothing (it does not even exist) is not drained after
// the timeout: Finish names it and its lag per partition; a drained group beside it is not named.
func TestFinishNamesLag(t *testing.T) {
	f, a := newTest(t, "ghost", "ok")
	f.opt.Timeout = 20 * time.Millisecond
	for o := int64(0); o < 7; o++ {
		f.Acked(Ack{Topic: "hits", Partition: int32(o % 2), Offset: o / 2, Due: time.Now()})
	}
	a.set("ok", 0, 4)
	a.set("ok", 1, 3)
	res := f.Finish(context.Background(), false, nil)
	err := res.Err()
	if err == nil || !strings.Contains(err.Error(), "group ghost (lag hits/0 4, hits/1 3)") || strings.Contains(err.Error(), "group ok") {
		t.Fatalf("Finish error = %v, want group ghost and its lag named, not ok", err)
	}
	var nd *NotDrainedError
	if !errors.As(err, &nd) || len(nd.Groups) != 1 || nd.Timeout <= 0 || strings.Contains(err.Error(), "--") {
		t.Errorf("Finish error = %#v: want a *NotDrainedError with one group and the timeout, naming no flag", err)
	}
	ghost, ok := res.Groups[0], res.Groups[1]
	if ghost.Name != "ghost" || ghost.Drained || ghost.Latency.Count() != 0 || !ok.Drained || ok.Latency.Count() != 7 || res.MeasuredFrom != "handed to producer" {
		t.Errorf("Finish = %+v: want ghost not drained, ok drained with 7 taken, measured from handed to producer", res)
	}
	if got := ghost.LagText(); got != "hits/0 4, hits/1 3" {
		t.Errorf("ghost's lag %q, want hits/0 4, hits/1 3", got)
	}
}

func TestOptionsValidate(t *testing.T) {
	long := strings.Repeat("g", MaxGroupName+1)
	for _, o := range []Options{{}, {Groups: []string{""}}, {Groups: []string{"g"}, Every: -1}, {Groups: []string{"g"}, Timeout: -1},
		// Issue 29 N9 and N12: no floor on the poll period, names printed raw.
		{Groups: []string{"g"}, Every: time.Nanosecond}, {Groups: []string{"g"}, Every: MinEvery - 1},
		{Groups: []string{"a\nb"}}, {Groups: []string{"g\x00"}}, {Groups: []string{long}}, {Groups: []string{"\xff"}},
	} {
		var fe *field.Error
		if _, err := New(&fakeAdmin{}, o); err == nil || !errors.As(err, &fe) {
			t.Errorf("New(%+v) = %v, want refused naming the field", o, err)
		}
	}
	for _, o := range []Options{{Groups: []string{"g"}, Every: MinEvery}, {Groups: []string{"clickhouse group-1 ü", long[1:]}}} {
		if _, err := New(&fakeAdmin{}, o); err != nil {
			t.Errorf("New(%+v) = %v, want accepted", o, err)
		}
	}
}

// TestStates: States gives each group's latency so far and lag, in all and by topic, copies
// that later commits do not change; a topic the group has not committed on counts while it
// has committed on none, and no longer once it commits on another.
func TestStates(t *testing.T) {
	a := &fakeAdmin{commits: map[string]map[int32]int64{}}
	f, err := New(a, Options{Groups: []string{"g"}, Topics: []string{"hits", "orders"}, Every: MinEvery})
	if err != nil {
		t.Fatal(err)
	}
	due := time.Now().Add(-2 * time.Second)
	for o := int64(0); o < 100; o++ {
		f.Acked(Ack{Topic: "hits", Partition: int32(o % 2), Offset: o / 2, Due: due, Intended: true})
	}
	for o := int64(0); o < 5; o++ {
		f.Acked(Ack{Topic: "orders", Partition: 0, Offset: o, Due: due, Intended: true})
	}
	s := f.States()["g"]
	if s.Untaken != 105 || s.Topics["hits"].Untaken != 100 || s.Topics["orders"].Untaken != 5 || s.Latency.Count() != 0 {
		t.Fatalf("before any commit: %+v; want 105 untaken (hits 100, orders 5), none taken", s)
	}
	a.set("g", 0, 20) // hits/0: 20 of its 50
	f.poll(context.Background())
	after := f.States()["g"]
	if after.Untaken != 80 || after.Topics["hits"].Untaken != 80 || after.Latency.Count() != 20 ||
		after.Topics["hits"].Latency.Count() != 20 || after.Topics["hits"].Latency.Quantile(0.5) < 2*time.Second {
		t.Errorf("after hits/0 at 20: %+v; want 80 untaken, all on hits, 20 taken at ≥ 2s", after)
	}
	if _, ok := after.Topics["orders"]; ok {
		t.Errorf("orders still counts once the group committed on hits only: %+v", after.Topics)
	}
	if s.Latency.Count() != 0 {
		t.Errorf("the earlier state changed: %d taken", s.Latency.Count())
	}
}

// frozenAdmin is a broker that takes the request and never answers: FetchOffsets returns
// only when its context ends.
type frozenAdmin struct{ calls int }

func (a *frozenAdmin) FetchOffsets(ctx context.Context, _ string) (kadm.OffsetResponses, error) {
	a.calls++
	<-ctx.Done()
	return nil, ctx.Err()
}

// ackHits acknowledges n messages on hits/0 from offset 0, due now.
func ackHits(f *Follower, n int64) {
	for o := range n {
		f.Acked(Ack{Topic: "hits", Partition: 0, Offset: o, Due: time.Now(), Intended: true})
	}
}

// TestFinishEndsOnSignal (issue 29 N3): the wait for a group to drain ends when its context
// does (the command's first signal), long before the timeout: it says it was interrupted,
// blames no group, and was announced before it began with the groups behind and its bound.
func TestFinishEndsOnSignal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, _ := newTest(t, "ghost")
		f.opt.Timeout = time.Hour
		ackHits(f, 5)
		ctx, cancel := context.WithCancel(context.Background())
		announced := make(chan string, 1)
		done := make(chan Result, 1)
		start := time.Now()
		go func() {
			done <- f.Finish(ctx, false, func(behind []string, max time.Duration) {
				announced <- strings.Join(behind, ",") + " " + max.String()
			})
		}()
		if got := <-announced; got != "ghost 1h0m0s" {
			t.Errorf("announced %q, want the group behind and the bound: ghost 1h0m0s", got)
		}
		time.Sleep(3 * time.Second) // three seconds into the wait, a signal
		cancel()
		synctest.Wait()
		select {
		case res := <-done:
			if !res.Interrupted || res.Err() != nil || res.Groups[0].Drained || res.Groups[0].Untaken["hits/0"] != 5 {
				t.Errorf("Finish after a signal = %+v, err %v; want interrupted, no error, ghost not drained with 5 untaken", res, res.Err())
			}
			if took := time.Since(start); took != 3*time.Second || res.Waited != took {
				t.Errorf("the wait took %v (Waited %v), want the 3s until the signal", took, res.Waited)
			}
		default:
			t.Fatal("Finish still waits after its context was cancelled")
		}
	})
}

// TestFinishBoundedByTimeout (issue 29 N11): brokers that take the offset requests and never
// answer do not stretch the wait past the timeout (a request in flight is cut at the deadline,
// where it used to run its own 10 s); an interrupted run's one poll and a zero timeout's are
// cut at LastPoll. A request cut at the deadline is not a poll error.
func TestFinishBoundedByTimeout(t *testing.T) {
	for _, tc := range []struct {
		name        string
		timeout     time.Duration
		interrupted bool
		want        time.Duration
	}{
		{"timeout 3s", 3 * time.Second, false, 3 * time.Second},
		{"interrupted", time.Hour, true, LastPoll},
		{"timeout 0", 0, false, LastPoll},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a := &frozenAdmin{}
				f, err := New(a, Options{Groups: []string{"g"}, Topics: []string{"hits"}, Every: 250 * time.Millisecond, Timeout: tc.timeout})
				if err != nil {
					t.Fatal(err)
				}
				ackHits(f, 3)
				ctx := context.Background()
				if tc.interrupted {
					c, cancel := context.WithCancel(ctx)
					cancel() // the run's context is done: a signal stopped it
					ctx = c
				}
				start := time.Now()
				res := f.Finish(ctx, tc.interrupted, nil)
				if took := time.Since(start); took != tc.want || a.calls != 1 {
					t.Errorf("Finish took %v with %d request(s), want %v and 1 (frozen brokers)", took, a.calls, tc.want)
				}
				g := res.Groups[0]
				if g.Drained || g.Untaken["hits/0"] != 3 || res.Interrupted != tc.interrupted || (res.Err() == nil) != tc.interrupted {
					t.Errorf("Finish = %+v, err %v: want g not drained, 3 untaken, interrupted %v", res, res.Err(), tc.interrupted)
				}
			})
		})
	}
}

// TestFinishLastLagSample (issue 29 N17): the lag series ends with the state at the end of
// the wait, 0 for a group that drained during it, however soon after the previous sample
// (samples are a second apart otherwise).
func TestFinishLastLagSample(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f, a := newTest(t, "g")
		f.opt.Timeout = time.Minute
		ackHits(f, 10)
		f.poll(context.Background()) // the group has committed nothing yet: a sample of 10
		time.Sleep(300 * time.Millisecond)
		a.set("g", 0, 10) // the group takes everything, 0.3 s later
		res := f.Finish(context.Background(), false, func([]string, time.Duration) { t.Error("a wait announced for a group that had drained") })
		g := res.Groups[0]
		if !g.Drained || len(g.Lag) != 2 {
			t.Fatalf("lag samples %+v (drained %v), want 2: the 10 before, and the end", g.Lag, g.Drained)
		}
		if first, last := g.Lag[0], g.Lag[1]; first.Partitions["hits/0"] != 10 || last.Partitions["hits/0"] != 0 || last.At != 300*time.Millisecond {
			t.Errorf("lag samples %+v: want hits/0 10 at 0, then 0 at 300ms", g.Lag)
		}
	})
}

// TestWarmupApart: the warm-up's messages are never merged into a run with the others, even
// at the same due, so a commit charges each side exactly: the group's Latency holds the
// others, its Warmup the warm-up's (a late acknowledgement too), and the states the
// intervals read hold both.
func TestWarmupApart(t *testing.T) {
	f, a := newTest(t, "g")
	due := time.Now().Add(-time.Second)
	for o := int64(0); o < 100; o++ {
		f.Acked(Ack{Topic: "hits", Partition: 0, Offset: o, Due: due, Intended: true, Warmup: o < 40})
	}
	g := f.groups[0]
	p := g.parts[tp{"hits", 0}]
	if n := len(p.runs) - p.head; n != 2 || !p.runs[p.head].warm || p.runs[p.head+1].warm || p.runs[p.head+1].first != 40 {
		t.Fatalf("runs %+v: want two, offsets 0–39 of the warm-up and 40–99 not", p.runs[p.head:])
	}
	a.set("g", 0, 30)
	f.poll(context.Background())
	if g.warm.Count() != 30 || g.hist.Count() != 0 {
		t.Errorf("after commit 30: %d of the warm-up taken, %d others; want 30, 0", g.warm.Count(), g.hist.Count())
	}
	a.set("g", 0, 101)
	f.poll(context.Background())
	seen := p.history[len(p.history)-1].at
	f.Acked(Ack{Topic: "hits", Partition: 0, Offset: 100, Due: seen.Add(-5 * time.Second), Intended: true, Warmup: true}) // late
	if st := f.States()["g"]; st.Latency.Count() != 101 || st.Topics["hits"].Latency.Count() != 101 {
		t.Errorf("state: %d taken (hits %d); want 101, warm-up included", st.Latency.Count(), st.Topics["hits"].Latency.Count())
	}
	res := f.Finish(context.Background(), false, nil)
	r := res.Groups[0]
	if r.Warmup.Count() != 41 || r.Latency.Count() != 60 || r.Warmup.Max() != 5*time.Second || r.Latency.Max() >= 5*time.Second {
		t.Errorf("group: warm-up %d taken (max %v), others %d (max %v); want 41 (5s exactly, the late one), 60 (less)",
			r.Warmup.Count(), r.Warmup.Max(), r.Latency.Count(), r.Latency.Max())
	}
}
