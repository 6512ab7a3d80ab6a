package world

import (
	"cmp"
	"context"
	"errors"
	"iter"
	"slices"
)

// UnitKind says what a [Unit] carries.
type UnitKind uint8

const (
	// HitsUnit is the hits of one model day: its clean events, keyed by decimal ClientID, in
	// the order of batch --file, with the day's malformed messages and redeliveries.
	HitsUnit UnitKind = iota + 1
	// SnapshotUnit is the orders snapshot of one model day: its rows, keyed by order_id, in
	// ascending order_id, with the snapshot's malformed rows and redeliveries.
	SnapshotUnit
)

func (k UnitKind) String() string {
	switch k {
	case HitsUnit:
		return "hits"
	case SnapshotUnit:
		return "snapshot"
	}
	return "unit?"
}

// Parts chooses which units a run plans: its hits, its snapshots, or both.
type Parts uint8

const (
	// Hits plans the hits of every run day.
	Hits Parts = 1 << iota
	// Snapshots plans, for each run day X, the snapshot of day X−1 (none for X = 0).
	Snapshots
)

// UnitOptions tune [World.Units]: which units of the range, rendered how. The zero value
// plans the hits and the snapshots of the run days, rendering on all cores.
type UnitOptions struct {
	// Parts chooses the units; 0 means Hits|Snapshots.
	Parts Parts
	// Workers renders the hits' batches on this many goroutines; 0 means GOMAXPROCS. The
	// units do not depend on it.
	Workers int
	// ReuseExtras makes the bytes of the hits' extras in memory used again from unit to unit:
	// the sender calls [Unit.ReleaseExtras] once nothing refers to them (a sink acknowledged
	// them). Fresh memory for a day's extras (about 32 MB at --garbage 0.5) cost as much as
	// rendering them. The bytes are the same.
	ReuseExtras bool
}

// Unit is one planned unit of a run: what one model day sends on topic hits, or one snapshot
// on topic orders. Its messages, in sending order, are its Len clean messages (streamed by
// [Unit.Batches]) with its Extras interleaved: Extras[j] goes right before clean message
// Extras[j].After, or after the last one when After == Len ([Unit.ExtrasAt] finds them).
//
// A Unit is a pure function of the world, its kind, its day and the range's segment and
// garbage: the sender, the inventory ([InventoryBuilder]) and reconciliation all consume the
// same units from [World.Units], so what they send, count and expect cannot disagree.
type Unit struct {
	Kind UnitKind
	// Day is the model day of the hits, or the day whose end the snapshot shows.
	Day int
	// Len is the number of clean messages (events or rows).
	Len int
	// Extras are the malformed messages and redeliveries added to the clean ones, sorted by
	// After. They stay valid after the unit's batches are released, until ReleaseExtras.
	Extras []Extra
	// Hits is the generated day of a HitsUnit (its events, visits and purchases); nil for a
	// snapshot.
	Hits *Day

	src   *batchSource // hits: the run's batches, shared by its hit units
	first *Batch       // the unit's first batch, not yet handed out
	done  bool         // every batch of the unit was taken
	book  *OrderBook   // snapshots: the run's book
	seg   Segment      // the segment the unit was planned for
	at    int          // where ExtrasAt's last answer ended in Extras
	// chunks are the pieces of memory used again that hold the extras' bytes
	// ([UnitOptions.ReuseExtras]).
	chunks [][]byte
}

// Batches yields the unit's clean messages in order, in batches of at most [BatchEvents]
// (a snapshot comes as one batch, with Day nil and zero Msg.UTC and Msg.Type). Each batch
// belongs to the caller, who may [Batch.Release] it once nothing refers to its bytes (a sink
// acknowledged them) or keep it; memory stays bounded by the batches the caller keeps.
//
// Range over Batches at most once, before the loop over [World.Units] moves on; batches not
// taken are released when it does. If generation fails (the context is done), Batches ends
// early and the error is the next element of [World.Units].
func (u *Unit) Batches() iter.Seq[*Batch] {
	return func(yield func(*Batch) bool) {
		for {
			b := u.take()
			if b == nil || !yield(b) {
				return
			}
		}
	}
}

