package broker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Record is one message read back from Kafka.
type Record struct {
	Partition int32     // partition the record is stored in
	Offset    int64     // offset within the partition
	Key       []byte    // nil if the record has no key
	Value     []byte    // nil for a tombstone, empty for an empty message
	Timestamp time.Time // the record's timestamp (the producer's send time), millisecond precision
}

// Consume reads topic from the start of every partition up to the end
// offsets it has when Consume starts, and returns the records ordered by
// partition, then offset. It uses no consumer group and commits nothing.
// Only the connection options of opts apply (TLS, SASL, ClientID,
// ConnectTimeout, Logger); brokers replaces any SeedBrokers. An empty topic
// returns no records without fetching; a missing topic is an error; ctx
// bounds the whole read.
func Consume(ctx context.Context, brokers []string, topic string, opts ...sink.Opt) ([]Record, error) {
	var recs []Record
	err := ConsumeFunc(ctx, brokers, topic, func(r Record) error {
		recs = append(recs, r)
		return nil
	}, opts...)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(recs, func(a, b Record) int {
		return cmp.Or(cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Offset, b.Offset))
	})
	return recs, nil
}

// ConsumeFunc is [Consume] without holding the topic in memory: it calls fn
// for each record, in offset order within a partition (partitions
// interleave), and stops at fn's first error, returning it. The Key and Value
// fn receives are its to keep.
func ConsumeFunc(ctx context.Context, brokers []string, topic string, fn func(Record) error, opts ...sink.Opt) error {
	kopts, err := sink.ClientOpts(brokers, opts...)
	if err != nil {
		return err
	}
	where := strings.Join(brokers, ",")

	cl, err := kgo.NewClient(append(kopts, kgo.KeepControlRecords())...)
	if err != nil {
		return fmt.Errorf("broker: Kafka client: %w", err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)

	starts, err := adm.ListStartOffsets(ctx, topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return listErr(topic, where, err)
	}
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return listErr(topic, where, err)
	}

	// end[p] is the offset after the last record present when we started.
	offsets := make(map[int32]kgo.Offset)
	end := make(map[int32]int64)
	for p, e := range ends[topic] {
		s, ok := starts.Lookup(topic, p)
		if !ok {
			return fmt.Errorf("topic %s on Kafka at %s: no start offset for partition %d", topic, where, p)
		}
		if s.Offset < e.Offset {
			offsets[p] = kgo.NewOffset().At(s.Offset)
			end[p] = e.Offset
		}
	}
	if len(end) == 0 {
		return nil
	}
	cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{topic: offsets})

	for len(end) > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("read topic %s from Kafka at %s: %d partition(s) unfinished: %w", topic, where, len(end), err)
		}
		var ferr error
		fs.EachError(func(t string, p int32, err error) {
			if ferr == nil {
				ferr = fmt.Errorf("read topic %s partition %d from Kafka at %s: %w", t, p, where, err)
			}
		})
		if ferr != nil {
			return ferr
		}
		var cerr error
		fs.EachRecord(func(r *kgo.Record) {
			e, ok := end[r.Partition]
			if cerr != nil || !ok || r.Offset >= e {
				return
			}
			// Control records (transaction markers) take offsets but
			// carry no message; we keep them only to see the end.
			if !r.Attrs.IsControl() {
				cerr = fn(Record{
					Partition: r.Partition,
					Offset:    r.Offset,
					Key:       r.Key,
					Value:     r.Value,
					Timestamp: r.Timestamp,
				})
			}
			if r.Offset+1 >= e {
				delete(end, r.Partition)
			}
		})
		if cerr != nil {
			return cerr
		}
	}
	return nil
}

// ErrNoTopic is what [Consume] and [ConsumeFunc] wrap when the topic does not exist.
var ErrNoTopic = errors.New("topic does not exist")

func listErr(topic, where string, err error) error {
	if errors.Is(err, kerr.UnknownTopicOrPartition) {
		return fmt.Errorf("topic %s on Kafka at %s: %w", topic, where, ErrNoTopic)
	}
	return fmt.Errorf("list the offsets of topic %s on Kafka at %s: %w", topic, where, err)
}

// Partitions returns how many partitions topic has on brokers. A missing topic is an error
// wrapping [ErrNoTopic]. Only the connection options of opts apply, as for [Consume].
func Partitions(ctx context.Context, brokers []string, topic string, opts ...sink.Opt) (int32, error) {
	kopts, err := sink.ClientOpts(brokers, opts...)
	if err != nil {
		return 0, err
	}
	where := strings.Join(brokers, ",")
	cl, err := kgo.NewClient(kopts...)
	if err != nil {
		return 0, fmt.Errorf("broker: Kafka client: %w", err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return 0, listErr(topic, where, err)
	}
	return int32(len(ends[topic])), nil
}
