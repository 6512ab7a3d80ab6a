package follow

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/clickgen/clickgen/generator/sink"
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
	f, err := New(a, Options{Groups: groups, Topics: []string{"hits"}, Every: time.Millisecond})
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
		f.Acked(sink.Ack{Topic: "hits", Partition: 0, Offset: o, Due: due, Intended: true})
	}
	f.Acked(sink.Ack{Topic: "hits", Partition: 0, Offset: 102, Due: due.Add(time.Second), Intended: true})
	f.Acked(sink.Ack{Topic: "hits", Partition: 0, Offset: 101, Due: due.Add(time.Second), Intended: true}) // out of order
	f.Acked(sink.Ack{Topic: "other", Partition: 0, Offset: 0, Due: due, Intended: true})                   // not a run topic
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
	f.Acked(sink.Ack{Topic: "hits", Partition: 0, Offset: 100, Due: seen.Add(-3 * time.Second), Intended: true})
	if p.late != 1 || g.hist.Count() != 103 || g.hist.Max() != 3*time.Second {
		t.Errorf("late ack: late %d, taken %d, max %v; want 1, 103, 3s exactly", p.late, g.hist.Count(), g.hist.Max())
	}
	rep, err := f.Finish(io.Discard, false)
	if err != nil || rep["g"].DrainedS == nil || f.unknown != 1 {
		t.Errorf("Finish = %v, %v (unknown acks %d); want drained, one unknown", rep, err, f.unknown)
	}
	// The most held at a poll: runs 40–99, 101 and 102 after the commit at 40.
	if b := rep["g"].PeakStateBytes; b != 3*24 {
		t.Errorf("peak_state_bytes = %d, want 72 (3 runs of 24 B)", b)
	}
}

// TestFinishNamesLag: a group that took nothing (it does not even exist) is not drained after
// the timeout: Finish names it and its lag per partition; a drained group beside it is not named.
func TestFinishNamesLag(t *testing.T) {
	f, a := newTest(t, "ghost", "ok")
	f.opt.Timeout = 20 * time.Millisecond
	for o := int64(0); o < 7; o++ {
		f.Acked(sink.Ack{Topic: "hits", Partition: int32(o % 2), Offset: o / 2, Due: time.Now()})
	}
	a.set("ok", 0, 4)
	a.set("ok", 1, 3)
	var w strings.Builder
	rep, err := f.Finish(&w, false)
	if err == nil || !strings.Contains(err.Error(), "group ghost (lag hits/0 4, hits/1 3)") || strings.Contains(err.Error(), "group ok") {
		t.Fatalf("Finish error = %v, want group ghost and its lag named, not ok\n%s", err, w.String())
	}
	var nd *NotDrainedError
	if !errors.As(err, &nd) || len(nd.Groups) != 1 || nd.Timeout <= 0 || strings.Contains(err.Error(), "--") {
		t.Errorf("Finish error = %#v: want a *NotDrainedError with one group and the timeout, naming no flag", err)
	}
	if rep["ghost"].DrainedS != nil || rep["ok"].DrainedS == nil || rep["ok"].MeasuredFrom != "handed to producer" {
		t.Errorf("report %+v: want ghost not drained, ok drained, measured from handed to producer", rep)
	}
	if !strings.Contains(w.String(), "follow ghost: NOT drained") || !strings.Contains(w.String(), "follow ok: 7 taken, drained") {
		t.Errorf("lines:\n%s", w.String())
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, o := range []Options{{}, {Groups: []string{""}}, {Groups: []string{"g"}, Every: -1}, {Groups: []string{"g"}, Timeout: -1}} {
		if _, err := New(&fakeAdmin{}, o); err == nil {
			t.Errorf("New(%+v) = nil error, want refused", o)
		}
	}
}

// TestStates: States gives each group's latency so far and lag, in all and by topic, copies
// that later commits do not change; a topic the group has not committed on counts while it
// has committed on none, and no longer once it commits on another.
func TestStates(t *testing.T) {
	a := &fakeAdmin{commits: map[string]map[int32]int64{}}
	f, err := New(a, Options{Groups: []string{"g"}, Topics: []string{"hits", "orders"}, Every: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	due := time.Now().Add(-2 * time.Second)
	for o := int64(0); o < 100; o++ {
		f.Acked(sink.Ack{Topic: "hits", Partition: int32(o % 2), Offset: o / 2, Due: due, Intended: true})
	}
	for o := int64(0); o < 5; o++ {
		f.Acked(sink.Ack{Topic: "orders", Partition: 0, Offset: o, Due: due, Intended: true})
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
