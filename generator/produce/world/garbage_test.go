package world

import (
	"maps"
	"slices"
	"testing"

	"github.com/clickgen/clickgen/generator/verify/intake"
)

// verdict is what the stand's intake (the Go model, proven against ClickHouse by package
// intake's tests) does with value on a topic of kind, as an outcome: intake.NoRow,
// an error class, or intake.Accepted (for hits: with a WatchID the deduplication reads).
func verdict(kind string, value []byte) string {
	class, row := intake.ClassifyOrder(value)
	if kind == KindHits {
		class, row = intake.ClassifyHit(value)
	}
	switch {
	case !row:
		return intake.NoRow
	case class != "":
		return class
	case kind == KindHits:
		if _, ok := intake.HitDedupKey(value); !ok {
			return "accepted without a WatchID"
		}
	}
	return intake.Accepted
}

// TestGarbageTable walks the garbage table: every row is a well-formed class (a unique name,
// a topic that carries it, a default weight a Mix allows, an outcome its topics' intake has),
// the class lists and the default mix are derived from it, [GarbageOutcome] says what the row
// says, and each row's maker, for each topic it carries, makes messages that the intake's
// classifier files exactly under the row's outcome, in more than one kind. A new class is a new
// row: this test checks it without being edited.
func TestGarbageTable(t *testing.T) {
	w := canonical(t)
	const d, n = 2, 60
	names := map[string]bool{}
	var hitNames, orderNames, all []string
	wantMix := map[string]int{}
	for _, c := range garbageClasses {
		switch {
		case c.name == "" || names[c.name]:
			t.Errorf("class %q: the name is empty or repeated", c.name)
		case c.hit == nil && c.order == nil:
			t.Errorf("class %s: no topic carries it", c.name)
		case c.weight < 0 || c.weight > MaxMixWeight:
			t.Errorf("class %s: default weight %d, want 0 (opt-in) to %d", c.name, c.weight, MaxMixWeight)
		}
		names[c.name] = true
		all = append(all, c.name)
		if c.weight > 0 {
			wantMix[c.name] = c.weight
		}
		if err := (Garbage{Rate: 1, Mix: Mix{c.name: 1}}).Validate(); err != nil {
			t.Errorf("class %s: a mix naming it is refused: %v", c.name, err)
		}
		for _, topic := range []struct {
			kind     string
			carried  bool
			outcomes []string
			list     *[]string
		}{{KindHits, c.hit != nil, intake.HitOutcomes[:], &hitNames}, {KindOrders, c.order != nil, intake.OrderOutcomes[:], &orderNames}} {
			got, ok := GarbageOutcome(topic.kind, c.name)
			if !topic.carried {
				if ok {
					t.Errorf("GarbageOutcome(%s, %s) = %q, true; the topic does not carry the class", topic.kind, c.name, got)
				}
				continue
			}
			*topic.list = append(*topic.list, c.name)
			if !ok || got != c.outcome || !slices.Contains(topic.outcomes, c.outcome) {
				t.Errorf("class %s on %s: GarbageOutcome = %q, %v; the row says %q, the topic's intake has %v", c.name, topic.kind, got, ok, c.outcome, topic.outcomes)
			}
			xs, err := w.Inject(topic.kind, c.name, d, n)
			if err != nil {
				t.Fatalf("Inject(%s, %s): %v", topic.kind, c.name, err)
			}
			kinds := map[string]int{}
			for i, x := range xs {
				kinds[x.Kind]++
				if v := verdict(topic.kind, x.Value); v != c.outcome {
					t.Errorf("%s %s #%d (%s): the intake's verdict is %q, the row promises %q: %.160q", topic.kind, c.name, i, x.Kind, v, c.outcome, x.Value)
				}
			}
			if len(kinds) < 2 {
				t.Errorf("%s %s: %d messages all of kind %v: the maker does not vary", topic.kind, c.name, n, slices.Collect(maps.Keys(kinds)))
			}
		}
	}
	for _, l := range []struct {
		name      string
		got, want []string
	}{
		{"HitGarbageClasses", HitGarbageClasses, hitNames},
		{"OrderGarbageClasses", OrderGarbageClasses, orderNames},
		{"AllGarbageClasses()", AllGarbageClasses(), all},
		{"GarbageClassesFor(hits)", GarbageClassesFor(KindHits), hitNames},
		{"GarbageClassesFor(orders)", GarbageClassesFor(KindOrders), orderNames},
	} {
		if !slices.Equal(l.got, l.want) {
			t.Errorf("%s = %v, the table's rows say %v", l.name, l.got, l.want)
		}
	}
	if !maps.Equal(defaultMix, wantMix) {
		t.Errorf("the default mix is %v, the table's weights say %v", defaultMix, wantMix)
	}
	for _, kind := range []string{KindHits, KindOrders} {
		if o, ok := GarbageOutcome(kind, ""); !ok || o != intake.Accepted {
			t.Errorf("GarbageOutcome(%s, clean) = %q, %v; want %q: a clean message and its redeliveries are accepted", kind, o, ok, intake.Accepted)
		}
		if o, ok := GarbageOutcome(kind, "bogus"); ok {
			t.Errorf("GarbageOutcome(%s, bogus) = %q, true; want no such class", kind, o)
		}
	}
	if o, ok := GarbageOutcome("users", GarbageNotAnObject); ok {
		t.Errorf("GarbageOutcome(users, …) = %q, true; want no such topic kind", o)
	}
	if GarbageClassesFor("users") != nil {
		t.Error("GarbageClassesFor(users) lists classes")
	}
}
