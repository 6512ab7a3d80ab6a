package sink

import (
	"maps"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clickgen/clickgen/generator/metrics"
)

// Stats is a snapshot of a sink's counters. Counters are read one by one
// while messages may be in flight, so a snapshot taken mid-run can be off by
// the messages completing meanwhile; after Flush returns it is exact.
type Stats struct {
	// Topics holds the counters of every topic the sink has seen.
	Topics map[string]TopicStats
	// Latency is the distribution of the time from each acknowledged
	// message's Due to its acknowledgement, over all topics.
	Latency metrics.Histogram
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
	lat   metrics.Recorder

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
// (negative: unknown) whose latency from Due is lat.
func (r *recorder) ack(tc *topicCounters, part int32, valueLen int, lat time.Duration) {
	r.ackMu.RLock()
	tc.acked.Add(1)
	tc.nbytes.Add(int64(valueLen))
	tc.parts.add(part)
	r.lat.Record(lat)
	r.ackMu.RUnlock()
}

// fail counts one failed message.
func (r *recorder) fail(tc *topicCounters, tag uint32, err error) {
	tc.failed.Add(1)
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
	s.Latency = r.lat.Snapshot()
	return s
}

// Report is the JSON form of a run's final report (--report FILE). Build it
// with [NewReport]; the caller fills Rate and Interrupted, which the sink
// cannot know.
type Report struct {
	// Topics holds each topic's counters, by topic name.
	Topics map[string]TopicReport `json:"topics"`
	// Rate is the pacing outcome; the caller fills it.
	Rate RateReport `json:"rate"`
	// LatencyMS holds produce latency percentiles in milliseconds.
	LatencyMS LatencyReport `json:"latency_ms"`
	// Interrupted says the run was stopped (Ctrl-C, deadline) before it
	// finished; the caller fills it.
	Interrupted bool `json:"interrupted"`
	// Follow holds, by group, what following consumer groups measured (generator/follow);
	// the caller fills it, absent without --follow-group.
	Follow any `json:"follow,omitempty"`
}

// TopicReport is one topic's line of a [Report]; the fields mean what
// [TopicStats]'s do. Partitions are keyed by partition number (JSON object
// keys are strings: {"0": 123}).
type TopicReport struct {
	Sent   int64 `json:"sent"`   // accepted by Send
	Acked  int64 `json:"acked"`  // acknowledged
	Failed int64 `json:"failed"` // never to be delivered
	// Unaccounted is Sent - Acked - Failed when the report was made:
	// messages handed to the brokers of which nothing is known. They may
	// or may not be in the topic; a complete run has none.
	Unaccounted int64           `json:"unaccounted"`
	Bytes       int64           `json:"bytes"`                 // value bytes acknowledged
	Partitions  map[int32]int64 `json:"partitions"`            // acknowledged per partition
	FailedTags  []uint32        `json:"failed_tags,omitempty"` // distinct tags of failed messages
}

// RateReport is the pacing outcome, filled by the caller.
type RateReport struct {
	TargetPerS   float64 `json:"target_per_s"`   // messages/s asked for; 0 for an unpaced run
	AchievedPerS float64 `json:"achieved_per_s"` // messages acknowledged per second of the run
}

// LatencyReport holds produce latency percentiles in milliseconds (with
// microsecond resolution), measured from each message's Due to its
// acknowledgement. Max is exact; percentiles are within 1/64 of the true
// value.
type LatencyReport struct {
	P50 float64 `json:"p50"` // median
	P95 float64 `json:"p95"` // 95th percentile
	P99 float64 `json:"p99"` // 99th percentile
	Max float64 `json:"max"` // exact maximum
}

// NewReport builds the report of s, leaving Rate and Interrupted zero.
// Partitions is never nil, so it marshals as {} rather than null.
func NewReport(s Stats) Report {
	r := Report{Topics: make(map[string]TopicReport, len(s.Topics))}
	for name, t := range s.Topics {
		parts := maps.Clone(t.Partitions)
		if parts == nil {
			parts = map[int32]int64{}
		}
		r.Topics[name] = TopicReport{
			Sent:        t.Sent,
			Acked:       t.Acked,
			Failed:      t.Failed,
			Unaccounted: t.Sent - t.Acked - t.Failed,
			Bytes:       t.Bytes,
			Partitions:  parts,
			FailedTags:  slices.Clone(t.FailedTags),
		}
	}
	r.LatencyMS = LatencyReport{
		P50: ms(s.Latency.Quantile(0.50)),
		P95: ms(s.Latency.Quantile(0.95)),
		P99: ms(s.Latency.Quantile(0.99)),
		Max: ms(s.Latency.Max()),
	}
	return r
}

// ms converts d to milliseconds rounded to the microsecond.
func ms(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}