// take hands out the unit's next batch, nil after its last.
func (u *Unit) take() *Batch {
	if u.done {
		return nil
	}
	b := u.first
	u.first = nil
	if b == nil {
		var err error
		var ok bool
		if b, err, ok = u.src.next(); !ok || err != nil {
			u.src.err, u.done = err, true
			return nil
		}
	}
	u.done = b.Last
	return b
}

// drain releases the batches the consumer did not take.
func (u *Unit) drain() {
	for b := u.take(); b != nil; b = u.take() {
		b.Release()
	}
}

// ExtrasAt returns the extras that go right before clean message i (0 ≤ i < Len), or, for
// i == Len, those that go after the last clean message. The slice aliases u.Extras.
func (u *Unit) ExtrasAt(i int) []Extra {
	lo := u.at // where the last answer ended: a sender asks for every position in turn
	if lo > len(u.Extras) || lo < len(u.Extras) && u.Extras[lo].After < i || lo > 0 && u.Extras[lo-1].After >= i {
		lo, _ = slices.BinarySearchFunc(u.Extras, i, func(e Extra, at int) int { return cmp.Compare(e.After, at) })
	}
	hi := lo
	for hi < len(u.Extras) && u.Extras[hi].After == i {
		hi++
	}
	u.at = hi
	return u.Extras[lo:hi]
}

// ReleaseExtras hands the memory of the extras' bytes back for reuse by later units, with
// [UnitOptions.ReuseExtras] (else it does nothing). Call it only when nothing refers to their
// values any more (a sink has acknowledged them); the extras' values must not be used after.
// Not calling it is fine: the memory is then garbage collected.
func (u *Unit) ReleaseExtras() {
	releaseChunks(u.chunks)
	u.chunks = nil
}

// Closes returns, for a snapshot, the birth day whose order window it closes (Day−6) and the
// final reconciliation classes of that day's orders (those the unit's segment owns); ok is
// false for hits and for snapshots of days before 6.
func (u *Unit) Closes() (born int, classes *OrderClasses, ok bool) {
	born = u.Day - orderWindowDays + 1
	if u.Kind != SnapshotUnit || born < 0 {
		return 0, nil, false
	}
	return born, u.book.classesOf(born, u.seg), true
}

// batchSource pulls the batches of World.Play one at a time.
type batchSource struct {
	next func() (*Batch, error, bool)
	err  error
}

var errUnitsStopped = errors.New("world: units: consumer stopped")

// Units returns the planned units of r in sending order: the hits of run days r.From …
// r.From+r.Days−1, then, for each run day X, the snapshot of day X−1 (none for X = 0), each
// with the extras of r.Garbage; with r.Segment, each unit holds the segment's clean messages
// and extras, numbered within the segment, in the order of the whole run. It is how clickgen
// batch, snapshot and run send, how the inventory counts and how verify expects; r.Days may
// be huge for a run that stops on its own (stop ranging), since units are made as they are
// reached.
//
// Days are generated once and rendered ahead on opt.Workers goroutines, but the sequence is
// the same bytes whatever the workers. Memory stays bounded by a day's model, a window of
// batches and the batches the caller keeps (see [Unit.Batches]), not by r.Days. A snapshot's
// days are taken from the hits just played when both are planned, generated otherwise.
//
// An error (r invalid: [Range.Validate]; ctx done) is yielded as the last element, with a nil
// Unit. Units do not outlive the loop iteration that yields them, except for their Extras and
// the batches the caller took.
//
// A sender iterates it so (see the example):
//
//	for u, err := range w.Units(ctx, r, opt) {
//		if err != nil {
//			return err
//		}
//		for b := range u.Batches() {
//			for i := range b.Msgs {
//				for _, x := range u.ExtrasAt(b.From + i) {
//					send(x.Key, x.Value)
//				}
//				send(b.Key(i), b.Value(i))
//			}
//		}
//		for _, x := range u.ExtrasAt(u.Len) {
//			send(x.Key, x.Value)
//		}
//		flush() // then release the unit's batches
//	}
func (w *World) Units(ctx context.Context, r Range, opt UnitOptions) iter.Seq2[*Unit, error] {
	return func(yield func(*Unit, error) bool) {
		if err := r.Validate(); err != nil {
			yield(nil, err)
			return
		}
		parts := opt.Parts
		if parts == 0 {
			parts = Hits | Snapshots
		}
		var book *OrderBook
		if parts&Snapshots != 0 {
			book = newOrderBook(w, r.Garbage)
		}
		if parts&Hits != 0 && !w.hitUnits(ctx, r, opt, book, yield) {
			return
		}
		if parts&Snapshots == 0 {
			return
		}
		for x := r.From; x < r.From+r.Days; x++ {
			d := x - 1
			if d < 0 {
				continue
			}
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			u, err := w.snapshotUnit(ctx, book, d, r.Garbage, r.Segment)
			if err != nil {
				yield(nil, err)
				return
			}
			more := yield(u, nil)
			u.drain()
			if !more {
				return
			}
			book.Forget(d - 5) // later snapshots need births from d−5 on
		}
	}
}

