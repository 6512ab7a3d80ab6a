package topics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// ReadTopics reads topics hits and orders back from brokers, from the start of every
// partition (no consumer group, nothing committed), into c, never holding a topic in memory.
// An empty topic name is not read. A topic that does not exist is an error, unless the
// expectation sends nothing to it (run day 0 sends no snapshot): an absent topic then holds
// exactly that. done, if set, is told each topic's count and read time, n = −1 for such an
// absent topic. opts are the connection options (TLS, SASL, timeouts) of [broker.ConsumeFunc].
func (c *Checker) ReadTopics(ctx context.Context, brokers []string, hitsTopic, ordersTopic string, opts []sink.Opt,
	done func(topic string, n int64, took time.Duration)) error {
	wantHits, wantOrders := c.e.Messages()
	for _, tp := range []struct {
		name  string
		add   func(Message)
		want  int
		parts int32
	}{{hitsTopic, c.AddHit, wantHits, c.e.partitions(hits)}, {ordersTopic, c.AddOrder, wantOrders, c.e.partitions(orders)}} {
		if tp.name == "" {
			continue
		}
		// Keys are checked against the partition count the expectation places them with; a
		// topic created with another count would show every key as misplaced.
		if has, err := broker.Partitions(ctx, brokers, tp.name, opts...); err == nil && has != tp.parts {
			return &PartitionsError{Topic: tp.name, Has: has, Want: tp.parts}
		}
		rd := &reading{topic: tp.name, want: int64(tp.want), since: time.Now()}
		c.reading.Store(rd)
		err := broker.ConsumeFunc(ctx, brokers, tp.name, func(r broker.Record) error {
			tp.add(Message{Partition: r.Partition, Offset: r.Offset, Key: r.Key, Value: r.Value})
			switch {
			case c.skipped: // another window's
			case c.wasOther:
				rd.other.Add(1)
			default:
				rd.n.Add(1)
			}
			return nil
		}, opts...)
		c.reading.Store(nil)
		n := rd.n.Load()
		if errors.Is(err, broker.ErrNoTopic) && tp.want == 0 {
			n, err = -1, nil
		}
		if err != nil {
			return &ReadError{Topic: tp.name, Read: n, Want: rd.want, Err: err}
		}
		if done != nil {
			done(tp.name, n, time.Since(rd.since))
		}
	}
	return nil
}

// reading is how far [Checker.ReadTopics] has read the topic it reads: n messages of the
// run, other of other runs (model days outside it).
type reading struct {
	topic    string
	want     int64
	since    time.Time
	n, other atomic.Int64
}

// ReadProgress is how far [Checker.ReadTopics] has read Topic: Read messages of the run (all
// but Other's) of the Want the expectation sends to it, and Other messages of model days
// outside the run ([TopicResult.Other]), in Took.
type ReadProgress struct {
	Topic             string
	Read, Want, Other int64
	Took              time.Duration
}

// Reading says how far [Checker.ReadTopics] has read the topic it is reading; ok is false
// when it reads none (before, between and after the topics). It is safe to call from any
// goroutine while ReadTopics runs.
func (c *Checker) Reading() (p ReadProgress, ok bool) {
	rd := c.reading.Load()
	if rd == nil {
		return ReadProgress{}, false
	}
	return ReadProgress{Topic: rd.topic, Read: rd.n.Load(), Want: rd.want, Other: rd.other.Load(), Took: time.Since(rd.since)}, true
}

// ReadError is [Checker.ReadTopics] failing while it read Topic, after Read of the Want
// messages the expectation sends to it; Err is the read's error (ctx's when it ended the read).
type ReadError struct {
	Topic      string
	Read, Want int64
	Err        error
}

