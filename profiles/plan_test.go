package profiles

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
)

// TestPlanOfEachProfile: every embedded profile becomes a valid engine plan whose days,
// topics, pacing and stop conditions are the profile's, and a line that says so.
func TestPlanOfEachProfile(t *testing.T) {
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name           string
		days           int
		hits, orders   string
		byCount, paced bool
		describe       string
	}{
		{"fill", 8, "hits", "orders", false, false, "model days 0-7 (hits+snapshots)"},
		{"stress", 0, "hits", "", true, true, "paced at 20000/s"},
		{"live", 1, "hits", "orders", false, true, "replayed at x60"},
		{"garbage", 1, "hits", "orders", false, false, "garbage"},
		{"smoke", 2, "hits", "orders", false, false, "scale 0.02"},
	} {
		p, err := Load(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		p = p.WithDefaults()
		plan, err := p.Plan(w, PlanOptions{Workers: 1})
		if err != nil {
			t.Errorf("%s: Plan: %v", tc.name, err)
			continue
		}
		if plan.Days != tc.days || plan.Hits != tc.hits || plan.Orders != tc.orders || plan.Pacing.ByCount != tc.byCount ||
			(plan.Pacing.Runner != nil) != tc.paced || plan.Workers != 1 || plan.From != p.Play.Day || plan.Garbage.Rate != p.Garbage.Rate || plan.Garbage.Redeliver != p.Garbage.Redeliver {
			t.Errorf("%s: plan days %d, topics %q %q, by count %v, runner %v; want %d, %q %q, %v, %v",
				tc.name, plan.Days, plan.Hits, plan.Orders, plan.Pacing.ByCount, plan.Pacing.Runner != nil, tc.days, tc.hits, tc.orders, tc.byCount, tc.paced)
		}
		if d := p.Describe(); !strings.Contains(d, tc.describe) {
			t.Errorf("%s: Describe() = %q, want it to contain %q", tc.name, d, tc.describe)
		}
	}
}

func TestCheckExpect(t *testing.T) {
	n := int64(12)
	p := Profile{Name: "smoke", Expect: Expect{Hits: &n}}
	var out bytes.Buffer
	if problems := p.CheckExpect(&out, map[string]int64{"hits": 12, "orders": 3}); len(problems) != 0 || out.String() != "expect hits: 12 messages, profile smoke says 12: ok\n" {
		t.Errorf("CheckExpect(as expected) = %q, printed %q", problems, out.String())
	}
	out.Reset()
	problems := p.CheckExpect(&out, map[string]int64{"hits": 11})
	if want := []string{"hits holds 11 messages, profile smoke expects 12"}; !slices.Equal(problems, want) || !strings.HasSuffix(out.String(), ": DIFFERS\n") {
		t.Errorf("CheckExpect(one short) = %q, printed %q; want %q", problems, out.String(), want)
	}
}

// TestCheckRunTrustsAcks: without brokers to read back, a run is checked by what each topic
// acknowledged against the profile's expected counts; a segment, which holds a share, is
// not held to the whole run's counts.
func TestCheckRunTrustsAcks(t *testing.T) {
	n := int64(12)
	p := Profile{Name: "smoke", Expect: Expect{Hits: &n}}
	plan := play.Plan{From: 1, Days: 1, Hits: "hits"}
	st := sink.Stats{Topics: map[string]sink.TopicStats{"hits": {Sent: 12, Acked: 11}}}
	var out bytes.Buffer
	problems, err := p.CheckRun(context.Background(), &out, nil, plan, play.Result{Stopped: play.StopDays}, st)
	if want := "hits holds 11 messages, profile smoke expects 12"; err != nil || len(problems) != 1 || problems[0] != want {
		t.Errorf("CheckRun(11 of 12 acknowledged) = %q, %v; want %q", problems, err, want)
	}
	plan.Segment = world.Segment{I: 0, N: 2}
	if problems, err := p.CheckRun(context.Background(), &out, nil, plan, play.Result{Stopped: play.StopDays}, st); err != nil || len(problems) != 0 {
		t.Errorf("CheckRun(segment 0/2) = %q, %v; want no expectation checked", problems, err)
	}
}
