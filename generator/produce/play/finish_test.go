package play_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// endLog is an observer writing what it hears into a shared log, prefixed by its name; at
// the end it announces wait (if set), adds its name as its result and returns err; when it
// reports, it logs the results it reads.
type endLog struct {
	name string
	log  *log
	wait string
	err  error
	snk  sink.Sink // sent to at the end: the sink must still be open
}

// log is what endLogs heard; their ends run at once, so it is guarded.
type log struct {
	mu    sync.Mutex
	lines []string
}

func (l *log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// result is what an endLog adds to the run's end.
type result struct{ names string }

func (o *endLog) add(format string, args ...any) {
	o.log.mu.Lock()
	defer o.log.mu.Unlock()
	o.log.lines = append(o.log.lines, o.name+" "+fmt.Sprintf(format, args...))
}
func (o *endLog) RunStarted(s play.Start) {
	o.add("started %s sent=%d", s.Plan.Hits, s.Stats().Topics["hits"].Sent)
}
func (o *endLog) Waiting(what string, max time.Duration) { o.add("waiting %s %v", what, max) }
func (o *endLog) RunEnded(ctx context.Context, e *play.End) error {
	_, early := play.Get[result](e)
	o.add("ended interrupted=%v acked=%d err=%v read-early=%v", e.Interrupted, e.Stats.Topics["hits"].Acked, e.Err, early)
	if o.snk != nil {
		if err := o.snk.Send(ctx, sink.Message{Topic: "late", Value: []byte("x")}); err != nil {
			o.add("send at the end: %v", err)
		}
	}
	if o.wait != "" {
		e.Wait(o.wait, 2*time.Second)
	}
	e.Add(result{o.name})
	return o.err
}

// reporter is an endLog that also reports.
type reporter struct{ endLog }

func (o *reporter) RunReported(ctx context.Context, e *play.End) error {
	r, ok := play.Get[result](e)
	o.add("reported %v %v", r, ok)
	return nil
}

// TestFinishOrder: a run's lifecycle through its observers: started with the plan and the
// sink's counters; at the end what an interrupted run left in flight is flushed, announced
// first to every observer, then every observer's end, after the flush and before the sink is
// closed, a wait one of them announces heard by all; what they add to the end is read only by
// the reporters, once every end returned; their errors join the run's.
func TestFinishOrder(t *testing.T) {
	snk := discard(t)
	var l log
	bErr := errors.New("b failed")
	a := &endLog{name: "a", log: &l, snk: snk}
	b := &reporter{endLog{name: "b", log: &l, wait: "b's wait", err: bErr}}
	obs := play.Observers(a, nil, b)
	ctx := context.Background()
	res, err := play.Run(ctx, play.Plan{World: smallWorld(t), Range: world.Range{From: 0, Days: 1}, Hits: "hits", Stop: play.Stop{Messages: 10}}, snk, obs)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 { // queued after the run, as an interrupt leaves them
		if err := snk.Send(ctx, sink.Message{Topic: "hits", Value: []byte("{}")}); err != nil {
			t.Fatal(err)
		}
	}
	err = play.Finish(ctx, snk, obs, 42*time.Second, res, context.Canceled)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, bErr) {
		t.Errorf("Finish = %v, want the run's error joined with b's", err)
	}
	// The ends run at once: a's and b's lines of the end come in either order, each
	// observer's own in its order.
	got := strings.Split(l.String(), "\n")
	head := []string{
		"a started hits sent=0", "b started hits sent=0",
		"a waiting flushing the 3 message(s) in flight 42s", "b waiting flushing the 3 message(s) in flight 42s",
	}
	if len(got) != 9 || strings.Join(got[:4], "\n") != strings.Join(head, "\n") {
		t.Fatalf("the observers heard\n%s\nwant first\n%s", l.String(), strings.Join(head, "\n"))
	}
	ends := slices.Sorted(slices.Values(got[4:8]))
	want := []string{
		"a ended interrupted=true acked=13 err=context canceled read-early=false",
		"a waiting b's wait 2s",
		"b ended interrupted=true acked=13 err=context canceled read-early=false",
		"b waiting b's wait 2s",
	}
	if strings.Join(ends, "\n") != strings.Join(want, "\n") {
		t.Errorf("the ends heard\n%s\nwant (in any order)\n%s", strings.Join(ends, "\n"), strings.Join(want, "\n"))
	}
	if got[8] != "b reported {a} true" && got[8] != "b reported {b} true" {
		t.Errorf("the report heard %q, want the result added at the end", got[8])
	}
	if err := snk.Send(ctx, sink.Message{Topic: "hits", Value: []byte("{}")}); !errors.Is(err, sink.ErrClosed) {
		t.Errorf("Send after Finish = %v, want sink.ErrClosed", err)
	}
}

