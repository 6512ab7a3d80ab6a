package sink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/clickgen/clickgen/schema"
)

// WriterOptions configure a [Writer]. The zero value means defaults.
type WriterOptions struct {
	// Partitions maps a topic to the partition count Kafka would have, so
	// that [TopicStats.Partitions] counts each keyed message in the
	// partition Kafka would choose ([schema.PartitionForKey]) and a file run
	// reports what a Kafka run would. Nil means [DefaultTopics] (hits 2,
	// orders 1); an empty non-nil map disables partition counts. Messages
	// of unlisted topics, and messages without a key, are not counted per
	// partition.
	Partitions map[string]int32
	// BufferSize is how many bytes are gathered before a write to the
	// underlying writer; 0 means 1 MiB.
	BufferSize int
	// WriteTimeout bounds one write to the underlying writer (a pipe whose
	// reader stopped reading); 0 is no bound but the caller's context. A write
	// that does not finish in time is abandoned: its lines stay unaccounted
	// (neither acked nor failed) and the writer fails from then on.
	WriteTimeout time.Duration
	// Linger bounds how long a line waits in the buffer before it is written:
	// a line handed over is written within Linger (and the time a write under
	// way takes) even when the buffer is not full, so that a paced run reaches
	// a reader of the file or pipe as it goes, as Kafka's linger.ms bounds a
	// record's wait for its batch. 0 means no bound: lines wait for a full
	// buffer or Flush.
	Linger time.Duration
}

// Validate reports nonsensical options.
func (o WriterOptions) Validate() error {
	if o.BufferSize < 0 {
		return fmt.Errorf("sink: buffer size %d is negative", o.BufferSize)
	}
	if o.WriteTimeout < 0 {
		return fmt.Errorf("sink: write timeout %v is negative", o.WriteTimeout)
	}
	if o.Linger < 0 {
		return fmt.Errorf("sink: linger %v is negative", o.Linger)
	}
	for t, n := range o.Partitions {
		if n < 1 {
			return fmt.Errorf("sink: topic %s: partition count %d, want at least 1", t, n)
		}
	}
	return nil
}

// Writer is a [Sink] writing exactly the bytes Kafka gets, one message per
// line: Value followed by "\n" (a tombstone or an empty value is an empty
// line). Keys and topics are not written: a file holds one topic's bytes, as
// `batch --file` does. A message is acknowledged when its whole line has been
// written to the underlying io.Writer (not synced to disk); a write error
// fails the messages not fully written, and is sticky. Lines are gathered in a
// buffer and written when it is full (Send then waits for the write), when
// Flush is called, or when the oldest has waited Linger (the write then goes
// on on a goroutine of its own while Send fills the next buffer). Writes are
// one at a time, in order, each on a goroutine of its own: when the caller's
// ctx ends or WriteTimeout passes first, the write is abandoned (a pipe whose
// reader stopped reading no longer hangs the run past its timeouts and
// signals), its lines stay unaccounted and every later call fails. All
// methods are safe for concurrent use.
type Writer struct {
	mu     sync.Mutex
	w      io.Writer
	closer io.Closer // the file we opened, nil for a caller's writer
	// file is the file we opened, cut back to whole lines after a short write (a full
	// disk); nil for a caller's writer. written is its length in whole lines.
	file    truncater
	written int64
	parts   map[string]int32
	bufSize int
	buf     []byte
	pend    []pendingLine
	// spare and sparePend are the buffers of the last write, reused for the next lines.
	spare     []byte
	sparePend []pendingLine
	closed    bool
	clock     time.Time // the send time of unpaced lines (see Send)
	clocked   int       // unpaced lines timed by clock so far
	timeout   time.Duration
	stuck     error // set when a write was abandoned: the writer is unusable
	// linger bounds the wait of a buffered line (0: none); since is when the buffer's
	// oldest line came; timer, when set, writes the buffer once the oldest has waited
	// linger; flight is the write under way, nil when none.
	linger time.Duration
	since  time.Time
	timer  *time.Timer
	flight *flight

	rec *recorder
}

