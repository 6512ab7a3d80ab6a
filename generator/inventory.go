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
	Days             []InventoryDay      `json:"days"`
	Snapshots        []InventorySnapshot `json:"snapshots"`
}

// InventoryDay is one model day's clean events on topic hits.
type InventoryDay struct {
	Day    int            `json:"day"`
	Date   string         `json:"date"`
	Events int            `json:"events"`
	SHA256 string         `json:"sha256"` // over every clean event followed by "\n": the bytes of batch --file
	ByType map[string]int `json:"by_type"`
	// Orders are the reconciliation classes of the orders born on the day, present only when
	// the day's window closes inside the range (its snapshot d+6 is sent).
	Orders *OrderClasses `json:"orders,omitempty"`
}

// OrderClasses counts a closed day's orders by the stand's reconciliation classes.
type OrderClasses struct {
	Match          int `json:"match"`
	Cancelled      int `json:"cancelled"`
	LostEvent      int `json:"lost_event"`
	DuplicateEvent int `json:"duplicate_event"`
	AmountDelta    int `json:"amount_delta"`
}

// InventorySnapshot is one snapshot sent on topic orders.
type InventorySnapshot struct {
	Day    int    `json:"day"`
	Date   string `json:"date"`
	Rows   int    `json:"rows"`
	SHA256 string `json:"sha256"` // over every row followed by "\n": the bytes of snapshot --file
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
	for i := range b.Born(d) {
		switch b.Born(d)[i].Class() {
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

// AppendSnapshot appends the rows of snapshot d, each followed by "\n" when newline is set,
// and returns the number of rows.
func (b *OrderBook) AppendSnapshot(dst []byte, d int, newline bool) ([]byte, int, error) {
	rows := b.Snapshot(d)
	var err error
	for i := range rows {
		if dst, err = schema.AppendOrder(dst, &rows[i]); err != nil {
			return dst, 0, fmt.Errorf("snapshot of day %d: %w", d, err)
		}
		if newline {
			dst = append(dst, '\n')
		}
	}
	return dst, len(rows), nil
}

// Inventory computes the inventory of run days [from, from+n). It renders every event to
// hash it, in parallel, with memory bounded as in Play.
func (w *World) Inventory(ctx context.Context, from, n int, opt PlayOptions) (*Inventory, error) {
	inv := &Inventory{Seed: w.Seed, GeneratorVersion: Version, CatalogSHA256: w.Catalog.SHA256, Scale: w.Scale(),
		Days: []InventoryDay{}, Snapshots: []InventorySnapshot{}}
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
		if b.Last {
			cur.SHA256 = hex.EncodeToString(h.Sum(nil))
			cur = nil
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var buf []byte
	for _, d := range SnapshotDays(from, n) {
		var rows int
		if buf, rows, err = book.AppendSnapshot(buf[:0], d, true); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(buf)
		inv.Snapshots = append(inv.Snapshots, InventorySnapshot{Day: d, Date: DayDate(d).String(), Rows: rows, SHA256: hex.EncodeToString(sum[:])})
	}
	for _, d := range ClosedDays(from, n) {
		inv.Days[d-from].Orders = book.Classes(d)
	}
	return inv, nil
}

var newline = []byte{'\n'}
