package play_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// endLog is an observer writing what it hears into a shared log, prefixed by its name; at
// the end it announces wait (if set) and returns err.
type endLog struct {
	play.Base
	name string
	log  *[]string
	wait string
	err  error
	snk  sink.Sink // sent to at the end: the sink must still be open
}

func (o *endLog) add(format string, args ...any) {
	*o.log = append(*o.log, o.name+" "+fmt.Sprintf(format, args...))
}
func (o *endLog) RunStarted(s play.Start) {
	o.add("started %s sent=%d", s.Plan.Hits, s.Stats().Topics["hits"].Sent)
}
func (o *endLog) Waiting(what string, max time.Duration) { o.add("waiting %s %v", what, max) }
func (o *endLog) RunEnded(ctx context.Context, e *play.End) error {
	o.add("ended interrupted=%v acked=%d err=%v", e.Interrupted, e.Stats.Topics["hits"].Acked, e.Err)
	if o.snk != nil {
		if err := o.snk.Send(ctx, sink.Message{Topic: "late", Value: []byte("x")}); err != nil {
			o.add("send at the end: %v", err)
		}
	}
	if o.wait != "" {
		e.Wait(o.wait, 2*time.Second)
	}
	return o.err
}

// TestFinishOrder: a run's lifecycle through its observers in order: started with the plan
// and the sink's counters; at the end what an interrupted run left in flight is flushed,
// announced first to every observer, then each observer's end in the list's order, after the
// flush and before the sink is closed, a wait one of them announces heard by all; their
// errors join the run's.
func TestFinishOrder(t *testing.T) {
	snk := discard(t)
	var log []string
	bErr := errors.New("b failed")
	a := &endLog{name: "a", log: &log, snk: snk}
	b := &endLog{name: "b", log: &log, wait: "b's wait", err: bErr}
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
	want := []string{
		"a started hits sent=0", "b started hits sent=0",
		"a waiting flushing the 3 message(s) in flight 42s", "b waiting flushing the 3 message(s) in flight 42s",
		"a ended interrupted=true acked=13 err=context canceled",
		"b ended interrupted=true acked=13 err=context canceled",
		"a waiting b's wait 2s", "b waiting b's wait 2s",
	}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Errorf("the observers heard\n%s\nwant\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	if err := snk.Send(ctx, sink.Message{Topic: "hits", Value: []byte("{}")}); !errors.Is(err, sink.ErrClosed) {
		t.Errorf("Send after Finish = %v, want sink.ErrClosed", err)
	}
}

// TestFinishCleanRun: a run that ended cleanly is not flushed again and announces no wait;
// Finish returns nil when no observer fails.
func TestFinishCleanRun(t *testing.T) {
	snk := discard(t)
	var log []string
	obs := play.Observers(&endLog{name: "a", log: &log})
	res, err := play.Run(context.Background(), play.Plan{World: smallWorld(t), Range: world.Range{From: 0, Days: 1}, Hits: "hits"}, snk, obs)
	if err := play.Finish(context.Background(), snk, obs, time.Minute, res, err); err != nil {
		t.Fatal(err)
	}
	if len(log) != 2 || !strings.HasPrefix(log[1], "a ended interrupted=false") || !strings.HasSuffix(log[1], "err=<nil>") {
		t.Errorf("heard %q, want the start and a clean end, no wait", log)
	}
}

// acker is an observer that counts acknowledgements.
type acker struct {
	play.Base
	n int
}

func (a *acker) Acked(sink.Ack) { a.n++ }

// TestAcks: a list whose observers do not listen to acknowledgements gives the sink no
// function (nothing per message); with Ackers, each hears every acknowledgement, a nested list
// flattened.
func TestAcks(t *testing.T) {
	if f := play.Observers(play.Base{}, &unitLog{}, nil).Acks(); f != nil {
		t.Error("Acks of observers that do not listen to acknowledgements is not nil")
	}
	one, two := &acker{}, &acker{}
	play.Observers(one).Acks()(sink.Ack{})
	f := play.Observers(play.Base{}, play.Observers(one, &unitLog{}), two).Acks()
	f(sink.Ack{})
	f(sink.Ack{})
	if one.n != 3 || two.n != 2 {
		t.Errorf("acknowledgements heard %d and %d, want 3 and 2", one.n, two.n)
	}
}
