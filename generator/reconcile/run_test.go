package reconcile_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/broker"
	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/reconcile"
	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
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
	plan := play.Plan{World: w, From: 1, Days: 1, Hits: "hits", Orders: "orders", Garbage: g}
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
	run := reconcile.Run{World: w, From: 1, Days: 1, Garbage: g, Hits: "hits", Orders: "orders", Stats: k.Stats()}
	check := func(r reconcile.Run) ([]string, map[string]int64, string) {
		t.Helper()
		var out bytes.Buffer
		problems, held, err := reconcile.CheckRun(ctx, &out, b.Addrs(), r)
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
		v    reconcile.Verify
		want error
	}{
		{reconcile.Verify{HitsTopic: "", OrdersTopic: "o", Timeout: 1}, reconcile.ErrTopicUnnamed},
		{reconcile.Verify{HitsTopic: "x", OrdersTopic: "x", Timeout: 1}, reconcile.ErrSameTopic},
		{reconcile.Verify{HitsTopic: "h", OrdersTopic: "o", Timeout: 1}, reconcile.ErrPartitions},
		{reconcile.Verify{HitsTopic: "h", OrdersTopic: "o", Options: reconcile.Options{HitPartitions: 2, OrderPartitions: 1}}, reconcile.ErrTimeout},
	} {
		if err := tc.v.Validate(); !errors.Is(err, tc.want) || strings.Contains(err.Error(), "--") {
			t.Errorf("Validate(%+v) = %v, want %v", tc.v, err, tc.want)
		}
	}
	if err := (&reconcile.Verify{HitsTopic: "x", OrdersTopic: "x", Timeout: 1}).Validate(); err == nil || err.Error() != `both "x": the hits and orders topics must differ` {
		t.Errorf("Validate(the same topic twice) = %v, want it named", err)
	}
	if err := (&reconcile.Verify{HitsTopic: "h", OrdersTopic: "o", Timeout: 1, Options: reconcile.Options{HitPartitions: 2, OrderPartitions: 1}}).Validate(); err != nil {
		t.Errorf("Validate(good settings) = %v", err)
	}

	ctx := context.Background()
	w, b, _ := playDay1(t, world.Garbage{})
	v := reconcile.Verify{HitsTopic: "hits", OrdersTopic: "orders", Timeout: time.Minute,
		Options: reconcile.Options{HitPartitions: 2, OrderPartitions: 1}}
	var lines []string
	logf := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	r, err := v.Run(ctx, w, 1, 1, world.Garbage{}, b.Addrs(), nil, logf)
	if err != nil || !r.OK || len(lines) != 3 || !strings.HasPrefix(lines[0], "verify: run day 1 (2026-06-02) sends ") {
		t.Errorf("Run(as played) = %v, %v, lines %q; want OK and three lines", r != nil && r.OK, err, lines)
	}
	if r, err := v.Run(ctx, w, 1, 2, world.Garbage{}, b.Addrs(), nil, nil); r == nil || r.OK || err == nil ||
		!strings.HasPrefix(err.Error(), "verify: hits and orders differ from what run days 1…2 (seed ") {
		t.Errorf("Run(a day that was not played) = %v; want the result and an error naming the run", err)
	}
	v.HitPartitions = 3
	var pe *reconcile.PartitionsError
	if _, err := v.Run(ctx, w, 1, 1, world.Garbage{}, b.Addrs(), nil, nil); !errors.As(err, &pe) || pe.Topic != "hits" || pe.Has != 2 ||
		!strings.HasSuffix(err.Error(), "if it was created so, set its partition count to 2") {
		t.Errorf("Run(3 hits partitions) = %v, want a *PartitionsError that says the count", err)
	}
	v.HitPartitions, v.Timeout = 2, time.Nanosecond
	var te *reconcile.TimeoutError
	if _, err := v.Run(ctx, w, 1, 1, world.Garbage{}, b.Addrs(), nil, nil); !errors.As(err, &te) || te.Timeout != time.Nanosecond ||
		!errors.Is(err, context.DeadlineExceeded) || !strings.HasSuffix(err.Error(), "(timeout 1ns)") {
		t.Errorf("Run(a 1 ns timeout) = %v, want a *TimeoutError naming the timeout", err)
	}
}
