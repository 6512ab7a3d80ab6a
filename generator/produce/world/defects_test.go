package world

import (
	"bytes"
	"context"
	"strconv"
	"testing"

	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/internal/testenv"
)

// everything names every garbage class with equal weight.
var everything = map[string]int{GarbageNotAnObject: 1, GarbageKeysetMismatch: 1, GarbageKeyUnparsed: 1,
	GarbageAcceptedBad: 1, GarbageVanishing: 1, GarbageFieldInvalid: 1}

// TestHitExtrasLandWhereIntended checks every malformed hit of two garbage-heavy days with the
// Go model of the stand's intake: each lands in the error class it was made for, accepted_bad
// lands in ods.event under a fresh WatchID, vanishing leaves no row, and a redelivery is a
// byte-identical copy of a clean event placed after it.
func TestHitExtrasLandWhereIntended(t *testing.T) {
	w, _ := NewWorld(Params{})
	g := Garbage{Rate: 0.05, Mix: everything, Redeliver: 0.01}
	kinds := map[string]int{}
	for d := 0; d < 2; d++ {
		day := w.Day(d)
		extras := day.HitExtras(g)
		if len(extras) < day.Len()*5/100 {
			t.Fatalf("day %d: %d extras for %d events at rate 0.05+0.01", d, len(extras), day.Len())
		}
		clean := map[uint64]bool{}
		for _, e := range day.events {
			clean[e.watchID] = true
		}
		fresh := map[uint64]bool{}
		for i, e := range extras {
			if i > 0 && e.After < extras[i-1].After {
				t.Fatalf("day %d: extras out of order at %d", d, i)
			}
			if bytes.IndexByte(e.Value, '\n') >= 0 {
				t.Fatalf("day %d extra %d (%s/%s) contains a newline: %q", d, i, e.Class, e.Kind, e.Value)
			}
			if e.Source >= 0 && string(e.Key) != strconv.FormatUint(day.ClientID(e.Source), 10) {
				t.Errorf("day %d extra %d: key %s, want the source event's ClientID", d, i, e.Key)
			}
			class, row := intake.ClassifyHit(e.Value)
			kinds[e.Class+"/"+e.Kind]++
			switch e.Class {
			case "":
				if e.After <= e.Source || !bytes.Equal(e.Value, day.AppendEvent(nil, e.Source)) || class != "" {
					t.Errorf("day %d: redelivery %d of event %d at %d is not a later identical copy", d, i, e.Source, e.After)
				}
			case GarbageVanishing:
				if row {
					t.Errorf("day %d: vanishing %s %q produces a row", d, e.Kind, e.Value)
				}
			case GarbageAcceptedBad:
				key, ok := intake.HitDedupKey(e.Value)
				if class != "" || !row || !ok {
					t.Errorf("day %d: accepted_bad %s lands in %q (row %v): %.200s", d, e.Kind, class, row, e.Value)
				} else if clean[key.WatchID] || fresh[key.WatchID] {
					t.Errorf("day %d: accepted_bad %s reuses WatchID %d", d, e.Kind, key.WatchID)
				}
				fresh[key.WatchID] = true
			default:
				if class != e.Class || !row {
					t.Errorf("day %d: %s/%s is classified %q: %.300q", d, e.Class, e.Kind, class, e.Value)
				}
			}
		}
	}
	for _, k := range []string{"not_an_object/truncated", "not_an_object/binary", "not_an_object/plain_text", "not_an_object/scalar",
		"not_an_object/array", "keyset_mismatch/missing_key", "keyset_mismatch/extra_key", "keyset_mismatch/renamed_key",
		"keyset_mismatch/wrong_case", "keyset_mismatch/empty_object", "key_field_unparsed/id_text", "key_field_unparsed/id_negative",
		"key_field_unparsed/id_null", "key_field_unparsed/id_object", "key_field_unparsed/date_dotted", "key_field_unparsed/time_fraction",
		"key_field_unparsed/time_offset", "key_field_unparsed/time_space", "accepted_bad/date_spelling", "accepted_bad/id_numeric_string",
		"accepted_bad/id_fraction", "accepted_bad/wrong_type", "vanishing/empty_value", "vanishing/tombstone", "/redelivered"} {
		if kinds[k] == 0 {
			t.Errorf("kind %s never produced", k)
		}
	}
}

