package world

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

// Msg locates one message inside a Batch's Data: its key and value, and its model time.
type Msg struct {
	Key, Value [2]int32 // [from, to) offsets into Batch.Data
	UTC        int64    // model time: the event's UTCEventTime second
	WatchID    uint64   // the hit's WatchID (0 for a snapshot row)
	Type       uint8    // event kind (pageview, add_to_cart, purchase …)
}

// Batch is a run of consecutive clean events of one day, rendered: keys (decimal ClientID) and
// values (canonical JSON) packed into Data; or, with Day nil, the rows of a snapshot keyed by
// order_id (see [Unit.Batches]). A Batch handed to the emit callback is owned by
// the callback: the pipeline never touches it again.
type Batch struct {
	Day  *Day
	From int // index of the first event in the day
	Data []byte
	Msgs []Msg
	Last bool // the last batch of its day

	share  *segShare  // the segment's share of the day (nil: whole), for World.Units
	visits visitCache // the visits' bytes written into Data (renderShare), kept with the memory
}

// Key returns message i's key.
func (b *Batch) Key(i int) []byte { m := &b.Msgs[i]; return b.Data[m.Key[0]:m.Key[1]:m.Key[1]] }

// Value returns message i's value.
func (b *Batch) Value(i int) []byte { m := &b.Msgs[i]; return b.Data[m.Value[0]:m.Value[1]:m.Value[1]] }

// WatchID returns the WatchID hit message i carries.
func (b *Batch) WatchID(i int) uint64 { return b.Msgs[i].WatchID }

// EventType returns the EventType of hit message i (pageview, add_to_cart, purchase).
func (b *Batch) EventType(i int) string { return eventTypeOf(b.Msgs[i].Type) }

// BatchEvents is how many events a Batch holds at most (about 1.2 MB of JSON). Small enough
// that the batches a run has in flight (rendered ahead, being sent, held by the sink until
// acknowledged) stay in the processor's cache, recycled as they are (see freeBatches): with
// 4096 (5 MB) they did not, and a run into Kafka spent a tenth more CPU writing and reading
// its bytes from memory. A batch's visits still fall mostly into it (see visitCache), and
// recycling keeps as many bytes as before (maxFreeBatches).
const BatchEvents = 1024

// freeBatches recycles the memory of released batches: rendering into fresh memory costs
// zeroing, page faults and collection on every batch. Unlike a sync.Pool it survives garbage
// collections, which a run under its soft memory limit has many of; it holds at most
// maxFreeBatches batches (about 80 MB), what a run has in flight anyway (into a sink that
// keeps no holds, it holds play.FlushWindow's 32 MB to a flush). It is a stack: the batch released
// last, whose bytes the sink has just read and are likely still in the processor's cache, is
// the one rendered into next (a queue handed out the batch released longest ago, whose
// memory had left the cache).
var freeBatches struct {
	mu    sync.Mutex
	stack []*Batch
}

const maxFreeBatches = 64

// Release hands b's memory back for reuse by later batches. Call it only when nothing refers
// to b's keys and values any more (a sink has acknowledged them); b must not be used after.
// Not calling it is fine: the memory is then garbage collected.
func (b *Batch) Release() {
	b.Day, b.share = nil, nil
	freeBatches.mu.Lock()
	if len(freeBatches.stack) < maxFreeBatches {
		freeBatches.stack = append(freeBatches.stack, b)
	} // else enough kept: the collector takes this one
	freeBatches.mu.Unlock()
}

// newBatch returns an empty Batch, recycled when one was released, with room for want bytes.
func newBatch(want int) *Batch {
	var b *Batch
	freeBatches.mu.Lock()
	if n := len(freeBatches.stack); n > 0 {
		b = freeBatches.stack[n-1]
		freeBatches.stack[n-1] = nil
		freeBatches.stack = freeBatches.stack[:n-1]
	}
	freeBatches.mu.Unlock()
	if b == nil {
		b = &Batch{}
	}
	if cap(b.Data) < want {
		b.Data = make([]byte, 0, want)
	}
	*b = Batch{Msgs: b.Msgs[:0], Data: b.Data[:0], visits: b.visits}
	return b
}

// RenderBatch renders events [from, to) of day into a new Batch.
func (day *Day) RenderBatch(from, to int) *Batch { return day.renderShare(nil, from, to) }

// batchesRendered counts the batches rendered by this process (for tests: what a run renders
// and then throws away is wasted work).
var batchesRendered atomic.Int64

