package profiles

import (
	"reflect"
	"slices"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// TestBuiltins: the stand's verbs' profiles are complete (WithDefaults changes nothing, so a
// scale of 0 reaches NewWorld and is refused), valid, not offered by List, and plan what the
// verbs send, to the topics they are told.
func TestBuiltins(t *testing.T) {
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p            Profile
		hits, orders string
		replay       bool
	}{
		{Batch(), "h", "", false},
		{Live(), "h", "", true},
		{Snapshot(), "", "o", false},
	} {
		if slices.Contains(List(), tc.p.Name) && tc.p.Name != "live" {
			t.Errorf("List() offers the built-in %s", tc.p.Name)
		}
		if !reflect.DeepEqual(tc.p.WithDefaults(), tc.p) {
			t.Errorf("%s: WithDefaults() = %+v, want the profile unchanged %+v", tc.p.Name, tc.p.WithDefaults(), tc.p)
		}
		if err := tc.p.Validate(); err != nil {
			t.Errorf("%s: Validate() = %v", tc.p.Name, err)
		}
		plan, err := tc.p.Plan(w, PlanOptions{HitsTopic: "h", OrdersTopic: "o"})
		if err != nil || plan.Hits != tc.hits || plan.Orders != tc.orders || (plan.Pacing.Runner != nil) != tc.replay {
			t.Errorf("%s: Plan() topics %q %q, runner %v, %v; want %q %q, runner %v", tc.p.Name, plan.Hits, plan.Orders, plan.Pacing.Runner != nil, err, tc.hits, tc.orders, tc.replay)
		}
	}
	zero := 0.0
	if _, err := Batch().Apply(Overrides{Scale: &zero}); err == nil || err.Error() != "world.scale 0: want a factor in (0, 1000]" {
		t.Errorf("Batch with scale 0: Apply() = %v, want the scale refused", err)
	}
}
