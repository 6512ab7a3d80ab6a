package sink

import (
	"context"
	"sync"
)

// budget bounds what a sink holds in flight, in records and bytes. It exists
// because kgo's own limits tie two things together: the context that bounds
// waiting for buffer space in Produce is also the record's context, and
// cancelling it fails records already buffered. Send waits here, bounded by
// its ctx; records handed to kgo are never cancelled by it, so stopping the
// pacer never throws away what is already queued.
type budget struct {
	mu       sync.Mutex
	recs     int64
	bytes    int64
	maxRecs  int64
	maxBytes int64         // 0: unlimited
	wake     chan struct{} // closed on the next release, nil if nobody waits
}

func newBudget(maxRecs, maxBytes int64) *budget {
	return &budget{maxRecs: maxRecs, maxBytes: maxBytes}
}

// acquire takes room for one record of n bytes, waiting until there is room
// or ctx is done (a done ctx does not refuse room that is free: callers
// check ctx first). A record larger than the whole byte budget is admitted
// when nothing else is in flight, so it cannot wait forever.
func (b *budget) acquire(ctx context.Context, n int64) error {
	return b.waitFor(ctx, func() bool { return b.take(n) })
}

// tryAcquire takes room for one record of n bytes if there is room now.
func (b *budget) tryAcquire(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.take(n)
}

// take is acquire's condition; b.mu must be held.
func (b *budget) take(n int64) bool {
	if b.recs >= b.maxRecs {
		return false
	}
	if b.maxBytes > 0 && b.bytes+n > b.maxBytes && b.recs > 0 {
		return false
	}
	b.recs++
	b.bytes += n
	return true
}

// release returns the room of one record of n bytes.
func (b *budget) release(n int64) {
	b.mu.Lock()
	b.recs--
	b.bytes -= n
	if b.wake != nil {
		close(b.wake)
		b.wake = nil
	}
	b.mu.Unlock()
}

// drained waits until nothing is in flight or ctx is done.
func (b *budget) drained(ctx context.Context) error {
	return b.waitFor(ctx, func() bool { return b.recs == 0 })
}

// inFlight returns the number of records in flight.
func (b *budget) inFlight() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.recs
}

// waitFor waits until cond, evaluated under b.mu, holds.
func (b *budget) waitFor(ctx context.Context, cond func() bool) error {
	for {
		b.mu.Lock()
		if cond() {
			b.mu.Unlock()
			return nil
		}
		if err := ctx.Err(); err != nil {
			b.mu.Unlock()
			return err
		}
		if b.wake == nil {
			b.wake = make(chan struct{})
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
