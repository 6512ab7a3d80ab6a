package play_test

import (
	"context"
	"regexp"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// slowBroker is a sink that holds at most room messages in flight and acknowledges one every
// ack, in order: a broker slower than the rate asked of it. It records when it took the last
// message and when it acknowledged the last one.
type slowBroker struct {
	ack      time.Duration
	slots    chan struct{} // a token per message in flight
	quit     chan struct{}
	done     chan struct{}
	mu       sync.Mutex
	sent     int64
	acked    int64
	lastTook time.Time
	lastAck  time.Time
}

func newSlowBroker(room int, ack time.Duration) *slowBroker {
	b := &slowBroker{ack: ack, slots: make(chan struct{}, room), quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		for {
			select {
			case <-b.quit:
				return
			case <-b.slots:
			}
			time.Sleep(ack) // the broker's time per message
			b.mu.Lock()
			b.acked++
			b.lastAck = time.Now()
			b.mu.Unlock()
		}
	}()
	return b
}

func (b *slowBroker) Send(ctx context.Context, m sink.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case b.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	b.mu.Lock()
	b.sent++
	b.lastTook = time.Now()
	b.mu.Unlock()
	return nil
}

func (b *slowBroker) Flush(ctx context.Context) error {
	for {
		b.mu.Lock()
		all := b.acked == b.sent
		b.mu.Unlock()
		if all {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(b.ack):
		}
	}
}

func (b *slowBroker) Close() error {
	close(b.quit)
	<-b.done
	return nil
}

func (b *slowBroker) Stats() sink.Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return sink.Stats{Topics: map[string]sink.TopicStats{"hits": {Sent: b.sent, Acked: b.acked}}}
}

// TestDurationBoundsTheSending is issue 29 L13: 'run stress --rate 1000000000/s --duration 2s'
// took 2.078 s, the flush of what the producer held coming after the 50 ms grace. The promise
// is now that Stop.Duration bounds the sending: under overload the sink takes no message later
// than the duration and its grace after the first was due, the sending's end is then, and the
// flush of what is in flight (which no duration can bound: the brokers set its pace) follows,
// reported apart. On a fake clock (synctest) the bounds are exact: a broker that acknowledges
// a message every 100 µs and holds 1000 in flight takes 250 ms of sending at 1e6/s for 200 ms
// (+ 50 ms grace), then 100 ms to drain.
func TestDurationBoundsTheSending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		shape, err := pace.Constant(1_000_000)
		if err != nil {
			t.Fatal(err)
		}
		const d, grace = 200 * time.Millisecond, 50 * time.Millisecond
		cut, err := pace.Until(shape, d)
		if err != nil {
			t.Fatal(err)
		}
		runner, err := pace.NewRunner(pace.ByCount(cut))
		if err != nil {
			t.Fatal(err)
		}
		b := newSlowBroker(1000, 100*time.Microsecond)
		defer b.Close()
		var heard waits
		res, err := play.Run(context.Background(), play.Plan{World: smallWorld(t), Range: world.Range{From: 0}, Hits: "hits",
			Pacing: play.Pacing{Runner: runner, ByCount: true, Shape: shape}, Stop: play.Stop{Duration: d}}, b, &heard)
		if err != nil {
			t.Fatal(err)
		}
		end := res.PacedFrom.Add(d + grace)
		b.mu.Lock()
		took, acked, lastAck := b.lastTook, b.acked, b.lastAck
		b.mu.Unlock()
		switch {
		case res.Stopped != play.StopDuration:
			t.Errorf("stopped by %q, want the duration", res.Stopped)
		case took.After(end):
			t.Errorf("the sink took a message %v after the first was due, later than the duration and its grace (%v)", took.Sub(res.PacedFrom), d+grace)
		case !res.SendingEnded.Equal(end):
			t.Errorf("the sending ended %v after the first message was due, want %v: the duration and its grace", res.SendingEnded.Sub(res.PacedFrom), d+grace)
		case acked != res.Sent || lastAck.After(res.SendingEnded.Add(res.FinalFlush)):
			t.Errorf("%d of %d acknowledged, the last at %v, after the final flush ended (%v): it must deliver what was in flight",
				acked, res.Sent, lastAck.Sub(res.PacedFrom), res.SendingEnded.Add(res.FinalFlush).Sub(res.PacedFrom))
		case res.FinalFlush < 90*time.Millisecond || res.FinalFlush > 110*time.Millisecond:
			t.Errorf("final flush %v, want the 100 ms the broker takes to acknowledge the 1000 messages in flight", res.FinalFlush)
		case len(heard.said) != 0:
			t.Errorf("a final flush of 100 ms was announced: %q", heard.said)
		}
	})
}

// waits is an observer that records the waits it is told of.
type waits struct {
	said []string
}

func (w *waits) RunStarted(play.Start)                     {}
func (w *waits) RunEnded(context.Context, *play.End) error { return nil }

func (w *waits) Waiting(what string, max time.Duration) {
	w.said = append(w.said, what+", at most "+max.String())
}

// TestLongFinalFlushAnnounced (issue 31): a final flush that lasts (2 s: a broker that takes
// 2 ms a message, 1000 in flight) is said a second in, with what it waits for and how long
// at most (the flush timeout, less the second gone), so that it does not look like a hang.
func TestLongFinalFlushAnnounced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		shape, err := pace.Constant(1_000_000)
		if err != nil {
			t.Fatal(err)
		}
		cut, err := pace.Until(shape, 200*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		runner, err := pace.NewRunner(pace.ByCount(cut))
		if err != nil {
			t.Fatal(err)
		}
		b := newSlowBroker(1000, 2*time.Millisecond)
		defer b.Close()
		var heard waits
		res, err := play.Run(context.Background(), play.Plan{World: smallWorld(t), Range: world.Range{From: 0}, Hits: "hits", FlushTimeout: time.Minute,
			Pacing: play.Pacing{Runner: runner, ByCount: true, Shape: shape}, Stop: play.Stop{Duration: 200 * time.Millisecond}}, b, &heard)
		if err != nil {
			t.Fatal(err)
		}
		// A second into the flush, about 500 of the 1000 in flight are acknowledged.
		want := regexp.MustCompile(`^flushing the (4\d\d|5\d\d) message\(s\) in flight, at most 59s$`)
		if len(heard.said) != 1 || !want.MatchString(heard.said[0]) || res.FinalFlush < 2*time.Second {
			t.Errorf("final flush %v, announced %q; want one notice a second in, of about 500 messages, at most 59s", res.FinalFlush, heard.said)
		}
	})
}
