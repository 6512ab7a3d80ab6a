package reconcile_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/broker"
	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/reconcile"
	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
)

// TestCheckRun: a run played into the embedded broker reconciles with its inventory (both
// topics, or one alone); checked as cut short, each topic holds what was acknowledged; a
// message nobody planned makes both checks fail.
func TestCheckRun(t *testing.T) {
	ctx := context.Background()
	b, err := broker.StartBroker("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	w, err := world.NewWorld(world.Params{Scale: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	k, err := sink.Dial(ctx, false, sink.DefaultTopics(), nil, sink.SeedBrokers(b.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	g := world.Garbage{Rate: 0.01}
	plan := play.Plan{World: w, From: 1, Days: 1, Hits: "hits", Orders: "orders", Garbage: g}
	if _, err := play.Run(ctx, plan, k, nil); err != nil {
		t.Fatal(err)
	}
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
