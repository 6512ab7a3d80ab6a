package play_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// BenchmarkKafkaPath measures the Kafka path of the engine (what `batch` does): model days 0–3 (212 k events,
// 240 MB) produced into an in-process kfake broker with the sink's defaults (idempotent,
// acks=all, lz4, linger 10ms), flushed at the end of every day.
//
//   - generated: the days are generated and rendered while they are sent (Run, as batch does, rendering on all cores but one);
//   - generated-warmup: the same with a 250 ms warm-up (Plan.Warmup), its messages measured apart;
//   - prebuilt: the same messages, rendered before the timer starts, only sent.
//
// The goal is generated ≥ 0.9 × prebuilt: the generator must never be the bottleneck. kfake
// acknowledges without storing (BlackholeProduce), so the broker's memory does not grow with
// the iterations.
func BenchmarkKafkaPath(b *testing.B) {
	const benchDays = 4
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "hits"), kfake.BlackholeProduce())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	addr := strings.Join(c.ListenAddrs(), ",")
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		b.Fatal(err)
	}
	newSink := func(b *testing.B) *sink.Kafka {
		k, err := sink.NewKafka(sink.SeedBrokers(addr))
		if err != nil {
			b.Fatal(err)
		}
		return k
	}
	ctx := context.Background()
	report := func(b *testing.B, events int) {
		b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "msgs/s")
	}

	generated := func(warmup time.Duration) func(b *testing.B) {
		return func(b *testing.B) {
			k := newSink(b)
			defer k.Close()
			events := 0
			for b.Loop() {
				plan := play.Plan{World: w, Range: world.Range{From: 0, Days: benchDays}, Hits: "hits", Workers: play.Workers(true), Warmup: warmup}
				if _, err := play.Run(ctx, plan, k, nil); err != nil {
					b.Fatal(err)
				}
				events += int(k.Stats().Topics["hits"].Acked) - events
			}
			report(b, events)
		}
	}
	b.Run("generated", generated(0))
	// The same with a warm-up that lasts about half of each run: every message is flagged
	// (sink.Message.Warmup) and counted on one side or the other.
	b.Run("generated-warmup", generated(250*time.Millisecond))

	b.Run("prebuilt", func(b *testing.B) {
		var days [][]sink.Message
		w.Play(ctx, 0, benchDays, world.PlayOptions{}, func(bt *world.Batch) error {
			if bt.From == 0 {
				days = append(days, nil)
			}
			for i := range bt.Msgs {
				days[len(days)-1] = append(days[len(days)-1], sink.Message{Topic: "hits", Key: bt.Key(i), Value: bt.Value(i)})
			}
			return nil
		})
		k := newSink(b)
		defer k.Close()
		events := 0
		for b.Loop() {
			for _, msgs := range days {
				for _, m := range msgs {
					if err := k.Send(ctx, m); err != nil {
						b.Fatal(err)
					}
				}
				if err := k.Flush(ctx); err != nil {
					b.Fatal(err)
				}
				events += len(msgs)
			}
		}
		report(b, events)
	})
}