// flight is one write under way.
type flight struct {
	done     chan struct{} // closed once the write returned and its lines were settled
	deadline time.Time     // when WriteTimeout abandons it; zero without one
	lines    int
	// abandoned says a waiter gave up on it (ctx, WriteTimeout): its lines stay
	// unaccounted. settled says its goroutine has settled it. Both guarded by the
	// writer's mutex.
	abandoned, settled bool
}

// clockEvery is how many unpaced lines share one reading of the clock.
const clockEvery = 256

var _ HoldKeeper = (*Writer)(nil)

// truncater is what the writer needs of a file to cut a partial line.
type truncater interface {
	Truncate(size int64) error
	Seek(offset int64, whence int) (int64, error)
}

type pendingLine struct {
	tc   *topicCounters
	part int32
	due  time.Time
	tag  uint32
	warm bool // the message's Warmup
	n    int  // length of the line including "\n"
}

// NewWriter returns a Writer writing to w, for example os.Stdout. Close
// flushes but does not close w.
func NewWriter(w io.Writer, o WriterOptions) (*Writer, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	parts := o.Partitions
	if parts == nil {
		parts = DefaultTopics()
	}
	size := o.BufferSize
	if size == 0 {
		size = 1 << 20
	}
	return &Writer{w: w, parts: parts, bufSize: size, buf: make([]byte, 0, size), rec: newRecorder(), timeout: o.WriteTimeout,
		linger: o.Linger}, nil
}

// CreateFile creates or truncates the file at path and returns a Writer
// writing to it; Close flushes and closes the file. It is [OpenFile] without
// waiting for a pipe's reader.
func CreateFile(path string, o WriterOptions) (*Writer, error) {
	return OpenFile(context.Background(), path, o, 0)
}

// OpenFile is CreateFile for a path that may be a FIFO or a pipe. The file is
// opened for writing only: opened read-write, a FIFO or a pipe (/dev/stdout)
// kept its own read end, so a reader that went away never made a write fail
// (EPIPE) and the run hung. A FIFO or pipe without a reader is waited for,
// until ctx ends or wait passes (0: not at all), then refused.
func OpenFile(ctx context.Context, path string, o WriterOptions, wait time.Duration) (*Writer, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	f, err := openForWriting(ctx, path, wait)
	if err != nil {
		return nil, fmt.Errorf("sink: %w", err)
	}
	w, err := NewWriter(f, o)
	if err != nil {
		f.Close()
		return nil, err
	}
	w.closer, w.file = f, f
	return w, nil
}

