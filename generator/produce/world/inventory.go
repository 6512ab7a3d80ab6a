package world

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"

	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/schema"
)

// MaxInventoryBytes bounds an inventory read back from a file (inventory --merge, plot
// --inventory): an inventory takes about 1.2 KB a model day, so every day a run can play
// (MaxDay) fits in 36 MB.
const MaxInventoryBytes = 64 << 20

// Inventory is what a storage must contain after the hits of a [Range]'s run days [From,
// From+Days) and the snapshots that the same range sends (those of days From−1 … From+Days−2)
// have arrived. Its keys extend the upstream world passport (seed, generator_version,
// catalog_sha256, days[], snapshots[]) with counts per event type, row counts and order
// classes.
type Inventory struct {
	Seed             uint64  `json:"seed"`
	GeneratorVersion string  `json:"generator_version"`
	CatalogSHA256    string  `json:"catalog_sha256"`
	Scale            float64 `json:"scale"`
	Garbage          Garbage `json:"garbage"` // the settings it was computed with
	// Segment is the share of the run it counts ("I/N"); empty for the whole run, and for the
	// merge of every share (see [MergeInventories]).
	Segment   string              `json:"segment,omitempty"`
	Days      []InventoryDay      `json:"days"`
	Snapshots []InventorySnapshot `json:"snapshots"`
	// Expect totals what the storage must hold after the whole range, per topic.
	Expect InventoryTotals `json:"expect"`
}

// Expect is what one day's (or snapshot's) messages leave in the stand's tables.
type Expect struct {
	// StgRows is the raw rows: every message except empty values and tombstones.
	StgRows int `json:"stg_rows"`
	// ODSEvents (hits) is the rows of ods.event counted with FINAL: clean events once each,
	// plus accepted_bad messages (fresh WatchIDs). Every one of them is filed under the day's
	// date (EventDate, as ClickHouse reads it, is the day's own for accepted_bad rows too), so
	// a day's ODSEvents is also the count ODS holds under that date. ODSOrders (orders) is the distinct
	// order_ids of the snapshot's clean rows.
	ODSEvents *int `json:"ods_events,omitempty"`
	ODSOrders *int `json:"ods_orders,omitempty"`
	// ODSErrors counts the rows of the error table by error_class.
	ODSErrors map[string]int `json:"ods_errors"`
}

// InventoryTotals is the expectation over the whole range.
type InventoryTotals struct {
	Hits   Expect `json:"hits"`
	Orders Expect `json:"orders"`
}

// InventoryDay is one model day's clean events on topic hits.
type InventoryDay struct {
	Day    int    `json:"day"`
	Date   string `json:"date"`
	Events int    `json:"events"`
	SHA256 string `json:"sha256"` // over every clean event followed by "\n": the bytes of batch --file
	// SegmentSHA256 is, in a merge of N > 1 shares, the SHA256 of each share in segment
	// order; SHA256 is then empty (a hash of the whole is not a function of the shares').
	SegmentSHA256 []string       `json:"segment_sha256,omitempty"`
	ByType        map[string]int `json:"by_type"`
	// Messages is what is sent for the day: clean events, malformed messages and redeliveries.
	Messages    int            `json:"messages"`
	Garbage     map[string]int `json:"garbage"`
	Redelivered int            `json:"redelivered"`
	Expect      Expect         `json:"expect"`
	// Orders are the reconciliation classes of the orders born on the day, present only when
	// the day's window closes inside the range (its snapshot d+6 is sent): what the stand's
	// mart computes from what lands, so an order whose purchase event has an accepted_bad
	// copy (one more purchase row in ods.event) counts as duplicate_event unless cancelled.
	Orders *OrderClasses `json:"orders,omitempty"`
}

// OrderClasses counts a closed day's orders by the stand's reconciliation classes. A class
// with no order is left out of the JSON, as upstream's passport does
// ({"match": 197, "cancelled": 20, "amount_delta": 6}): the stand's classes_vs_inventory
// check compares each class present with a mart row, and a mart has no row for a class with
// no order.
type OrderClasses struct {
	Match          int `json:"match,omitempty"`
	Cancelled      int `json:"cancelled,omitempty"`
	LostEvent      int `json:"lost_event,omitempty"`
	DuplicateEvent int `json:"duplicate_event,omitempty"`
	AmountDelta    int `json:"amount_delta,omitempty"`
}

// InventorySnapshot is one snapshot sent on topic orders.
type InventorySnapshot struct {
	Day    int    `json:"day"`
	Date   string `json:"date"`
	Rows   int    `json:"rows"`
	SHA256 string `json:"sha256"` // over every clean row followed by "\n": the bytes of snapshot --file without garbage
	// SegmentSHA256 is as in [InventoryDay].
	SegmentSHA256 []string       `json:"segment_sha256,omitempty"`
	Messages      int            `json:"messages"`
	Garbage       map[string]int `json:"garbage"`
	Redelivered   int            `json:"redelivered"`
	Expect        Expect         `json:"expect"`
}