// hitUnits yields the hit units of r's run days, rendered on opt.Workers goroutines, feeding
// book (if any) with each day; it reports whether the consumer wants more.
func (w *World) hitUnits(ctx context.Context, r Range, opt UnitOptions, book *OrderBook, yield func(*Unit, error) bool) bool {
	popt := PlayOptions{Workers: opt.Workers, Segment: r.Segment, WholeDays: r.Garbage.AddsHitExtras()}
	if book != nil {
		popt.OnDay = book.Add
	}
	batches := func(yield func(*Batch, error) bool) {
		err := w.Play(ctx, r.From, r.Days, popt, func(b *Batch) error {
			if !yield(b, nil) {
				return errUnitsStopped
			}
			return nil
		})
		if err != nil && !errors.Is(err, errUnitsStopped) {
			yield(nil, err)
		}
	}
	next, stop := iter.Pull2(batches)
	defer stop()
	src := &batchSource{next: next}
	for {
		b, err, ok := next()
		if !ok {
			return true
		}
		if err != nil {
			yield(nil, err)
			return false
		}
		day := b.Day
		var chunks *[][]byte
		u := &Unit{Kind: HitsUnit, Day: day.N, Len: day.Len(), Hits: day, src: src, first: b, seg: r.Segment}
		if opt.ReuseExtras {
			chunks = &u.chunks
		}
		extras, err := day.hitExtras(ctx, r.Garbage, chunks) // a large garbage share takes a while: Ctrl-C stops it
		if err != nil {
			b.Release()
			u.ReleaseExtras() // nothing refers to them
			yield(nil, err)
			return false
		}
		u.Extras = extras
		if sh := b.share; sh != nil {
			u.Len, u.Extras = sh.len(), shareExtras(r.Segment, sh, extras)
		}
		if !yield(u, nil) {
			return false // not drained: the rest of the day is never rendered (--limit)
		}
		u.drain()
		if src.err != nil {
			yield(nil, src.err)
			return false
		}
	}
}

// snapshotUnit renders snapshot d and its extras, the share of seg, building the days it
// needs within ctx.
func (w *World) snapshotUnit(ctx context.Context, book *OrderBook, d int, g Garbage, seg Segment) (*Unit, error) {
	rows, keys, err := book.snapshotRows(ctx, d)
	if err != nil {
		return nil, err
	}
	extras := w.OrderExtras(d, rows, keys, g) // drawn over the whole snapshot, then shared
	if !seg.Whole() {
		sh := newShare(len(rows), func(i int) bool { return seg.OwnsKey(keys[i]) })
		extras = shareExtras(seg, sh, extras)
		n := 0
		for i := range rows {
			if sh.owns(i) {
				rows[n], keys[n] = rows[i], keys[i]
				n++
			}
		}
		rows, keys = rows[:n], keys[:n]
	}
	b := newBatch(len(rows) * 600)
	for i := range rows {
		var m Msg
		m.Key[0] = int32(len(b.Data))
		b.Data = append(b.Data, keys[i]...)
		m.Key[1] = int32(len(b.Data))
		m.Value[0] = m.Key[1]
		b.Data = append(b.Data, rows[i]...)
		m.Value[1] = int32(len(b.Data))
		b.Msgs = append(b.Msgs, m)
	}
	b.Last = true
	return &Unit{Kind: SnapshotUnit, Day: d, Len: len(rows), Extras: extras, first: b, book: book, seg: seg}, nil
}
