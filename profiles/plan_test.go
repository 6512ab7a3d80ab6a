package profiles

import (
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
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