// SnapshotDays returns the model days whose snapshots the run days [from, from+n) send: for
// each run day X the snapshot of X−1, none for X = 0.
func SnapshotDays(from, n int) []int {
	var out []int
	for x := from; x < from+n; x++ {
		if x-1 >= 0 {
			out = append(out, x-1)
		}
	}
	return out
}

// ClosedDays returns the days of [from, from+n) whose order window closes inside the range.
func ClosedDays(from, n int) []int {
	var out []int
	last := from + n - 2 // the last snapshot sent
	for d := from; d < from+n; d++ {
		if d >= 0 && d+orderWindowDays-1 <= last {
			out = append(out, d)
		}
	}
	return out
}

// Classes counts the orders born on day d by class (their window must be closed to be final).
func (b *OrderBook) Classes(d int) *OrderClasses { return b.classesOf(d, Segment{}) }

// classesOf is Classes over the orders whose order_id seg owns.
func (b *OrderBook) classesOf(d int, seg Segment) *OrderClasses {
	c := &OrderClasses{}
	orders := b.Born(d)
	for i := range orders {
		if !seg.Whole() && !seg.OwnsKey([]byte(orders[i].ID)) {
			continue
		}
		switch orders[i].Class() {
		case ClassCancelled:
			c.Cancelled++
		case ClassLostEvent:
			c.LostEvent++
		case ClassDuplicateEvent:
			c.DuplicateEvent++
		case ClassAmountDelta:
			c.AmountDelta++
		default:
			c.Match++
		}
	}
	return c
}

// SnapshotRows returns the encoded rows of snapshot d, without newlines, and their keys
// (order_id), in ascending order_id. Rows and keys share one buffer; callers may keep them.
func (b *OrderBook) SnapshotRows(d int) (rows, keys [][]byte, err error) {
	return b.snapshotRows(context.Background(), d)
}

// snapshotRows is SnapshotRows building the days it needs within ctx.
func (b *OrderBook) snapshotRows(ctx context.Context, d int) (rows, keys [][]byte, err error) {
	orders, err := b.snapshot(ctx, d)
	if err != nil {
		return nil, nil, err
	}
	var buf []byte
	ends := make([]int, len(orders))
	for i := range orders {
		if buf, err = schema.AppendOrder(buf, &orders[i]); err != nil {
			return nil, nil, fmt.Errorf("snapshot of day %d: %w", d, err)
		}
		ends[i] = len(buf)
	}
	rows, keys = make([][]byte, len(orders)), make([][]byte, len(orders))
	off := 0
	for i := range orders {
		rows[i] = buf[off:ends[i]:ends[i]]
		keys[i] = []byte(orders[i].OrderID)
		off = ends[i]
	}
	return rows, keys, nil
}

// tally counts what extras add to clean messages of one day (hits) or snapshot: the
// garbage per class of classes, the redeliveries, and what the stand must hold, as the
// garbage table says each class lands ([GarbageOutcome]).
func tally(extras []Extra, classes []string, clean int, hits bool) (messages int, garbage map[string]int, redelivered int, exp Expect) {
	kind, errorClasses := KindOrders, intake.OrderClasses[:]
	if hits {
		kind, errorClasses = KindHits, intake.HitClasses[:]
	}
	garbage = map[string]int{}
	for _, c := range classes {
		garbage[c] = 0
	}
	exp.ODSErrors = map[string]int{}
	for _, c := range errorClasses {
		exp.ODSErrors[c] = 0
	}
	ods := clean
	exp.StgRows = clean + len(extras)
	for i := range extras {
		e := &extras[i]
		if e.Redelivered() {
			redelivered++ // a raw row more; ODS collapses it into its clean original
			continue
		}
		garbage[e.Class]++
		switch o, _ := GarbageOutcome(kind, e.Class); o {
		case intake.NoRow:
			exp.StgRows--
		case intake.Accepted:
			ods++ // a fresh WatchID: a row of its own
		default:
			exp.ODSErrors[o]++
		}
	}
	if hits {
		exp.ODSEvents = &ods
	} else {
		exp.ODSOrders = &ods
	}
	return clean + len(extras), garbage, redelivered, exp
}

func addExpect(total *Expect, e Expect) {
	total.StgRows += e.StgRows
	if total.ODSErrors == nil {
		total.ODSErrors = map[string]int{}
	}
	for c, n := range e.ODSErrors {
		total.ODSErrors[c] += n
	}
}

// Inventory computes the inventory of r: it counts the units of [World.Units] with an
// [InventoryBuilder]. Batches are rendered on workers goroutines (0: GOMAXPROCS) with memory
// bounded as in Play; the inventory does not depend on them. With r.Segment it counts that
// segment's share: its clean messages' hashes and counts, its extras, the order classes of the
// orders it owns. When the units stop with an error (ctx ended), the inventory of the units
// counted before it is returned with it, so a caller can say how far it got.
func (w *World) Inventory(ctx context.Context, r Range, workers int) (*Inventory, error) {
	ib := w.NewInventoryBuilder(r)
	for u, err := range w.Units(ctx, r, UnitOptions{Workers: workers}) {
		if err != nil {
			return ib.Inventory(), err
		}
		for b := range u.Batches() {
			ib.AddBatch(u, b)
			b.Release()
		}
		ib.EndUnit(u)
	}
	return ib.Inventory(), nil
}

