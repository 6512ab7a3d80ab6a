package sink

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clickgen/clickgen/generator/measure/latency"
)

// Stats is a snapshot of a sink's counters. Counters are read one by one
// while messages may be in flight, so a snapshot taken mid-run can be off by
// the messages completing meanwhile; after Flush returns it is exact.
type Stats struct {
	// Topics holds the counters of every topic the sink has seen.
	Topics map[string]TopicStats
	// Latency is the distribution of the time from each acknowledged
	// message's Due to its acknowledgement, over all topics.
	Latency latency.Histogram
	// Warmup is the share of the counters and of Latency that belongs to
	// the messages sent in a run's warm-up ([Message.Warmup]); zero when
	// none was.
	Warmup WarmupStats
	// AfterWarmup is Latency without the warm-up's share: the latency of
	// every other acknowledged message, kept apart from the start, so its
	// maximum is exact too. It is Latency when no message was sent in a
	// warm-up.
	AfterWarmup latency.Histogram
}

// Measured is the latency of the messages sent after the warm-up, which a run's percentiles
// are of: AfterWarmup, or Latency when nothing was counted in a warm-up (the Stats of a sink
// of a program's own may hold Latency alone).
func (s Stats) Measured() latency.Histogram {
	if s.Warmup.Latency.Count() == 0 && s.Warmup.Failed == 0 {
		return s.Latency
	}
	return s.AfterWarmup
}

// WarmupStats are the counters of the messages sent in a run's warm-up, over
// all topics: acknowledged (Latency.Count() of them), failed, and the value
// bytes acknowledged.
type WarmupStats struct {
	Acked, Failed, Bytes int64
	Latency              latency.Histogram
}

// TopicStats are the counters of one topic.
type TopicStats struct {
	// Sent counts messages accepted by Send.
	Sent int64
	// Acked counts messages acknowledged: by the broker with acks=all for
	// Kafka, written to the underlying writer for files.
	Acked int64
	// Failed counts messages that will never be delivered. Sent - Acked -
	// Failed messages are still in flight.
	Failed int64
	// Bytes is the total length of the values of acknowledged messages
	// (keys, headers, newlines and protocol overhead are not counted), so a
	// Kafka run and a file run of the same messages report the same bytes.
	Bytes int64
	// Partitions counts acknowledged messages per partition. For Kafka
	// this is the partition the broker stored the record in; for files it
	// is the partition Kafka would choose (see [WriterOptions.Partitions]),
	// and it is empty for topics without a configured partition count.
	Partitions map[int32]int64
	// FailedTags lists the distinct tags of failed messages in increasing
	// order (at most 1024).
	FailedTags []uint32
}

// maxFailedTags bounds the distinct failed tags remembered per topic, so a
// caller using per-message tags cannot grow the sink's memory without bound.
const maxFailedTags = 1024

// recorder is the concurrent core shared by all sinks. Its hot paths (ack,
// fail's counter) only touch atomics; the topic map is insert-only behind an
// RWMutex, and failures (rare) take a mutex for the first error and tags.
type recorder struct {
	mu     sync.RWMutex
	topics map[string]*topicCounters

	// ackMu makes an acknowledgement's count and its latency one step: acks hold it shared,
	// a snapshot exclusively, so a snapshot's Latency.Count() is its acked total. (Without
	// it, a snapshot taken while the client acknowledged a batch could count the batch in
	// one interval and its latencies in the next: a stress interval with 73 records and no
	// latency, seen under -race.)
	ackMu sync.RWMutex
	// lat records the latency of every message but the warm-up's, warm theirs: each
	// acknowledgement is recorded once, into one of them, split by the message's own flag
	// (Message.Warmup), so the split is exact and costs a branch. warmBytes and warmFailed
	// count the warm-up's bytes and failures (its acknowledgements are warm's count).
	lat, warm  latency.Recorder
	warmBytes  atomic.Int64
	warmFailed atomic.Int64

	errMu      sync.Mutex
	failed     int64
	firstErr   error
	firstTopic string
	firstTag   uint32
	failedTags map[string]map[uint32]struct{}
	stallErr   error // set once Send gave up waiting for the brokers
}

type topicCounters struct {
	name                        string
	sent, acked, failed, nbytes atomic.Int64
	parts                       partCounters
}

// partCounters counts per partition with atomics only: chunks of counters
// are allocated on first use and installed with a compare-and-swap.
type partCounters struct {
	chunks [partChunks]atomic.Pointer[[partChunkLen]atomic.Int64]
}

const (
	partChunkLen = 64
	partChunks   = 1024 // partitions 0..65535; Kafka topics stay far below
)

