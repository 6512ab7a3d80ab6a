package play_test

import (
	"maps"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/play"
)

// TestPlanTopics: a plan writes the topics it names, each with its kind's partitions.
func TestPlanTopics(t *testing.T) {
	for _, c := range []struct {
		plan play.Plan
		want map[string]int32
	}{
		{play.Plan{Hits: "hits", Orders: "orders"}, map[string]int32{"hits": 2, "orders": 1}},
		{play.Plan{Orders: "orders"}, map[string]int32{"orders": 1}},
		{play.Plan{Hits: "raw"}, map[string]int32{"raw": 2}},
		{play.Plan{}, map[string]int32{}},
	} {
		if got := c.plan.Topics(); !maps.Equal(got, c.want) {
			t.Errorf("Plan{Hits: %q, Orders: %q}.Topics() = %v, want %v", c.plan.Hits, c.plan.Orders, got, c.want)
		}
	}
}