// renderShare renders the events of [from, to) that sh owns (all for nil) into a new Batch,
// numbered in the share: its From is the share's index of the first.
func (day *Day) renderShare(sh *segShare, from, to int) *Batch {
	want := to - from
	if sh != nil {
		want = sh.index(to) - sh.index(from)
	}
	batchesRendered.Add(1)
	b := newBatch(want * 1300)
	b.Day, b.From, b.share = day, sh.index(from), sh
	vc := &b.visits
	vc.reset(want)
	for i := from; i < to; i++ {
		if !sh.owns(i) {
			continue
		}
		var m Msg
		m.Key[0] = int32(len(b.Data))
		sp := vc.span(day.events[i].visit)
		if sp != nil && sp.key[1] > 0 {
			b.Data = appendSpan(b.Data, sp.key) // the visit's ClientID, written for an earlier event
		} else {
			b.Data = strconv.AppendUint(b.Data, day.ClientID(i), 10)
			if sp != nil {
				sp.key = [2]int32{m.Key[0], int32(len(b.Data))}
			}
		}
		m.Key[1] = int32(len(b.Data))
		m.Value[0] = m.Key[1]
		b.Data = day.appendEvent(b.Data, i, b.Data[m.Key[0]:m.Key[1]], vc, nil)
		m.Value[1] = int32(len(b.Data))
		e := &day.events[i]
		m.UTC, m.Type, m.WatchID = dayStartUTC(day.N)+int64(e.sec), e.kind, e.watchID
		b.Msgs = append(b.Msgs, m)
	}
	b.Last = to == day.Len()
	return b
}

// PlayOptions tune Play.
type PlayOptions struct {
	// Workers renders batches in parallel; 0 means GOMAXPROCS. At most [MaxWorkers] are
	// started (more is refused at the edge: [CheckWorkers]).
	Workers int
	// OnDay, if set, is called once per generated day, in day order, before its first batch is
	// emitted (e.g. to feed an OrderBook with the same Day).
	OnDay func(*Day)
	// Segment renders and emits only the events the segment owns (see [Segment]); the zero
	// value is the whole run. A segment's days are built with [World.SegmentDay], which
	// plans only what the segment needs, unless WholeDays is set.
	Segment Segment
	// WholeDays builds every day whole even for a segment: what is derived from the whole
	// day's events (garbage, redeliveries) needs them.
	WholeDays bool
}

// Play generates model days [from, from+n) and calls emit with their clean events in order:
// day by day, batch by batch. Days are generated ahead and batches rendered in parallel, but
// emit always sees the same sequence of bytes, whatever the number of workers. With
// opt.Segment, only the segment's events are rendered, and a batch's From counts the
// segment's events. Memory is
// bounded by a few days' compact models and a window of batches, not by n. Play stops at the
// first error of emit or when ctx is done.
func (w *World) Play(parent context.Context, from, n int, opt PlayOptions, emit func(*Batch) error) error {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, MaxWorkers)
	ctx, cancel := context.WithCancel(parent)
	defer cancel()

	// Days are generated in order, one ahead of the renderer, with the segment's share. The
	// channel is unbuffered: the next day is built while one renders, and no third day is
	// held (at scale 10 a day's model is 38 MB, at scale 100 380 MB).
	type dayShare struct {
		day *Day
		sh  *segShare
	}
	days := make(chan dayShare)
	cut := false // the days were cut short by ctx
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(days)
		for d := from; d < from+n; d++ {
			seg := opt.Segment
			if opt.WholeDays {
				seg = Segment{}
			}
			day, err := w.dayOf(ctx, d, seg)
			if err != nil {
				cut = true // read after wg.Wait
				return
			}
			select {
			case days <- dayShare{day, day.shareOf(opt.Segment)}:
			case <-ctx.Done():
				return
			}
		}
	}()

	type job struct {
		day      *Day
		sh       *segShare
		from, to int
		done     chan *Batch
	}
	jobs := make(chan *job)
	order := make(chan *job, 2*workers) // the window of batches in flight, in emit order
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				j.done <- j.day.renderShare(j.sh, j.from, j.to)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(order)
		defer close(jobs)
		for ds := range days {
			day := ds.day
			if opt.OnDay != nil {
				opt.OnDay(day)
			}
			for lo := 0; lo < day.Len() || lo == 0; lo += BatchEvents {
				j := &job{day: day, sh: ds.sh, from: lo, to: min(lo+BatchEvents, day.Len()), done: make(chan *Batch, 1)}
				select {
				case order <- j:
				case <-ctx.Done():
					return
				}
				select {
				case jobs <- j:
				case <-ctx.Done():
					return
				}
			}
		}
	}()

	var err error
	for j := range order {
		if err != nil {
			continue // drain the window so the producer can stop
		}
		select {
		case b := <-j.done:
			err = emit(b)
		case <-ctx.Done():
			err = parent.Err()
		}
		if err != nil {
			cancel()
		}
	}
	if err == nil {
		// The producer stops early only when ctx is done: the days were not all emitted.
		err = parent.Err()
	}
	cancel()
	wg.Wait()
	if err == nil && cut {
		// ctx ended the run while a day was being built, before any of its batches: not a
		// complete run.
		err = parent.Err()
	}
	return err
}