func (p *partCounters) add(part int32) {
	if part < 0 || int(part) >= partChunks*partChunkLen {
		return
	}
	slot := &p.chunks[part/partChunkLen]
	c := slot.Load()
	if c == nil {
		slot.CompareAndSwap(nil, new([partChunkLen]atomic.Int64))
		c = slot.Load()
	}
	c[part%partChunkLen].Add(1)
}

func (p *partCounters) snapshot() map[int32]int64 {
	m := make(map[int32]int64)
	for i := range p.chunks {
		c := p.chunks[i].Load()
		if c == nil {
			continue
		}
		for j := range c {
			if n := c[j].Load(); n > 0 {
				m[int32(i*partChunkLen+j)] = n
			}
		}
	}
	return m
}

func newRecorder() *recorder {
	return &recorder{topics: make(map[string]*topicCounters)}
}

// topic returns the counters of a topic, creating them on first use.
func (r *recorder) topic(name string) *topicCounters {
	r.mu.RLock()
	tc := r.topics[name]
	r.mu.RUnlock()
	if tc != nil {
		return tc
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if tc = r.topics[name]; tc == nil {
		tc = &topicCounters{name: name}
		r.topics[name] = tc
	}
	return tc
}

// ack counts one acknowledged message of valueLen bytes in partition part
// (negative: unknown) whose latency from Due is lat; warm says it was sent in a
// warm-up.
func (r *recorder) ack(tc *topicCounters, part int32, valueLen int, lat time.Duration, warm bool) {
	r.ackMu.RLock()
	tc.acked.Add(1)
	tc.nbytes.Add(int64(valueLen))
	tc.parts.add(part)
	if warm {
		r.warm.Record(lat)
		r.warmBytes.Add(int64(valueLen))
	} else {
		r.lat.Record(lat)
	}
	r.ackMu.RUnlock()
}

// fail counts one failed message; warm says it was sent in a warm-up.
func (r *recorder) fail(tc *topicCounters, tag uint32, warm bool, err error) {
	tc.failed.Add(1)
	if warm {
		r.warmFailed.Add(1)
	}
	r.errMu.Lock()
	defer r.errMu.Unlock()
	r.failed++
	if r.firstErr == nil {
		r.firstErr, r.firstTopic, r.firstTag = err, tc.name, tag
	}
	if r.failedTags == nil {
		r.failedTags = make(map[string]map[uint32]struct{})
	}
	tags := r.failedTags[tc.name]
	if tags == nil {
		tags = make(map[uint32]struct{})
		r.failedTags[tc.name] = tags
	}
	if len(tags) < maxFailedTags {
		tags[tag] = struct{}{}
	}
}

// err returns the sticky delivery error, or nil (untyped) if nothing failed.
func (r *recorder) err() error {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	if r.firstErr == nil {
		return nil
	}
	e := &DeliveryError{
		Failed: r.failed,
		Topic:  r.firstTopic,
		Tag:    r.firstTag,
		Err:    r.firstErr,
		Tags:   make(map[string][]uint32, len(r.failedTags)),
	}
	for t, tags := range r.failedTags {
		e.Tags[t] = slices.Sorted(maps.Keys(tags))
	}
	return e
}

// stall records that Send gave up waiting; the first such error sticks.
func (r *recorder) stall(err error) {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	if r.stallErr == nil {
		r.stallErr = err
	}
}

// stalled returns the sticky stall error, or nil (untyped).
func (r *recorder) stalled() error {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	if r.stallErr == nil {
		return nil
	}
	return r.stallErr
}

func (r *recorder) snapshot() Stats {
	r.mu.RLock()
	tcs := slices.Collect(maps.Values(r.topics))
	r.mu.RUnlock()

	s := Stats{Topics: make(map[string]TopicStats, len(tcs))}
	r.ackMu.Lock()
	defer r.ackMu.Unlock()
	for _, tc := range tcs {
		s.Topics[tc.name] = TopicStats{
			Sent:       tc.sent.Load(),
			Acked:      tc.acked.Load(),
			Failed:     tc.failed.Load(),
			Bytes:      tc.nbytes.Load(),
			Partitions: tc.parts.snapshot(),
		}
	}
	r.errMu.Lock()
	for t, tags := range r.failedTags {
		ts := s.Topics[t]
		ts.FailedTags = slices.Sorted(maps.Keys(tags))
		s.Topics[t] = ts
	}
	r.errMu.Unlock()
	s.AfterWarmup = r.lat.Snapshot()
	s.Latency = s.AfterWarmup
	if w := r.warm.Snapshot(); w.Count() > 0 {
		s.Latency = latency.Histogram{}
		s.Latency.Merge(s.AfterWarmup)
		s.Latency.Merge(w)
		s.Warmup = WarmupStats{Acked: int64(w.Count()), Bytes: r.warmBytes.Load(), Latency: w}
	}
	s.Warmup.Failed = r.warmFailed.Load()
	return s
}
