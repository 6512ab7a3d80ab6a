package intake_test

import (
	"bytes"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/intake"
)

// TestOrderedParse: the single-pass parse of a message in the contract's order gives the very
// document the general parser gives, for every message of two garbage-heavy days (clean ones,
// which it takes, and malformed ones, which it takes or leaves to the general parser), and
// for each clean message spoiled in ways that must send it to the general parser (whitespace,
// an escape, keys out of order, a trailing byte).
func TestOrderedParse(t *testing.T) {
	w, err := world.NewWorld(world.Params{Scale: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	fast, clean := 0, 0
	check := func(raw []byte, what string) {
		t.Helper()
		f, same := intake.OrderedParseAgrees(raw)
		if !same {
			t.Fatalf("%s: the ordered parse differs from the general one: %s", what, raw)
		}
		if f {
			fast++
		}
	}
	for d := range 2 {
		for _, m := range hitMessages(t, w, d, heavyGarbage) {
			check(m.value, m.intent)
			if m.intent != "clean" {
				continue
			}
			clean++
			for _, spoil := range [][]byte{
				bytes.Replace(m.value, []byte(`":`), []byte(`": `), 1),
				bytes.Replace(m.value, []byte(`"https`), []byte(`"\u0068ttps`), 1),
				bytes.Replace(m.value, []byte(`"WatchID"`), []byte(`"watchID"`), 1),
				append(bytes.Clone(m.value), ' '),
				bytes.Replace(m.value, []byte(`,"VisitID":`), []byte(`,"VisitID" :`), 1),
			} {
				check(spoil, "spoiled")
			}
		}
	}
	if fast < clean { // every clean message, and some garbage
		t.Errorf("the ordered parse took %d messages of %d clean ones", fast, clean)
	}
	t.Logf("%d clean messages; the ordered parse took %d messages, every one as the general parser", clean, fast)
}