// Send appends m's line to the buffer, writing the buffer out when it is
// full; see [Sink.Send].
func (w *Writer) Send(ctx context.Context, m Message) error {
	if err := m.validate(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	if err := w.errLocked(); err != nil {
		return err
	}
	due := m.Due
	if due.IsZero() {
		// An unpaced line is timed from when it was handed over. Reading the clock is a
		// good part of a line's cost, so it is read for the first unpaced line of a buffer
		// and then every clockEvery unpaced lines: a latency is longer by the time those few
		// lines took. (Counting lines of the buffer instead timed an unpaced line that came
		// after paced ones by a clock never read: a latency of 292 years.)
		if w.clocked%clockEvery == 0 {
			w.clock = time.Now()
		}
		w.clocked++
		due = w.clock
	}
	part := int32(-1)
	if n, ok := w.parts[m.Topic]; ok && m.Key != nil {
		part = schema.PartitionForKey(m.Key, n)
	}
	tc := w.rec.topic(m.Topic)
	tc.sent.Add(1)
	if len(w.pend) == 0 && w.linger > 0 {
		w.since = time.Now()
	}
	w.buf = append(w.buf, m.Value...)
	w.buf = append(w.buf, '\n')
	w.pend = append(w.pend, pendingLine{tc: tc, part: part, due: due, tag: m.Tag, warm: m.Warmup, n: len(m.Value) + 1})
	if len(w.buf) >= w.bufSize {
		w.writeLocked(ctx)
		return w.errLocked()
	}
	w.armLocked()
	return nil
}

// errLocked is the writer's sticky error: an abandoned write, else the first failed line's.
func (w *Writer) errLocked() error {
	if w.stuck != nil {
		return w.stuck
	}
	return w.rec.err()
}

// writeLocked writes the buffer and waits for it, after the write under way if any: on
// return every line handed over so far is settled, or the writer is stuck (a wait abandoned
// for ctx or the write timeout).
func (w *Writer) writeLocked(ctx context.Context) {
	for w.stuck == nil && (w.flight != nil || len(w.pend) > 0) {
		if w.flight == nil {
			w.startLocked()
		}
		w.waitLocked(ctx)
	}
}

// startLocked starts writing the buffer on a goroutine of its own, which settles its lines
// when the write returns; the next lines go to the spare buffer. There must be no write under
// way.
func (w *Writer) startLocked() {
	f := &flight{done: make(chan struct{}), lines: len(w.pend)}
	if w.timeout > 0 {
		f.deadline = time.Now().Add(w.timeout)
	}
	buf, pend := w.buf, w.pend
	if cap(w.spare) == 0 {
		w.spare = make([]byte, 0, w.bufSize)
	}
	w.buf, w.pend, w.spare, w.sparePend = w.spare[:0], w.sparePend[:0], nil, nil
	w.clocked = 0
	w.flight = f
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	go func() {
		n, err := w.w.Write(buf)
		w.mu.Lock()
		defer w.mu.Unlock()
		if !f.abandoned {
			w.settleLocked(buf, pend, n, err)
		}
		f.settled = true
		clear(pend)
		w.spare, w.sparePend = buf[:0], pend[:0]
		if w.flight == f {
			w.flight = nil
		}
		close(f.done)
		w.armLocked() // the lines that came during the write
	}()
}

// waitLocked waits, with the mutex released, until the write under way ends, ctx ends or the
// write timeout passes; in the last two cases the write is abandoned: its lines stay
// unaccounted and the writer is stuck.
func (w *Writer) waitLocked(ctx context.Context) {
	f := w.flight
	if f == nil {
		return
	}
	var timeout <-chan time.Time
	if !f.deadline.IsZero() {
		t := time.NewTimer(time.Until(f.deadline))
		defer t.Stop()
		timeout = t.C
	}
	w.mu.Unlock()
	var stuck error
	select {
	case <-f.done:
	case <-ctx.Done():
		stuck = fmt.Errorf("sink: write of %d message(s) abandoned: %w", f.lines, context.Cause(ctx))
	case <-timeout:
		stuck = fmt.Errorf("sink: write of %d message(s) did not finish within %v (is the reader still reading?)", f.lines, w.timeout)
	}
	w.mu.Lock()
	if stuck != nil && !f.settled && !f.abandoned {
		f.abandoned = true
		if w.stuck == nil {
			w.stuck = stuck
		}
	}
}

// armLocked sets the timer that writes the buffer once its oldest line has waited the
// linger, when lines wait and nothing else will write them: no timer is set, no write is
// under way (its end arms it again).
func (w *Writer) armLocked() {
	if w.linger <= 0 || len(w.pend) == 0 || w.timer != nil || w.flight != nil || w.stuck != nil || w.closed {
		return
	}
	w.timer = time.AfterFunc(max(0, w.linger-time.Since(w.since)), w.lingered)
}

// lingered writes the buffer whose oldest line has waited the linger, and waits for the
// write within the write timeout on the timer's goroutine; Send goes on filling the next
// buffer meanwhile.
func (w *Writer) lingered() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.timer = nil
	if w.closed || w.stuck != nil || w.flight != nil || len(w.pend) == 0 {
		return
	}
	w.startLocked()
	w.waitLocked(context.Background())
}

