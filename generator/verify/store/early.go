package store

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"
)

// earlyBudget bounds the memory the early reads hold rows in while the run is planned; a read
// that reaches it waits for the plan, and the store holds the rest of its answer. The fill
// world's raw table is 405 714 rows of 20 bytes here (8.1 MB); a ×100 day's, 5.2 million,
// fills the budget and waits.
var earlyBudget = 32 << 20

// heldChunk is the size of the blocks held rows are kept in.
var heldChunk = 1 << 20

// rowSink takes one row of a table read whole: a raw or error table's (hash, hint, class) or
// the orders table's (0, row, nil), and the shard it came from (0 unless the table is read
// through a Distributed table). Its byte slices are valid only during the call.
type rowSink func(key uint64, a, b []byte, shard int)

// budget is memory shared by the early reads, in bytes.
type budget struct {
	mu   sync.Mutex
	left int
}

func (b *budget) take(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

func (b *budget) give(n int) {
	b.mu.Lock()
	b.left += n
	b.mu.Unlock()
}

// early is the first read of a table, started before the run is planned: ClickHouse answers a
// sorted query only once it is sorted (and hashes every raw row first), so the store does that
// work while verify plans the run instead of after. The rows that arrive before the plan is
// ready are held in memory within the shared budget, then passed on in order; past the budget
// the read waits for the plan.
type early struct {
	table  string
	budget *budget
	gate   chan struct{} // closed by finish: the plan is ready and sink is set
	done   chan struct{} // closed when the read returned
	err    error         // the read's error, once done
	sink   rowSink       // set by finish before it closes gate

	// Touched by the read's goroutine only, until done.
	ctx     context.Context
	held    [][]byte // rows before the gate, each its key then a and b length-prefixed
	took    int      // the budget the held blocks took
	passing bool     // the held rows were passed on: rows go to sink as they come
	waited  bool     // the budget ran out and the read waited for the plan
	dropped bool     // ctx ended while the read waited: its rows are dropped
}

// startEarly starts read on its own goroutine. abort is called with the read's error when it
// fails before the plan is ready in a way that ends verification (not a table's error), so
// that the planning stops at once.
func startEarly(ctx context.Context, table string, b *budget, abort context.CancelCauseFunc, read func(context.Context, rowSink) error) *early {
	e := &early{table: table, budget: b, gate: make(chan struct{}), done: make(chan struct{}), ctx: ctx}
	go func() {
		defer close(e.done)
		e.err = read(ctx, e.row)
		if e.err != nil && fatal(e.err) && ctx.Err() == nil {
			select {
			case <-e.gate:
			default:
				abort(e.err)
			}
		}
	}()
	return e
}

// fatal says whether a read's error ends verification rather than marking its table.
func fatal(err error) bool { return !errors.Is(err, ErrTable) && !errors.Is(err, ErrChanged) }

// row takes a row on the read's goroutine: held until the gate opens, then passed on.
func (e *early) row(key uint64, a, b []byte, shard int) {
	if e.dropped {
		return
	}
	if !e.passing {
		select {
		case <-e.gate:
		default:
			if e.hold(key, a, b, shard) {
				return
			}
			e.waited = true
			select {
			case <-e.gate:
			case <-e.ctx.Done():
				e.dropped = true
			}
		}
		if e.dropped {
			return // the read ends with ctx's error
		}
		e.pass()
	}
	e.sink(key, a, b, shard)
}

// hold keeps a row until the gate opens; false when the budget cannot hold it.
func (e *early) hold(key uint64, a, b []byte, shard int) bool {
	n := 8 + uvarintLen(len(a)) + len(a) + uvarintLen(len(b)) + len(b) + uvarintLen(shard)
	last := len(e.held) - 1
	if last < 0 || cap(e.held[last])-len(e.held[last]) < n {
		size := max(heldChunk, n)
		if !e.budget.take(size) {
			return false
		}
		e.took += size
		e.held = append(e.held, make([]byte, 0, size))
		last++
	}
	c := binary.LittleEndian.AppendUint64(e.held[last], key)
	c = append(binary.AppendUvarint(c, uint64(len(a))), a...)
	c = append(binary.AppendUvarint(c, uint64(len(b))), b...)
	e.held[last] = binary.AppendUvarint(c, uint64(shard))
	return true
}

func uvarintLen(n int) int {
	k := 1
	for ; n >= 0x80; n >>= 7 {
		k++
	}
	return k
}

// pass hands the held rows to sink in order and frees their memory.
func (e *early) pass() {
	for _, c := range e.held {
		for len(c) > 0 {
			key := binary.LittleEndian.Uint64(c)
			n, k := binary.Uvarint(c[8:])
			a := c[8+k : 8+k+int(n)]
			c = c[8+k+int(n):]
			n, k = binary.Uvarint(c)
			b := c[k : k+int(n)]
			c = c[k+int(n):]
			shard, k := binary.Uvarint(c)
			c = c[k:]
			e.sink(key, a, b, int(shard))
		}
	}
	e.release()
	e.passing = true
}

// release frees the held rows.
func (e *early) release() {
	e.budget.give(e.took)
	e.held, e.took = nil, 0
}

// finish passes the read's rows to sink, those held and those still to come, and returns the
// read's error once it has returned. It is called once, when the plan is ready.
func (e *early) finish(sink rowSink) error {
	e.sink = sink
	close(e.gate)
	<-e.done
	switch {
	case e.passing:
	case e.err == nil:
		e.pass() // the read ended before the gate opened
	default:
		e.release()
	}
	return e.err
}

// brokeWaiting says whether the read failed after waiting for the plan in a way a fresh read
// may not: a store that drops an answer it could not send for a while (a newer server's
// http_send_timeout) breaks it off, and it is read again rather than judged unreadable.
func (e *early) brokeWaiting(ctx context.Context) bool {
	return e.err != nil && e.waited && fatal(e.err) && ctx.Err() == nil
}