// TestOrderExtrasLandWhereIntended does the same for snapshots.
func TestOrderExtrasLandWhereIntended(t *testing.T) {
	w, _ := NewWorld(Params{})
	book := NewOrderBook(w)
	g := Garbage{Rate: 0.2, Mix: everything, Redeliver: 0.02}
	kinds := map[string]int{}
	for d := 0; d < 7; d++ {
		rows, keys, err := book.SnapshotRows(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range w.OrderExtras(d, rows, keys, g) {
			class, row := intake.ClassifyOrder(e.Value)
			kinds[e.Class+"/"+e.Kind]++
			switch {
			case e.Class == "":
				if !bytes.Equal(e.Value, rows[e.Source]) || class != "" {
					t.Errorf("snapshot %d: redelivery of row %d differs or is rejected (%q)", d, e.Source, class)
				}
			case class != e.Class || !row:
				t.Errorf("snapshot %d: %s/%s is classified %q: %s", d, e.Class, e.Kind, class, e.Value)
			}
			if e.Source >= 0 && !bytes.Equal(e.Key, keys[e.Source]) {
				t.Errorf("snapshot %d: extra keyed %s, want its source's order_id %s", d, e.Key, keys[e.Source])
			}
		}
	}
	for _, k := range []string{"field_invalid/money_negative", "field_invalid/money_number", "field_invalid/money_three_decimals",
		"field_invalid/time_no_millis", "field_invalid/time_offset", "field_invalid/user_id_string", "field_invalid/items_not_array",
		"field_invalid/snapshot_date_bad", "not_an_object/truncated", "keyset_mismatch/missing_key"} {
		if kinds[k] == 0 {
			t.Errorf("kind %s never produced", k)
		}
	}
}

// TestGarbageLeavesCleanStreamAlone: no garbage or redelivery setting changes a clean byte, and
// the extras themselves are a pure function of (seed, day, settings).
func TestGarbageLeavesCleanStreamAlone(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	ctx := context.Background()
	w, _ := NewWorld(Params{})
	plain, err := w.Inventory(ctx, Range{From: 0, Days: 2}, 0)
	if err != nil {
		t.Fatal(err)
	}
	dirty, err := w.Inventory(ctx, Range{From: 0, Days: 2, Garbage: Garbage{Rate: 0.3, Mix: everything, Redeliver: 0.5}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range plain.Days {
		if plain.Days[i].SHA256 != dirty.Days[i].SHA256 || plain.Days[i].Events != dirty.Days[i].Events {
			t.Errorf("day %d: garbage changed the clean stream: %s vs %s", i, plain.Days[i].SHA256, dirty.Days[i].SHA256)
		}
		if dirty.Days[i].Messages <= plain.Days[i].Messages || plain.Days[i].Messages != plain.Days[i].Events {
			t.Errorf("day %d: messages %d with garbage, %d without (events %d)", i, dirty.Days[i].Messages, plain.Days[i].Messages, plain.Days[i].Events)
		}
	}
	if plain.Snapshots[0].SHA256 != dirty.Snapshots[0].SHA256 {
		t.Errorf("garbage changed the clean snapshot")
	}
	a, b := w.Day(1).HitExtras(Garbage{Rate: 0.01}), w.Day(1).HitExtras(Garbage{Rate: 0.01})
	if len(a) != len(b) {
		t.Fatalf("extras differ in number: %d vs %d", len(a), len(b))
	}
	for i := range a {
		if !bytes.Equal(a[i].Value, b[i].Value) || a[i].After != b[i].After {
			t.Fatalf("extra %d differs between two calls", i)
		}
	}
}

func TestParseMix(t *testing.T) {
	mix, err := ParseMix("not_an_object=2, field_invalid=1,vanishing=0")
	if err != nil || mix[GarbageNotAnObject] != 2 || mix[GarbageFieldInvalid] != 1 || len(mix) != 3 {
		t.Errorf("ParseMix = %v, %v", mix, err)
	}
	for _, bad := range []string{"", "nope=1", "not_an_object", "not_an_object=-1", "not_an_object=x", "not_an_object=1,not_an_object=2"} {
		if _, err := ParseMix(bad); err == nil {
			t.Errorf("ParseMix(%q) accepted", bad)
		}
	}
}
