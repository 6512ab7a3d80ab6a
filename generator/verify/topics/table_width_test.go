package topics

import (
	"context"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// TestTableFitsATerminal is issue 38 item 6: verify's table of the topics ran 175–211
// columns. The widest table verify makes — every garbage class with redelivery, a day half
// lost and the rest checked against 7 partitions (so cells read "arrived≠sent" everywhere),
// other runs' messages beside — is cut into parts no wider than 100 columns, and so is every
// sentence around it.
func TestTableFitsATerminal(t *testing.T) {
	w, err := world.NewWorld(world.Params{Scale: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	mix := map[string]int{}
	for _, c := range world.AllGarbageClasses() {
		mix[c] = 1
	}
	g := world.Garbage{Rate: 0.05, Mix: mix, Redeliver: 0.01}
	e, err := Expect(context.Background(), w, world.Range{From: 2, Days: 2, Garbage: g}, Options{HitPartitions: 7, OrderPartitions: 3})
	if err != nil {
		t.Fatal(err)
	}
	hm, om := sentMessages(t, w, 2, 2, g)
	oh, _ := sentMessages(t, w, 0, 1, world.Garbage{})
	r := e.Check(append(hm[:len(hm)/2], oh...), om)
	text := table(t, r)
	if r.OK || !strings.Contains(text, "≠") || !strings.Contains(text, "other runs'") || !strings.Contains(text, " p6") {
		t.Fatalf("the table is not the wide case this test means:\n%s", text)
	}
	for i, line := range strings.Split(text, "\n") {
		if n := len([]rune(line)); n > 100 {
			t.Errorf("line %d is %d columns: %q", i+1, n, line)
		}
	}
	t.Logf("\n%s", text)
}
