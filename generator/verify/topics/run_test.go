package topics_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/topics"
)

// playDay1 plays run day 1 of a scale-0.02 world with garbage g into a fresh embedded broker;
// the broker and the sink (still open, for more sends) close when the test ends.
func playDay1(t *testing.T, g world.Garbage) (*world.World, *broker.Broker, *sink.Kafka) {
	t.Helper()
	b, err := broker.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	w, err := world.NewWorld(world.Params{Scale: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	k, err := sink.Dial(ctx, false, sink.DefaultTopics(), nil, sink.SeedBrokers(b.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	plan := play.Plan{World: w, Range: world.Range{From: 1, Days: 1, Garbage: g}, Hits: "hits", Orders: "orders"}
	if _, err := play.Run(ctx, plan, k, nil); err != nil {
		t.Fatal(err)
	}
	return w, b, k
}

// TestCheckRun: a run played into the embedded broker reconciles with its inventory (both
// topics, or one alone); checked as cut short, each topic holds what was acknowledged; a
// message nobody planned makes both checks fail.
func TestCheckRun(t *testing.T) {
	ctx := context.Background()
	g := world.Garbage{Rate: 0.01}
	w, b, k := playDay1(t, g)
	run := topics.Run{World: w, Range: world.Range{From: 1, Days: 1, Garbage: g}, Hits: "hits", Orders: "orders", Stats: k.Stats()}
	check := func(r topics.Run) ([]string, map[string]int64, string) {
		t.Helper()
		var out bytes.Buffer
		problems, held, err := topics.CheckRun(ctx, &out, b.Addrs(), r)
		if err != nil {
			t.Fatalf("CheckRun(%+v): %v", r.CutShort, err)
		}
		return problems, held, out.String()
	}
	problems, held, out := check(run)
	if len(problems) != 0 || held["hits"] != run.Stats.Topics["hits"].Acked || held["orders"] != run.Stats.Topics["orders"].Acked {
		t.Errorf("CheckRun(complete) = %q, held %v; want no problems and the acknowledged counts (acked %+v)\n%s", problems, held, run.Stats.Topics, out)
	}
	one := run
	one.Orders = ""
	if problems, _, out := check(one); len(problems) != 0 || !strings.Contains(out, "Only topic hits was played") {
		t.Errorf("CheckRun(hits alone) = %q\n%s", problems, out)
	}
	cut := run
	cut.CutShort = "messages"
	if problems, _, out := check(cut); len(problems) != 0 || !strings.Contains(out, "(stop condition: messages)") || !strings.Contains(out, ": ok\n") {
		t.Errorf("CheckRun(cut short) = %q\n%s", problems, out)
	}

	if err := k.Send(ctx, sink.Message{Topic: "hits", Key: []byte("1"), Value: []byte("{}")}); err != nil {
		t.Fatal(err)
	}
	if err := k.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if problems, _, out := check(run); len(problems) != 1 || !strings.Contains(problems[0], "do not reconcile") {
		t.Errorf("CheckRun(an extra message) = %q, want the table's verdict\n%s", problems, out)
	}
	if problems, _, _ := check(cut); len(problems) != 1 || !strings.HasPrefix(problems[0], "hits holds ") {
		t.Errorf("CheckRun(cut short, an extra message) = %q, want hits to differ from what was acknowledged", problems)
	}
}

// TestVerify: verify's settings refuse what cannot be read, naming the settings, not flags,
// and Run reconciles a played run, names the run when the topics differ, and says what a
// partition count needs to be.
func TestVerify(t *testing.T) {
	for _, tc := range []struct {
		v    topics.Verify
		want error
	}{
		{topics.Verify{HitsTopic: "", OrdersTopic: "o", Timeout: 1}, topics.ErrTopicUnnamed},
		{topics.Verify{HitsTopic: "x", OrdersTopic: "x", Timeout: 1}, topics.ErrSameTopic},
		{topics.Verify{HitsTopic: "h", OrdersTopic: "o", Timeout: 1}, topics.ErrPartitions},
		{topics.Verify{HitsTopic: "h", OrdersTopic: "o", Options: topics.Options{HitPartitions: 2, OrderPartitions: 1}}, topics.ErrTimeout},
	} {
		if err := tc.v.Validate(); !errors.Is(err, tc.want) || strings.Contains(err.Error(), "--") {
			t.Errorf("Validate(%+v) = %v, want %v", tc.v, err, tc.want)
		}
	}
	if err := (&topics.Verify{HitsTopic: "x", OrdersTopic: "x", Timeout: 1}).Validate(); err == nil || err.Error() != `orders topic "x": the same as the hits topic` {
		t.Errorf("Validate(the same topic twice) = %v, want it named", err)
	}
	if err := (&topics.Verify{HitsTopic: "h", OrdersTopic: "o", Timeout: 1, Options: topics.Options{HitPartitions: 2, OrderPartitions: 1}}).Validate(); err != nil {
		t.Errorf("Validate(good settings) = %v", err)
	}

	ctx := context.Background()
	w, b, _ := playDay1(t, world.Garbage{})
	var lines []string
	v := topics.Verify{HitsTopic: "hits", OrdersTopic: "orders", Timeout: time.Minute,
		Options: topics.Options{HitPartitions: 2, OrderPartitions: 1}, Brokers: b.Addrs(), ProgressAfter: time.Hour, // no progress lines
		Logf: func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }}
	day1 := world.Range{From: 1, Days: 1}
	r, err := v.Run(ctx, w, day1)
	if err != nil || !r.OK || len(lines) != 3 || !strings.HasPrefix(lines[0], "verify: run day 1 (2026-06-02) sends ") {
		t.Errorf("Run(as played) = %v, %v, lines %q; want OK and three lines", r != nil && r.OK, err, lines)
	}
	v.Logf = nil
	if r, err := v.Run(ctx, w, world.Range{From: 1, Days: 2}); r == nil || r.OK || err == nil ||
		!strings.HasPrefix(err.Error(), "verify: hits and orders differ from what run days 1…2 (seed ") {
		t.Errorf("Run(a day that was not played) = %v; want the result and an error naming the run", err)
	}
	var re *world.RangeError
	if r, err := v.Run(ctx, w, world.Range{From: 1, Days: 1, Segment: world.Segment{I: 2, N: 2}}); r != nil || !errors.As(err, &re) || re.Field != "segment" {
		t.Errorf("Run(segment 2/2) = %v; want the range refused, naming its segment", err)
	}
	v.HitPartitions = 3
	var pe *topics.PartitionsError
	if _, err := v.Run(ctx, w, day1); !errors.As(err, &pe) || pe.Topic != "hits" || pe.Has != 2 ||
		!strings.HasSuffix(err.Error(), "if it was created so, set its partition count to 2") {
		t.Errorf("Run(3 hits partitions) = %v, want a *PartitionsError that says the count", err)
	}
	v.HitPartitions, v.Timeout = 2, time.Nanosecond
	var te *topics.TimeoutError
	if _, err := v.Run(ctx, w, day1); !errors.As(err, &te) || te.Timeout != time.Nanosecond ||
		!errors.Is(err, context.DeadlineExceeded) || !strings.HasSuffix(err.Error(), "(timeout 1ns)") {
		t.Errorf("Run(a 1 ns timeout) = %v, want a *TimeoutError naming the timeout", err)
	}
}

// TestCheckRunTrustsAcks: without brokers to read back, a run is checked by what each topic
// acknowledged against the counts its source states; a segment, which holds a share, is not
// held to the whole run's counts.
func TestCheckRunTrustsAcks(t *testing.T) {
	n := int64(12)
	run := topics.Run{Range: world.Range{From: 1, Days: 1}, Hits: "hits", Want: topics.Counts{Source: "profile smoke", Hits: &n},
		Stats: sink.Stats{Topics: map[string]sink.TopicStats{"hits": {Sent: 12, Acked: 11}}}}
	var out bytes.Buffer
	problems, held, err := topics.CheckRun(context.Background(), &out, nil, run)
	if want := "hits holds 11 messages, profile smoke expects 12"; err != nil || len(problems) != 1 || problems[0] != want || held["hits"] != 11 {
		t.Errorf("CheckRun(11 of 12 acknowledged) = %q, held %v, %v; want %q", problems, held, err, want)
	}
	run.Range.Segment = world.Segment{I: 0, N: 2}
	if problems, _, err := topics.CheckRun(context.Background(), &out, nil, run); err != nil || len(problems) != 0 {
		t.Errorf("CheckRun(segment 0/2) = %q, %v; want no expectation checked", problems, err)
	}
}

// TestCounts: stated counts are compared with what the topics hold, a line each, and a
// problem for each that differs; the zero Counts states nothing.
func TestCounts(t *testing.T) {
	n := int64(12)
	c := topics.Counts{Source: "profile smoke", Hits: &n}
	var out bytes.Buffer
	if problems := c.Check(&out, map[string]int64{"hits": 12, "orders": 3}); len(problems) != 0 || out.String() != "expect hits: 12 messages, profile smoke says 12: ok\n" {
		t.Errorf("Check(as expected) = %q, printed %q", problems, out.String())
	}
	out.Reset()
	problems := c.Check(&out, map[string]int64{"hits": 11})
	if want := []string{"hits holds 11 messages, profile smoke expects 12"}; !slices.Equal(problems, want) || !strings.HasSuffix(out.String(), ": DIFFERS\n") {
		t.Errorf("Check(one short) = %q, printed %q; want %q", problems, out.String(), want)
	}
	out.Reset()
	if problems := (topics.Counts{}).Check(&out, map[string]int64{"hits": 11}); len(problems) != 0 || out.Len() != 0 {
		t.Errorf("the zero Counts: %q, printed %q; want nothing checked", problems, out.String())
	}
}