// settleLocked settles the lines of a write of buf that wrote n bytes and returned err:
// acked if written in full, failed otherwise.
func (w *Writer) settleLocked(buf []byte, pend []pendingLine, n int, err error) {
	if err == nil && n < len(buf) {
		err = io.ErrShortWrite
	}
	now := time.Now()
	off, whole := 0, 0
	for _, l := range pend {
		off += l.n
		if off <= n {
			whole = off
			w.rec.ack(l.tc, l.part, l.n-1, now.Sub(l.due), l.warm)
		} else {
			w.rec.fail(l.tc, l.tag, l.warm, fmt.Errorf("write: %w", err))
		}
	}
	if n > whole && w.file != nil {
		// The write stopped inside a line: cut it, so the file holds whole lines, each
		// one acknowledged, and a reader never sees half a JSON document.
		end := w.written + int64(whole)
		if terr := w.file.Truncate(end); terr == nil {
			_, _ = w.file.Seek(end, io.SeekStart)
		}
	}
	w.written += int64(whole)
}

// Flush writes out the buffer and waits for it, and for a write under way; see
// [Sink.Flush]. ctx is checked before writing, and ends a wait for a write.
func (w *Writer) Flush(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := len(w.pend) + w.inFlightLocked(); n > 0 && w.stuck == nil {
		if err := ctx.Err(); err != nil {
			return errors.Join(fmt.Errorf("sink: flush: %d message(s) still unwritten: %w", n, err), w.errLocked())
		}
		w.writeLocked(ctx)
	}
	return w.errLocked()
}

// inFlightLocked is how many lines the write under way carries.
func (w *Writer) inFlightLocked() int {
	if w.flight == nil {
		return 0
	}
	return w.flight.lines
}

// Close flushes the buffer and closes the file if CreateFile opened it. It
// returns the delivery error, if any, or the file's close error. Close is
// idempotent; later calls return nil.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	// The caller flushed with its timeout first ([Sink.Close]); a write still blocked then
	// was abandoned, and closing the file below ends it.
	w.writeLocked(context.Background())
	err := w.errLocked()
	if w.closer != nil {
		if cerr := w.closer.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("sink: %w", cerr)
		}
	}
	return err
}

// Stats returns a snapshot of the counters; see [Stats].
func (w *Writer) Stats() Stats { return w.rec.snapshot() }

// KeepsHolds reports that w counts [Message.Hold], trivially: Send copies a message's value
// into w's buffer and reads its key there and then, so w refers to no message's bytes once
// Send has returned and never counts one in its hold. A sender that waits for holds may reuse
// the bytes at once (a batch run recycles each rendered batch as soon as it is sent, while
// its memory is still in the processor's cache, instead of holding a file's 32 MB to a flush).
func (w *Writer) KeepsHolds() bool { return true }

// openForWriting opens path for writing only, creating or truncating a regular file. A FIFO
// or a pipe (/dev/stdout, /proc/self/fd/N) is opened without blocking: with no reader the
// kernel says ENXIO, and it is retried every 50 ms until ctx ends or wait passes, so a FIFO
// nobody reads is an error, not an open that waits for ever, deaf to signals. Opened so,
// the file is in Go's poller and a write blocked on a full pipe can be abandoned.
func openForWriting(ctx context.Context, path string, wait time.Duration) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	}
	deadline := time.Now().Add(wait)
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.ENXIO) {
			return nil, err
		}
		if !time.Now().Before(deadline) {
			return nil, fmt.Errorf("open %s: no process opened the pipe for reading within %v", path, wait)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("open %s: no process opened the pipe for reading: %w", path, context.Cause(ctx))
		case <-time.After(50 * time.Millisecond):
		}
	}
}
