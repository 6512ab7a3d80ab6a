package world

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/internal/testenv"
	"github.com/clickgen/clickgen/schema"
)

func TestSegmentText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Segment
		err  bool
	}{
		{"", Segment{}, false},
		{"0/1", Segment{0, 1}, false},
		{"3/4", Segment{3, 4}, false},
		{" 1/2 ", Segment{}, true}, // issue 29 N15: read as a day is, spaces refused
		{"+1/2", Segment{1, 2}, false},
		{"0x1/2", Segment{}, true},
		{"4/4", Segment{}, true},
		{"-1/4", Segment{}, true},
		{"1/0", Segment{}, true},
		{"1", Segment{}, true},
		{"a/b", Segment{}, true},
		{"0/2000", Segment{}, true},
	} {
		var s Segment
		err := s.Set(tc.in)
		if (err != nil) != tc.err || (err == nil && s != tc.want) {
			t.Errorf("Set(%q) = %v, %v; want %v, error %v", tc.in, s, err, tc.want, tc.err)
		}
	}
	if got := (Segment{2, 3}).String(); got != "2/3" {
		t.Errorf("String() = %q, want 2/3", got)
	}
}

// wire is a message as a topic holds it: topic, key, value and partition (of 12).
type wire struct {
	topic, key, value string
	partition         int32
}

func wireOf(s []sent) []wire {
	out := make([]wire, len(s))
	for i, m := range s {
		topic, _, _ := strings.Cut(m.unit, " ")
		out[i] = wire{topic, m.key, m.value, schema.PartitionForKey([]byte(m.key), 12)}
	}
	return out
}

// isSubsequence reports whether sub appears in whole in order (not necessarily contiguous).
func isSubsequence(sub, whole []wire) bool {
	j := 0
	for i := 0; i < len(whole) && j < len(sub); i++ {
		if whole[i] == sub[j] {
			j++
		}
	}
	return j == len(sub)
}

// TestSegmentUnion checks the promise of Segment: for N = 1 … 4, the N shares of hits of day
// 1 and the snapshot of day 0 hold together exactly the messages (topic, key, value,
// partition) of the whole run, as a multiset; each share is a subsequence of the whole run (so
// every key's order is kept); every key lives in one share; and each share is counted exactly
// by the inventory of its share. Clean runs build a segment's days with SegmentDay; with every
// garbage class and redeliveries the days are built whole and shared.
func TestSegmentUnion(t *testing.T) {
	testenv.SkipUnderRace(t, watchedWorkers)
	w := canonical(t)
	if testing.Short() {
		w = freshWorld(t, Params{Scale: 0.25}) // a quarter of the bytes: -race -short takes minutes otherwise
	}
	var g Garbage
	if err := g.Mix.Set(strings.Join(AllGarbageClasses(), "=1,") + "=1"); err != nil {
		t.Fatal(err)
	}
	g.Rate, g.Redeliver = 0.01, 0.01
	for _, tc := range []struct {
		name string
		g    Garbage
	}{{"clean", Garbage{}}, {"garbage", g}} {
		t.Run(tc.name, func(t *testing.T) { testSegmentUnion(t, w, tc.g) })
	}
}

func testSegmentUnion(t *testing.T, w *World, g Garbage) {
	const from, days = 1, 1
	r := Range{From: from, Days: days, Garbage: g}
	whole := wireOf(sendUnits(t, w, r, UnitOptions{}))
	wantInv, err := w.Inventory(context.Background(), r, 0)
	if err != nil {
		t.Fatal(err)
	}
	cmpWire := func(a, b wire) int {
		return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
	}
	sorted := slices.SortedFunc(slices.Values(whole), cmpWire)
	for n := 1; n <= 4; n++ {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			var union []wire
			owner := map[string]int{}
			var invs []*Inventory
			for i := range n {
				seg := Segment{I: i, N: n}
				share := r
				share.Segment = seg
				got := wireOf(sendUnits(t, w, share, UnitOptions{}))
				if !isSubsequence(got, whole) {
					t.Errorf("segment %v: its messages are not a subsequence of the whole run's", seg)
				}
				for _, m := range got {
					if m.key == "" {
						continue
					}
					if o, ok := owner[m.topic+"/"+m.key]; ok && o != i {
						t.Errorf("key %s/%s in segments %d and %d", m.topic, m.key, o, i)
					}
					owner[m.topic+"/"+m.key] = i
				}
				union = append(union, got...)
				inv, err := segmentInventory(w, from, days, g, seg)
				if err != nil {
					t.Fatal(err)
				}
				msgs := 0
				for _, d := range inv.Days {
					msgs += d.Messages
				}
				for _, s := range inv.Snapshots {
					msgs += s.Messages
				}
				if msgs != len(got) {
					t.Errorf("segment %v: inventory counts %d messages, the share sends %d", seg, msgs, len(got))
				}
				invs = append(invs, inv)
			}
			if len(union) != len(whole) {
				t.Fatalf("union of %d shares: %d messages, want %d", n, len(union), len(whole))
			}
			slices.SortFunc(union, cmpWire)
			if !slices.Equal(union, sorted) {
				t.Errorf("union of %d shares differs from the whole run as a multiset", n)
			}
			merged, err := MergeInventories(invs...)
			if err != nil {
				t.Fatal(err)
			}
			if n > 1 {
				for k := range merged.Days {
					if len(merged.Days[k].SegmentSHA256) != n || merged.Days[k].SHA256 != "" {
						t.Errorf("merged day %d: sha256 %q, segment hashes %q; want none and %d", merged.Days[k].Day, merged.Days[k].SHA256, merged.Days[k].SegmentSHA256, n)
					}
				}
			}
			if a, b := withoutHashes(merged), withoutHashes(wantInv); !reflect.DeepEqual(a, b) {
				t.Errorf("merged inventory of %d shares:\n%s\nwant the whole run's:\n%s", n, a, b)
			}
		})
	}
}