func (e *ReadError) Error() string {
	if e.Read == 0 {
		return e.Err.Error() // which names the topic
	}
	return fmt.Sprintf("reading topic %s, after %d of %d expected messages: %v", e.Topic, e.Read, e.Want, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// PartitionsError is ReadTopics' refusal of a topic whose partition count is not the one the
// expectation places keys with.
type PartitionsError struct {
	Topic     string
	Has, Want int32
}

func (e *PartitionsError) Error() string {
	return fmt.Sprintf("topic %s has %d partitions, but its keys are checked against %d", e.Topic, e.Has, e.Want)
}

// Summary says in a few words how the result differs ("3 missing, 1 wrong partition"), or
// "the counts differ" when only the counts do; "" when it is OK.
func (r *Result) Summary() string {
	if r.OK {
		return ""
	}
	var parts []string
	for _, k := range DiffKinds {
		if n := r.Differences[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, strings.ReplaceAll(k, "_", " ")))
		}
	}
	if len(parts) == 0 {
		return "the counts differ"
	}
	return strings.Join(parts, ", ")
}

// WriteTopic writes the reconciliation of one topic alone (TopicHits or TopicOrders), for a
// run that played only that topic: the full table would list the other one as missing. It
// returns whether the topic reconciles.
func (r *Result) WriteTopic(w io.Writer, topic string) (bool, error) {
	tr, what := &r.Hits, "day"
	if topic == TopicOrders {
		tr, what = &r.Orders, "snapshot"
	}
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "Only topic %s was played; reconciling it alone against the inventory.\n", tr.Topic)
	for _, u := range tr.Units {
		fmt.Fprintf(ew, "%s %s %d %s: %d messages arrived of %d sent, clean hash %s: %s\n",
			tr.Topic, what, u.Day, u.Date, u.Got.Messages, u.Want.Messages, okText(u.SHA256OK, "matches", "DIFFERS"), okText(u.OK, "ok", "DIFFERS"))
	}
	fmt.Fprintf(ew, "%s unexpected: %d messages\n", tr.Topic, tr.Unexpected.Messages)
	if tr.OK {
		fmt.Fprintf(ew, "OK: every %s message sent arrived as often as it was sent, with its key, in its partition, and nothing else.\n", tr.Topic)
	}
	return tr.OK, ew.err
}

func okText(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}

// CheckHeld is the check of a run cut short by a stop condition, which no inventory
// describes: it reads each topic back, counts what it holds per partition, and compares that
// with what the sink acknowledged (st), writing a line per topic to w. It returns the
// problems found and what each topic holds.
func CheckHeld(ctx context.Context, w io.Writer, brokers []string, topics []string, st sink.Stats, opts ...sink.Opt) (problems []string, held map[string]int64, err error) {
	held = map[string]int64{}
	for _, t := range topics {
		parts := map[int32]int64{}
		err := broker.ConsumeFunc(ctx, brokers, t, func(r broker.Record) error {
			parts[r.Partition]++
			held[t]++
			return nil
		}, opts...)
		if err != nil {
			return nil, nil, err
		}
		acked := st.Topics[t]
		same := held[t] == acked.Acked && maps.Equal(parts, acked.Partitions)
		verdict := "ok"
		if !same {
			verdict = "DIFFERS"
			problems = append(problems, fmt.Sprintf("%s holds %d messages %s, %d were acknowledged %s",
				t, held[t], partitionList(parts), acked.Acked, partitionList(acked.Partitions)))
		}
		if _, err := fmt.Fprintf(w, "%s: %d acknowledged %s, %d in the topic %s: %s\n", t, acked.Acked, partitionList(acked.Partitions), held[t], partitionList(parts), verdict); err != nil {
			return nil, nil, err
		}
	}
	return problems, held, nil
}

// partitionList spells per-partition counts as "(partitions 0:12 1:15)".
func partitionList(m map[int32]int64) string {
	if len(m) == 0 {
		return "(empty)"
	}
	var b strings.Builder
	b.WriteString("(partitions")
	for _, p := range slices.Sorted(maps.Keys(m)) {
		fmt.Fprintf(&b, " %d:%d", p, m[p])
	}
	b.WriteString(")")
	return b.String()
}
