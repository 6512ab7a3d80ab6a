package console

import (
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// TestModelNotice: a day's model says nothing in its first second, then what it does, how far
// it is and about how long is left, and again every ten seconds; a day built within a second
// says nothing at all.
func TestModelNotice(t *testing.T) {
	var out strings.Builder
	clock := time.Unix(0, 0)
	m := newModelNotice(&out, func() time.Time { return clock })
	at := func(d time.Duration, p world.ModelProgress) {
		clock = time.Unix(0, 0).Add(d)
		m.heard(p)
	}
	// Day 0: 91 cohorts over 20 s, then 1 000 000 visitors over 30 s.
	at(0, world.ModelProgress{Day: 0, Phase: world.ModelCohorts, Done: 0, Total: 91})
	at(500*time.Millisecond, world.ModelProgress{Day: 0, Phase: world.ModelCohorts, Done: 2, Total: 91})
	at(2*time.Second, world.ModelProgress{Day: 0, Phase: world.ModelCohorts, Done: 9, Total: 91})
	at(5*time.Second, world.ModelProgress{Day: 0, Phase: world.ModelCohorts, Done: 23, Total: 91})
	at(20*time.Second, world.ModelProgress{Day: 0, Phase: world.ModelVisitors, Done: 0, Total: 1_000_000})
	at(30*time.Second, world.ModelProgress{Day: 0, Phase: world.ModelVisitors, Done: 250_000, Total: 1_000_000})
	at(35*time.Second, world.ModelProgress{Day: 0, Phase: world.ModelVisitors, Done: 500_000, Total: 1_000_000})
	at(50*time.Second, world.ModelProgress{Day: 0, Phase: world.ModelVisitors, Done: 1_000_000, Total: 1_000_000})
	// Day 1 takes half a second: nothing.
	at(60*time.Second, world.ModelProgress{Day: 1, Phase: world.ModelCohorts, Done: 91, Total: 91})
	at(60*time.Second+500*time.Millisecond, world.ModelProgress{Day: 1, Phase: world.ModelVisitors, Done: 10, Total: 10})
	want := "clickgen: modelling day 0, whole before any of it is sent: cohorts 9 of 91, about 18s to go, then its visitors (2s so far; Ctrl-C stops)\n" +
		"clickgen: modelling day 0: visitors 0 of 1000000 (20s so far)\n" +
		"clickgen: modelling day 0: visitors 250000 of 1000000, about 30s to go (30s so far)\n"
	if got := out.String(); got != want {
		t.Errorf("notices:\n%s\nwant:\n%s", got, want)
	}
}