// TestFinishEndsAtOnce: every observer's RunEnded runs at once, so none waits for another's
// end work (a group's drain, a linger) and the list's order changes nothing: here each end
// waits until the other has begun.
func TestFinishEndsAtOnce(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(2)
	meet := func() error {
		wg.Done()
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
			return nil
		case <-time.After(time.Minute):
			return errors.New("the other observer's end never began")
		}
	}
	a, b := &meeting{meet: meet}, &meeting{meet: meet}
	snk := discard(t)
	if err := play.Finish(context.Background(), snk, play.Observers(a, b), time.Minute, play.Result{}, nil); err != nil {
		t.Fatal(err)
	}
}

// meeting is an observer whose end calls meet.
type meeting struct{ meet func() error }

func (m *meeting) RunStarted(play.Start)                     {}
func (m *meeting) RunEnded(context.Context, *play.End) error { return m.meet() }

// TestAddAfterTheEnd: a result is added in RunEnded; adding one while the results are read
// is a programming error.
func TestAddAfterTheEnd(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("End.Add in RunReported did not panic")
		}
	}()
	late := &lateAdder{}
	play.Finish(context.Background(), discard(t), late, time.Minute, play.Result{}, nil)
}

// lateAdder adds a result when it reports.
type lateAdder struct{}

func (lateAdder) RunStarted(play.Start)                     {}
func (lateAdder) RunEnded(context.Context, *play.End) error { return nil }
func (lateAdder) RunReported(_ context.Context, e *play.End) error {
	e.Add(result{"late"})
	return nil
}

// TestFinishCleanRun: a run that ended cleanly is not flushed again and announces no wait;
// Finish returns nil when no observer fails.
func TestFinishCleanRun(t *testing.T) {
	snk := discard(t)
	var l log
	obs := play.Observers(&endLog{name: "a", log: &l})
	res, err := play.Run(context.Background(), play.Plan{World: smallWorld(t), Range: world.Range{From: 0, Days: 1}, Hits: "hits"}, snk, obs)
	if err := play.Finish(context.Background(), snk, obs, time.Minute, res, err); err != nil {
		t.Fatal(err)
	}
	if len(l.lines) != 2 || !strings.HasPrefix(l.lines[1], "a ended interrupted=false") || !strings.HasSuffix(l.lines[1], "err=<nil> read-early=false") {
		t.Errorf("heard %q, want the start and a clean end, no wait", l.lines)
	}
}

// acker is an observer that counts acknowledgements.
type acker struct{ n int }

func (a *acker) RunStarted(play.Start)                     {}
func (a *acker) RunEnded(context.Context, *play.End) error { return nil }

func (a *acker) Acked(sink.Ack) { a.n++ }

// TestAcks: a list whose observers do not listen to acknowledgements gives the sink no
// function (nothing per message); with Ackers, each hears every acknowledgement, a nested list
// flattened.
func TestAcks(t *testing.T) {
	if f := play.Observers(&unitLog{}, nil).Acks(); f != nil {
		t.Error("Acks of observers that do not listen to acknowledgements is not nil")
	}
	one, two := &acker{}, &acker{}
	play.Observers(one).Acks()(sink.Ack{})
	f := play.Observers(&unitLog{}, play.Observers(one, &unitLog{}), two).Acks()
	f(sink.Ack{})
	f(sink.Ack{})
	if one.n != 3 || two.n != 2 {
		t.Errorf("acknowledgements heard %d and %d, want 3 and 2", one.n, two.n)
	}
}
