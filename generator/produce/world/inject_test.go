package world

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"math"

	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/internal/testenv"
)

// TestInjectLandsWhereClaimed: every class of each topic, injected, gets from the stand's
// intake the verdict its class names; hits carry their source's ClientID as key and a WatchID
// no clean event of the day has, orders their order_id.
func TestInjectLandsWhereClaimed(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	w := canonical(t)
	const d, n = 2, 40
	day := w.Day(d)
	clean := map[uint64]bool{}
	for _, e := range day.events {
		clean[e.watchID] = true
	}
	for _, kind := range []string{KindHits, KindOrders} {
		for _, class := range GarbageClassesFor(kind) {
			xs, err := w.Inject(kind, class, d, n)
			if err != nil || len(xs) != n {
				t.Fatalf("Inject(%s, %s) = %d messages, %v", kind, class, len(xs), err)
			}
			kinds := map[string]bool{}
			for i, x := range xs {
				kinds[x.Kind] = true
				if x.Class != class || x.Key == nil || x.Source < 0 {
					t.Fatalf("%s %s #%d: class %q, key %q, source %d", kind, class, i, x.Class, x.Key, x.Source)
				}
				var got string
				var row bool
				if kind == KindHits {
					got, row = intake.ClassifyHit(x.Value)
					if want := strconv.FormatUint(day.ClientID(x.Source), 10); string(x.Key) != want {
						t.Errorf("hits %s #%d: key %s, its source's ClientID is %s", class, i, x.Key, want)
					}
					if k, ok := intake.HitDedupKey(x.Value); ok && clean[k.WatchID] {
						t.Errorf("hits %s #%d: WatchID %d is a clean event's", class, i, k.WatchID)
					}
				} else {
					got, row = intake.ClassifyOrder(x.Value)
					if class == GarbageFieldInvalid && !bytes.HasPrefix(x.Value, append(append([]byte(`{"order_id":"`), x.Key...), '"')) {
						t.Errorf("orders %s #%d: key %s is not in the row %.120s", class, i, x.Key, x.Value)
					}
				}
				want := class
				switch class {
				case GarbageAcceptedBad:
					want = ""
				case GarbageVanishing:
					if row {
						t.Errorf("%s %s #%d (%s) leaves a row", kind, class, i, x.Kind)
					}
					continue
				}
				if !row || got != want {
					t.Errorf("%s %s #%d (%s): the intake says %q (row %v): %.120q", kind, class, i, x.Kind, got, row, x.Value)
				}
			}
			if len(kinds) < 2 {
				t.Errorf("%s %s: %d messages of a single kind %v: the draw does not vary", kind, class, n, kinds)
			}
		}
	}
}

// TestInjectDeterministic: the same call gives the same bytes, n messages are a prefix of
// n+1, and injections do not repeat the day's garbage.
func TestInjectDeterministic(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	w := canonical(t)
	for _, kind := range []string{KindHits, KindOrders} {
		class := GarbageKeysetMismatch
		a, _ := w.Inject(kind, class, 1, 5)
		b, _ := w.Inject(kind, class, 1, 6)
		if !reflect.DeepEqual(a, b[:5]) {
			t.Errorf("%s: Inject(5) is not a prefix of Inject(6)", kind)
		}
		c, _ := w.Inject(kind, class, 1, 5)
		if !reflect.DeepEqual(a, c) {
			t.Errorf("%s: Inject is not deterministic", kind)
		}
		other, _ := w.Inject(kind, class, 2, 5)
		if reflect.DeepEqual(a, other) {
			t.Errorf("%s: days 1 and 2 inject the same messages", kind)
		}
	}
	g := Garbage{Rate: 0.01, Mix: map[string]int{GarbageKeysetMismatch: 1}}
	xs := w.Day(1).HitExtras(g)
	inj, _ := w.Inject(KindHits, GarbageKeysetMismatch, 1, 50)
	for _, x := range inj {
		for _, y := range xs {
			if len(x.Value) > 100 && bytes.Equal(x.Value, y.Value) { // short ones ({}) repeat by nature
				t.Fatalf("an injected message repeats the day's garbage: %.120q", x.Value)
			}
		}
	}
}

func TestInjectRejects(t *testing.T) {
	w := canonical(t)
	for _, tc := range []struct {
		kind, class string
		d, n        int
		want        string
	}{
		{"users", GarbageNotAnObject, 0, 1, "hits or orders"},
		{KindHits, GarbageFieldInvalid, 0, 1, "key_field_unparsed"},
		{KindOrders, GarbageVanishing, 0, 1, "field_invalid"},
		{KindHits, "nonsense", 0, 1, "not_an_object"},
		{KindHits, GarbageNotAnObject, -1, 1, "day"},
		{KindOrders, GarbageNotAnObject, 0, -1, "count"},
		{KindHits, GarbageNotAnObject, 0, MaxInject + 1, "count"},
		{KindHits, GarbageNotAnObject, 0, 1_000_000_000, "count"},
	} {
		if _, err := w.Inject(tc.kind, tc.class, tc.d, tc.n); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Inject(%s, %s, %d, %d) = %v, want an error mentioning %q", tc.kind, tc.class, tc.d, tc.n, err, tc.want)
		}
	}
	if xs, err := w.Inject(KindOrders, GarbageNotAnObject, 0, 0); err != nil || len(xs) != 0 {
		t.Errorf("Inject(0 messages) = %d, %v", len(xs), err)
	}
}

// TestInjectDayBounded is issue 24 item 5 in the library: Inject refuses a day the wire
// formats cannot carry, as CheckDays does (day 2147483647 panicked with an index out of range).
func TestInjectDayBounded(t *testing.T) {
	w := canonical(t)
	for _, d := range []int{MaxDay + 1, math.MaxInt32, math.MaxInt} {
		if _, err := w.Inject(KindHits, GarbageAcceptedBad, d, 1); err == nil || !strings.Contains(err.Error(), "the last model day is 29104") {
			t.Errorf("Inject(hits, day %d) = %v; want the last model day named", d, err)
		}
	}
}