// TestSegmentDayIsTheShare: a segment's day holds exactly the whole day's events that the
// segment owns, in order and byte for byte, and every purchase of the day as the whole day
// numbers it; and it plans only a share of the day's visits (what makes segments cheaper than
// the whole run), not all of them.
func TestSegmentDayIsTheShare(t *testing.T) {
	w := canonical(t)
	const d = 3
	whole := w.Day(d)
	for _, seg := range []Segment{{0, 4}, {3, 4}, {1, 3}} {
		day, err := w.SegmentDay(context.Background(), d, seg)
		if err != nil {
			t.Fatal(err)
		}
		var want [][]byte
		var buf [20]byte
		for i := range whole.Len() {
			if seg.OwnsKey(strconv.AppendUint(buf[:0], whole.ClientID(i), 10)) {
				want = append(want, whole.AppendEvent(nil, i))
			}
		}
		if day.Len() != len(want) || day.Len() == 0 {
			t.Fatalf("segment %v: %d events, want the %d the whole day has for it", seg, day.Len(), len(want))
		}
		for i := range want {
			if got := day.AppendEvent(nil, i); !bytes.Equal(got, want[i]) {
				t.Fatalf("segment %v, event %d:\n%s\nwant\n%s", seg, i, got, want[i])
			}
		}
		if !reflect.DeepEqual(orderFacts(day), orderFacts(whole)) {
			t.Errorf("segment %v: purchases differ from the whole day's", seg)
		}
		if wo, so := whole.World.OrdersOf(whole), w.OrdersOf(day); !reflect.DeepEqual(wo, so) {
			t.Errorf("segment %v: orders differ from the whole day's", seg)
		}
		if max := len(whole.visits)/seg.N + len(whole.visits)/20; len(day.visits) > max {
			t.Errorf("segment %v planned %d visits of the day's %d: want at most %d (its share and the buyers')", seg, len(day.visits), len(whole.visits), max)
		}
	}
}

// orderFacts is what the backend and the inventory take from a day's purchases.
func orderFacts(day *Day) []string {
	out := make([]string, len(day.Purchases))
	for i, p := range day.Purchases {
		out[i] = fmt.Sprint(p.OrderID, p.PersonID, p.ClientID, p.UTCSecond, p.Lines, p.Revenue, p.Coupon, p.Assigned, p.Lost, p.Duplicate)
	}
	return out
}

// segmentInventory counts the inventory of seg's share.
func segmentInventory(w *World, from, n int, g Garbage, seg Segment) (*Inventory, error) {
	return w.Inventory(context.Background(), Range{From: from, Days: n, Segment: seg, Garbage: g}, 0)
}

// withoutHashes renders inv as JSON without its per-day and per-snapshot hashes.
func withoutHashes(inv *Inventory) string {
	c := *inv
	c.Days = slices.Clone(inv.Days)
	c.Snapshots = slices.Clone(inv.Snapshots)
	for k := range c.Days {
		c.Days[k].SHA256, c.Days[k].SegmentSHA256 = "", nil
	}
	for k := range c.Snapshots {
		c.Snapshots[k].SHA256, c.Snapshots[k].SegmentSHA256 = "", nil
	}
	b, _ := json.MarshalIndent(&c, "", " ")
	return string(b)
}

// TestWholeDaysOnlyForHitExtras: a segment builds its days whole only when hits get malformed
// messages or redeliveries; garbage that only orders can carry leaves it its share.
func TestWholeDaysOnlyForHitExtras(t *testing.T) {
	ordersOnly := Mix{GarbageFieldInvalid: 1}
	for _, tc := range []struct {
		g    Garbage
		want bool
	}{
		{Garbage{}, false},
		{Garbage{Rate: 0.05}, true},
		{Garbage{Rate: 0.05, Mix: ordersOnly}, false},
		{Garbage{Mix: Mix{GarbageVanishing: 1}}, false},
		{Garbage{Redeliver: 0.01, Mix: ordersOnly}, true},
	} {
		if got := tc.g.AddsHitExtras(); got != tc.want {
			t.Errorf("%+v.AddsHitExtras() = %v, want %v", tc.g, got, tc.want)
		}
	}
}
