package sink

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Message is one record to send.
//
// The sink takes ownership of Key and Value: callers must not modify them
// after Send, even if Send returns an error.
type Message struct {
	// Topic is the destination topic; it must not be empty.
	Topic string
	// Key is the record key (hits: the decimal ClientID; orders: the
	// order_id). A nil key is sent without a key.
	Key []byte
	// Value is one compact JSON document without a trailing newline. A nil
	// Value is a tombstone; an empty non-nil Value is an empty message. The
	// file writer writes both as an empty line.
	Value []byte
	// Due is when the pacer intended the message to be sent; the zero time
	// means "now". Latency is measured from Due to acknowledgement, so a
	// sender that falls behind its schedule shows up in the percentiles.
	// Due is never the record's timestamp: Kafka records carry the real
	// send time, never model time.
	Due time.Time
	// Tag is an opaque caller tag (for example the model day) reported
	// back for failed messages, so a failure can be attributed.
	Tag uint32
	// Warmup says the message belongs to a run's warm-up (play.Plan.Warmup): it
	// is sent like any other, and its acknowledgement or failure is counted
	// apart as well ([Stats.Warmup]), so a run's percentiles can leave the
	// warm-up out without losing it.
	Warmup bool
	// Hold, if not nil, counts the message while the sink refers to Key and Value: from
	// Send until its acknowledgement or failure. A sink that keeps holds
	// ([HoldKeeper]) counts it; others ignore it (the caller then learns nothing from it,
	// and only Flush says the bytes are free).
	Hold *Hold
}

// Hold counts messages a sink still refers to (see [Message.Hold]): a sender that reuses the
// memory of the bytes it sent waits for Done instead of flushing the sink, which would stall
// its pipeline. The zero value is ready; a Hold must not be copied once used.
type Hold struct{ n atomic.Int64 }

// Done reports whether the sink refers to none of the messages counted in h any more.
func (h *Hold) Done() bool { return h.n.Load() == 0 }

// Acquire counts one more message in h: a [HoldKeeper]'s Send calls it before it queues the
// message (never for a message it refuses).
func (h *Hold) Acquire() { h.n.Add(1) }

// Release counts one message out of h once the sink no longer refers to its bytes.
func (h *Hold) Release() { h.n.Add(-1) }

// HoldKeeper is a [Sink] that counts [Message.Hold] for every message Send queues.
type HoldKeeper interface {
	Sink
	// KeepsHolds reports whether the sink counts holds (a sink that wraps another says
	// what the one it wraps does).
	KeepsHolds() bool
}

// KeepsHolds reports whether snk counts [Message.Hold].
func KeepsHolds(snk Sink) bool {
	h, ok := snk.(HoldKeeper)
	return ok && h.KeepsHolds()
}

// Sink is where messages go. All methods are safe for concurrent use.
type Sink interface {
	// Send queues m asynchronously. It blocks only while the sink's
	// buffer is full, and then at most until ctx is done or, for Kafka,
	// the delivery timeout passes without one acknowledgement (then it
	// returns a sticky [*IncompleteError]). It returns early errors:
	// ctx's error, [ErrClosed], an invalid message, or the sink's sticky
	// [*DeliveryError] once any message failed (the message is then not
	// queued). A queued message is no longer affected by ctx:
	// it is delivered or failed by Flush and Close.
	Send(ctx context.Context, m Message) error
	// Flush waits until every queued message is acknowledged or failed,
	// or ctx is done. It returns a [*DeliveryError] if any message sent
	// through this sink ever failed (the error is sticky), joined with
	// ctx's error if ctx ended the wait.
	Flush(ctx context.Context) error
	// Close releases everything the sink holds and stops its goroutines.
	// What happens to messages still queued depends on the sink (the
	// Kafka sink fails them, the file writer writes them): call Flush
	// first. Close is idempotent.
	Close() error
	// Stats returns a snapshot of the sink's counters.
	Stats() Stats
}

// ErrClosed is returned by Send on a closed sink.
var ErrClosed = errors.New("sink: closed")

// DeliveryError reports messages that were not delivered. It unwraps to
// the first underlying error, so errors.Is works with franz-go's kerr codes
// and with io errors.
type DeliveryError struct {
	// Failed is how many messages failed, over all topics.
	Failed int64
	// Topic is the first failed message's topic.
	Topic string
	// Tag is the first failed message's tag.
	Tag uint32
	// Err is the first failed message's error.
	Err error
	// Tags lists, per topic, the distinct tags of failed messages in
	// increasing order (at most 1024 per topic). Error prints the first ten.
	Tags map[string][]uint32
}

// Error summarises the failure. It never contains credentials: it is built
// from topic names, tags and the client's error text only.
func (e *DeliveryError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sink: %d message(s) not delivered", e.Failed)
	for _, t := range slices.Sorted(maps.Keys(e.Tags)) {
		tags := e.Tags[t]
		if len(tags) > 10 {
			fmt.Fprintf(&b, "; %s tags %v… (%d distinct)", t, tags[:10], len(tags))
		} else {
			fmt.Fprintf(&b, "; %s tags %v", t, tags)
		}
	}
	fmt.Fprintf(&b, "; first: topic %s tag %d: %v", e.Topic, e.Tag, e.Err)
	return b.String()
}

// Unwrap returns the first failed message's error.
func (e *DeliveryError) Unwrap() error { return e.Err }

// IncompleteError says the sink stopped waiting for acknowledgements while
// messages were still in flight: Flush's ctx ended, or Send waited the
// delivery timeout for room without a single acknowledgement or failure (a
// broker that died). The InFlight messages are neither acknowledged nor
// failed: they may or may not be in the topic. errors.Is(err,
// [ErrIncomplete]) matches it.
type IncompleteError struct {
	// InFlight is how many messages were unaccounted for.
	InFlight int64
	// Waited is how long the sink waited.
	Waited time.Duration
	// Cause is what ended the wait (a context error or its cause).
	Cause error
}

// ErrIncomplete matches every [*IncompleteError] with errors.Is.
var ErrIncomplete = errors.New("sink: messages unaccounted for")

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("sink: %d message(s) unacknowledged and not failed after waiting %v: %v", e.InFlight, e.Waited, e.Cause)
}

// Is reports target == [ErrIncomplete].
func (e *IncompleteError) Is(target error) bool { return target == ErrIncomplete }

// Unwrap returns the cause.
func (e *IncompleteError) Unwrap() error { return e.Cause }

// DefaultTopics returns clickgen's topics with the partition counts the
// stand uses: hits with 2 partitions, orders with 1. It returns a fresh map
// each call.
func DefaultTopics() map[string]int32 {
	return map[string]int32{"hits": 2, "orders": 1}
}

// validate checks what every sink requires of a message.
func (m *Message) validate() error {
	if m.Topic == "" {
		return errors.New("sink: message without a topic")
	}
	return nil
}