// InventoryBuilder counts the units of [World.Units] into an [Inventory]: a consumer that
// also does something else with the units (verify's expectation) builds the inventory in the
// same pass, from the same bytes. It is not safe for concurrent use.
type InventoryBuilder struct {
	inv       *Inventory
	from      int
	h         hash.Hash
	hashing   *Unit
	byType    [numEventKinds]int // by event kind, for the unit being counted
	odsEvents int
	orderIDs  map[string]struct{} // distinct order ids over all snapshots (ODS FINAL)
}

// NewInventoryBuilder starts the inventory of r, the range the units are planned for; the
// inventory echoes its garbage settings and names its segment.
func (w *World) NewInventoryBuilder(r Range) *InventoryBuilder {
	inv := &Inventory{Seed: w.seed, GeneratorVersion: Version, CatalogSHA256: w.catalog.SHA256, Scale: w.Scale(),
		Garbage: r.Garbage,
		Days:    []InventoryDay{}, Snapshots: []InventorySnapshot{}}
	if !r.Segment.Whole() {
		inv.Segment = r.Segment.String()
	}
	return &InventoryBuilder{inv: inv, from: r.From, h: sha256.New(), orderIDs: map[string]struct{}{}}
}

// AddBatch counts a batch of u's clean messages; call it for each, in order, before EndUnit.
func (ib *InventoryBuilder) AddBatch(u *Unit, b *Batch) {
	ib.begin(u)
	for i := range b.Msgs {
		ib.h.Write(b.Value(i))
		ib.h.Write(newline)
		if u.Kind == HitsUnit {
			ib.byType[b.Msgs[i].Type]++
		} else {
			ib.orderIDs[string(b.Key(i))] = struct{}{}
		}
	}
}

// begin starts counting u unless it is the unit being counted.
func (ib *InventoryBuilder) begin(u *Unit) {
	if ib.hashing != u {
		ib.hashing = u
		ib.h.Reset()
		ib.byType = [len(ib.byType)]int{}
	}
}

// EndUnit counts u's extras, once its batches were added, and returns the unit's entry: the
// SHA-256 of its clean messages and what the stand must hold after it.
func (ib *InventoryBuilder) EndUnit(u *Unit) (cleanSHA256 string, exp Expect) {
	ib.begin(u)
	ib.hashing = nil
	sum := hex.EncodeToString(ib.h.Sum(nil))
	inv := ib.inv
	if u.Kind == HitsUnit {
		x := InventoryDay{Day: u.Day, Date: DayDate(u.Day).String(), Events: u.Len, SHA256: sum, ByType: map[string]int{}}
		for _, t := range schema.EventTypes {
			x.ByType[t] = 0
		}
		for kind, c := range ib.byType {
			if c > 0 {
				x.ByType[eventTypeOf(uint8(kind))] += c
			}
		}
		x.Messages, x.Garbage, x.Redelivered, x.Expect = tally(u.Extras, HitGarbageClasses, u.Len, true)
		ib.odsEvents += *x.Expect.ODSEvents
		addExpect(&inv.Expect.Hits, x.Expect)
		inv.Days = append(inv.Days, x)
		return sum, x.Expect
	}
	x := InventorySnapshot{Day: u.Day, Date: DayDate(u.Day).String(), Rows: u.Len, SHA256: sum}
	x.Messages, x.Garbage, x.Redelivered, x.Expect = tally(u.Extras, OrderGarbageClasses, u.Len, false)
	addExpect(&inv.Expect.Orders, x.Expect)
	inv.Snapshots = append(inv.Snapshots, x)
	if born, classes, ok := u.Closes(); ok && born >= ib.from {
		for i := range inv.Days {
			if inv.Days[i].Day == born {
				inv.Days[i].Orders = classes
			}
		}
	}
	return sum, x.Expect
}

// Inventory returns the inventory of the units counted so far (all of the range, once the
// units are through).
func (ib *InventoryBuilder) Inventory() *Inventory {
	inv := ib.inv
	ods, distinct := ib.odsEvents, len(ib.orderIDs)
	inv.Expect.Hits.ODSEvents = &ods
	inv.Expect.Orders.ODSOrders = &distinct
	if inv.Expect.Orders.ODSErrors == nil {
		inv.Expect.Orders.ODSErrors = map[string]int{}
	}
	if inv.Expect.Hits.ODSErrors == nil {
		inv.Expect.Hits.ODSErrors = map[string]int{}
	}
	return inv
}

var newline = []byte{'\n'}
