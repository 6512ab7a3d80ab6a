package world

import (
	"errors"
	"fmt"
)

// MergeInventories sums the inventories of the N shares of one run (each counted with its
// --segment I/N, in any order) into the inventory of the whole run: every count (events,
// messages, by type, garbage, redeliveries, what the stand must hold, order classes) is the
// sum of the shares', which is the unsegmented inventory's because the shares partition the
// run's messages and orders. The per-day and per-snapshot SHA-256 of a share covers only its
// own clean messages, so for N > 1 SHA256 is left empty and SegmentSHA256 lists the shares'
// hashes in segment order. A single whole-run inventory is returned as it is.
//
// The inventories must come from the same world, range and garbage, and be exactly the N
// distinct segments of one N.
func MergeInventories(invs ...*Inventory) (*Inventory, error) {
	if len(invs) == 0 {
		return nil, errors.New("merge: no inventories")
	}
	byI := make([]*Inventory, len(invs))
	for _, inv := range invs {
		var s Segment
		if err := s.UnmarshalText([]byte(inv.Segment)); err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		n := max(1, s.N)
		if n != len(invs) {
			return nil, fmt.Errorf("merge: segment %s among %d inventories: want the %d shares of one run", s, len(invs), n)
		}
		if byI[s.I] != nil {
			return nil, fmt.Errorf("merge: segment %s given twice", s)
		}
		byI[s.I] = inv
		if err := sameRun(invs[0], inv); err != nil {
			return nil, fmt.Errorf("merge: segment %s: %w", s, err)
		}
	}
	if len(invs) == 1 {
		return invs[0], nil
	}
	first := byI[0]
	out := &Inventory{Seed: first.Seed, GeneratorVersion: first.GeneratorVersion, CatalogSHA256: first.CatalogSHA256,
		Scale: first.Scale, Garbage: first.Garbage,
		Days: make([]InventoryDay, len(first.Days)), Snapshots: make([]InventorySnapshot, len(first.Snapshots))}
	for k := range out.Days {
		d := &out.Days[k]
		*d = InventoryDay{Day: first.Days[k].Day, Date: first.Days[k].Date, ByType: map[string]int{}, Garbage: map[string]int{}}
		for _, inv := range byI {
			x := &inv.Days[k]
			d.SegmentSHA256 = append(d.SegmentSHA256, x.SHA256)
			d.Events += x.Events
			d.Messages += x.Messages
			d.Redelivered += x.Redelivered
			addCounts(d.ByType, x.ByType)
			addCounts(d.Garbage, x.Garbage)
			sumExpect(&d.Expect, x.Expect)
			if x.Orders != nil {
				if d.Orders == nil {
					d.Orders = &OrderClasses{}
				}
				o := d.Orders
				o.Match += x.Orders.Match
				o.Cancelled += x.Orders.Cancelled
				o.LostEvent += x.Orders.LostEvent
				o.DuplicateEvent += x.Orders.DuplicateEvent
				o.AmountDelta += x.Orders.AmountDelta
			}
		}
	}
	for k := range out.Snapshots {
		sn := &out.Snapshots[k]
		*sn = InventorySnapshot{Day: first.Snapshots[k].Day, Date: first.Snapshots[k].Date, Garbage: map[string]int{}}
		for _, inv := range byI {
			x := &inv.Snapshots[k]
			sn.SegmentSHA256 = append(sn.SegmentSHA256, x.SHA256)
			sn.Rows += x.Rows
			sn.Messages += x.Messages
			sn.Redelivered += x.Redelivered
			addCounts(sn.Garbage, x.Garbage)
			sumExpect(&sn.Expect, x.Expect)
		}
	}
	for _, inv := range byI {
		sumExpect(&out.Expect.Hits, inv.Expect.Hits)
		sumExpect(&out.Expect.Orders, inv.Expect.Orders)
	}
	return out, nil
}

// sameRun says how b's run differs from a's, if it does.
func sameRun(a, b *Inventory) error {
	switch {
	case a.Seed != b.Seed || a.GeneratorVersion != b.GeneratorVersion || a.CatalogSHA256 != b.CatalogSHA256 || a.Scale != b.Scale:
		return errors.New("another world (seed, generator version, catalog or scale)")
	case fmt.Sprint(a.Garbage) != fmt.Sprint(b.Garbage):
		return errors.New("other garbage settings")
	case len(a.Days) != len(b.Days) || len(a.Snapshots) != len(b.Snapshots):
		return errors.New("another range of days")
	}
	for k := range a.Days {
		if a.Days[k].Day != b.Days[k].Day {
			return errors.New("another range of days")
		}
	}
	for k := range a.Snapshots {
		if a.Snapshots[k].Day != b.Snapshots[k].Day {
			return errors.New("another range of snapshots")
		}
	}
	return nil
}

func addCounts(dst, src map[string]int) {
	for k, v := range src {
		dst[k] += v
	}
}

// sumExpect adds e to total, including the ODS counts (a share's distinct ids are its own:
// every id is owned by one segment, so the sums are the whole's).
func sumExpect(total *Expect, e Expect) {
	addExpect(total, e)
	add := func(dst **int, v *int) {
		if v == nil {
			return
		}
		if *dst == nil {
			*dst = new(int)
		}
		**dst += *v
	}
	add(&total.ODSEvents, e.ODSEvents)
	add(&total.ODSOrders, e.ODSOrders)
}
