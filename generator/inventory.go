package generator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/clickgen/clickgen/schema"
)

// Inventory is what a storage must contain after the hits of days [from, from+n) and the
// snapshots that the same range sends (those of days from−1 … from+n−2) have arrived. Its keys
// extend the upstream world passport (seed, generator_version, catalog_sha256, days[],
// snapshots[]) with counts per event type, row counts and order classes.
type Inventory struct {
	Seed             uint64              `json:"seed"`
	GeneratorVersion string              `json:"generator_version"`
	CatalogSHA256    string              `json:"catalog_sha256"`
	Scale            float64             `json:"scale"`
	Garbage          GarbageSettings     `json:"garbage"`
	Days             []InventoryDay      `json:"days"`
	Snapshots        []InventorySnapshot `json:"snapshots"`
	// Expect totals what the storage must hold after the whole range, per topic.
	Expect InventoryTotals `json:"expect"`
}

// GarbageSettings echo the garbage flags the inventory was computed with.
type GarbageSettings struct {
	Rate      float64        `json:"rate"`
	Mix       map[string]int `json:"mix,omitempty"`
	Redeliver float64        `json:"redeliver"`
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
	Day    int            `json:"day"`
	Date   string         `json:"date"`
	Events int            `json:"events"`
	SHA256 string         `json:"sha256"` // over every clean event followed by "\n": the bytes of batch --file
	ByType map[string]int `json:"by_type"`
	// Messages is what is sent for the day: clean events, malformed messages and redeliveries.
	Messages    int            `json:"messages"`
	Garbage     map[string]int `json:"garbage"`
	Redelivered int            `json:"redelivered"`
	Expect      Expect         `json:"expect"`
	// Orders are the reconciliation classes of the orders born on the day, present only when
	// the day's window closes inside the range (its snapshot d+6 is sent).
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
	Day         int            `json:"day"`
	Date        string         `json:"date"`
	Rows        int            `json:"rows"`
	SHA256      string         `json:"sha256"` // over every clean row followed by "\n": the bytes of snapshot --file without garbage
	Messages    int            `json:"messages"`
	Garbage     map[string]int `json:"garbage"`
	Redelivered int            `json:"redelivered"`
	Expect      Expect         `json:"expect"`
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
func (b *OrderBook) Classes(d int) *OrderClasses {
	c := &OrderClasses{}
	orders := b.Born(d)
	for i := range orders {
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
	orders := b.Snapshot(d)
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

// tally counts what extras add to clean messages of one day or snapshot.
func tally(extras []Extra, classes []string, clean int, hits bool) (messages int, garbage map[string]int, redelivered int, exp Expect) {
	garbage = map[string]int{}
	exp.ODSErrors = map[string]int{}
	for _, c := range classes {
		garbage[c] = 0
		if c != GarbageAcceptedBad && c != GarbageVanishing {
			exp.ODSErrors[c] = 0
		}
	}
	ods := clean
	exp.StgRows = clean + len(extras)
	for i := range extras {
		e := &extras[i]
		switch e.Class {
		case "":
			redelivered++
		case GarbageVanishing:
			garbage[e.Class]++
			exp.StgRows--
		case GarbageAcceptedBad:
			garbage[e.Class]++
			ods++
		default:
			garbage[e.Class]++
			exp.ODSErrors[e.Class]++
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

// Inventory computes the inventory of run days [from, from+n) with garbage g. It renders every
// event to hash it, in parallel, with memory bounded as in Play.
func (w *World) Inventory(ctx context.Context, from, n int, opt PlayOptions, g Garbage) (*Inventory, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	inv := &Inventory{Seed: w.Seed, GeneratorVersion: Version, CatalogSHA256: w.Catalog.SHA256, Scale: w.Scale(),
		Garbage: GarbageSettings{Rate: g.Rate, Mix: g.Mix, Redeliver: g.Redeliver},
		Days:    []InventoryDay{}, Snapshots: []InventorySnapshot{}}
	book := NewOrderBook(w)
	onDay := opt.OnDay
	opt.OnDay = func(day *Day) {
		book.Add(day)
		if onDay != nil {
			onDay(day)
		}
	}
	h := sha256.New()
	var cur *InventoryDay
	odsEvents := 0
	err := w.Play(ctx, from, n, opt, func(b *Batch) error {
		if cur == nil {
			inv.Days = append(inv.Days, InventoryDay{Day: b.Day.N, Date: DayDate(b.Day.N).String(), ByType: map[string]int{}})
			cur = &inv.Days[len(inv.Days)-1]
			h.Reset()
			for _, t := range schema.EventTypes {
				cur.ByType[t] = 0
			}
		}
		for i := range b.Msgs {
			h.Write(b.Value(i))
			h.Write(newline)
			cur.ByType[eventTypeOf(b.Msgs[i].Type)]++
		}
		cur.Events += len(b.Msgs)
		last, day := b.Last, b.Day
		b.Release()
		if last {
			cur.SHA256 = hex.EncodeToString(h.Sum(nil))
			cur.Messages, cur.Garbage, cur.Redelivered, cur.Expect = tally(day.HitExtras(g), HitGarbageClasses, cur.Events, true)
			odsEvents += *cur.Expect.ODSEvents
			addExpect(&inv.Expect.Hits, cur.Expect)
			cur = nil
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	inv.Expect.Hits.ODSEvents = &odsEvents
	orderIDs := map[string]bool{} // distinct order ids over all snapshots (ODS FINAL)
	for _, d := range SnapshotDays(from, n) {
		rows, keys, err := book.SnapshotRows(d)
		if err != nil {
			return nil, err
		}
		h.Reset()
		for _, r := range rows {
			h.Write(r)
			h.Write(newline)
		}
		for _, k := range keys {
			orderIDs[string(k)] = true
		}
		snap := InventorySnapshot{Day: d, Date: DayDate(d).String(), Rows: len(rows), SHA256: hex.EncodeToString(h.Sum(nil))}
		snap.Messages, snap.Garbage, snap.Redelivered, snap.Expect = tally(w.OrderExtras(d, rows, keys, g), OrderGarbageClasses, len(rows), false)
		addExpect(&inv.Expect.Orders, snap.Expect)
		inv.Snapshots = append(inv.Snapshots, snap)
	}
	distinct := len(orderIDs)
	inv.Expect.Orders.ODSOrders = &distinct
	if inv.Expect.Orders.ODSErrors == nil {
		inv.Expect.Orders.ODSErrors = map[string]int{}
	}
	if inv.Expect.Hits.ODSErrors == nil {
		inv.Expect.Hits.ODSErrors = map[string]int{}
	}
	for _, d := range ClosedDays(from, n) {
		inv.Days[d-from].Orders = book.Classes(d)
	}
	return inv, nil
}

var newline = []byte{'\n'}
