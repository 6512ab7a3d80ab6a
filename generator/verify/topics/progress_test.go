package topics

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/internal/tier/kafkatest"
)

// Issue 31: "verify reading 2 M messages (over a minute)" said nothing while it read. A Verify
// tells how far it is, a moment into each step and then every so often: how many of the
// range's units the expectation has built, then how many of the messages each topic is
// expected to hold it has read; an interruption says how far the read got.

// lines collects what a Verify's Logf hears and hands each line on.
type lines struct {
	mu  sync.Mutex
	all []string
	c   chan string
}

func newLines() *lines { return &lines{c: make(chan string, 1024)} }

func (l *lines) logf(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	l.mu.Lock()
	l.all = append(l.all, s)
	l.mu.Unlock()
	select {
	case l.c <- s:
	default:
	}
}

// await waits for a line ok accepts, at most 30 s.
func (l *lines) await(t *testing.T, what string, ok func(string) bool) string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case s := <-l.c:
			if ok(s) {
				return s
			}
		case <-timeout:
			l.mu.Lock()
			defer l.mu.Unlock()
			t.Fatalf("no line %s within 30s; lines:\n%q", what, l.all)
		}
	}
}

// TestProgressOfExpectation: while the expectation is built, the line says how many of the
// range's days' hits and snapshots are done.
func TestProgressOfExpectation(t *testing.T) {
	p := &verifyProgress{run: "days 0…4", units: 9, start: time.Now()}
	p.built.Store(3)
	l := newLines()
	v := &Verify{ProgressAfter: time.Millisecond, ProgressEvery: time.Millisecond}
	stop := v.progress(p, l.logf)
	defer stop()
	got := l.await(t, "of the expectation", func(string) bool { return true })
	if want := "verify: computing what run days 0…4 sends: 3 of 9 days' hits and snapshots"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
}

// readingLine is a line of the read, saying when it gives up: a frozen broker kept it counting
// up with no end in sight (the hostile pass of issue 29).
var readingLine = regexp.MustCompile(`^verify: reading hits: (\d+) of (\d+) expected messages read \(\d+s; gives up in (\S+)\)$`)

// TestProgressWhileReading: with the brokers holding back the first fetch of the hits (kfake
// answers a day's hits in one fetch), the Verify says how many of the hits it expects it has
// read, and the interruption that ends the read is a *ReadError saying as much.
func TestProgressWhileReading(t *testing.T) {
	c, addrs := kafkatest.NewCluster(t)
	w, err := world.NewWorld(world.Params{Scale: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	k, err := sink.Dial(ctx, false, sink.DefaultTopics(), nil, sink.SeedBrokers(addrs...))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	day1 := world.Range{From: 1, Days: 1}
	if _, err := play.Run(ctx, play.Plan{World: w, Range: day1, Hits: "hits", Orders: "orders"}, k, nil); err != nil {
		t.Fatal(err)
	}
	sent := k.Stats().Topics["hits"].Acked

	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free()
	c.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.SleepControl(func() { <-release }) // the first fetch, of the hits, waits
		return nil, nil, false
	})
	l := newLines()
	rctx, interrupt := context.WithCancel(ctx)
	defer interrupt()
	v := Verify{HitsTopic: "hits", OrdersTopic: "orders", Timeout: time.Hour, Options: Options{HitPartitions: 2, OrderPartitions: 1},
		Brokers: addrs, Logf: l.logf, ProgressAfter: 10 * time.Millisecond, ProgressEvery: 10 * time.Millisecond}
	done := make(chan error, 1)
	go func() {
		_, err := v.Run(rctx, w, day1)
		done <- err
	}()
	var read, want int64
	var left time.Duration
	l.await(t, "saying part of the hits was read", func(s string) bool {
		m := readingLine.FindStringSubmatch(s)
		if m == nil {
			return false
		}
		read, _ = strconv.ParseInt(m[1], 10, 64)
		want, _ = strconv.ParseInt(m[2], 10, 64)
		left, _ = time.ParseDuration(m[3])
		return true
	})
	if read != 0 || want != sent {
		t.Errorf("reading line: %d of %d read, want 0 of the %d hits sent", read, want, sent)
	}
	if left < 59*time.Minute || left > time.Hour {
		t.Errorf("reading line: gives up in %v, want what is left of the timeout of 1h", left)
	}
	interrupt() // the signal comes while the brokers hold the read
	var re *ReadError
	select {
	case err := <-done:
		if !errors.As(err, &re) || !errors.Is(err, context.Canceled) || re.Topic != "hits" || re.Read != 0 || re.Want != sent {
			t.Errorf("Run interrupted while reading = %v (%+v), want a *ReadError of hits, 0 of %d read, wrapping context.Canceled", err, re, sent)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the interrupted read goes on")
	}
}
