package prom

import (
	"context"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/sink"
)

// TestExposition renders a file sink's stats: the exact counter lines, escaped labels,
// and a histogram whose buckets hold what was recorded.
func TestExposition(t *testing.T) {
	w, err := sink.NewWriter(io.Discard, sink.WriterOptions{Partitions: map[string]int32{"hits": 2}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 5 {
		w.Send(ctx, sink.Message{Topic: "hits", Key: []byte{byte('a' + i)}, Value: []byte("12345")})
	}
	w.Send(ctx, sink.Message{Topic: `we"ird\`, Value: []byte("x")})
	w.Flush(ctx)
	var b strings.Builder
	Write(&b, w.Stats(), 1500*time.Millisecond)
	out := b.String()
	for _, want := range []string{
		"clickgen_messages_sent_total{topic=\"hits\"} 5\n", "clickgen_messages_acked_total{topic=\"hits\"} 5\n",
		"clickgen_messages_failed_total{topic=\"hits\"} 0\n", "clickgen_acked_bytes_total{topic=\"hits\"} 25\n",
		`clickgen_messages_sent_total{topic="we\"ird\\"} 1` + "\n", "clickgen_messages_in_flight 0\n", "clickgen_lag_seconds 1.5\n",
		"clickgen_produce_latency_seconds_bucket{le=\"+Inf\"} 6\n", "clickgen_produce_latency_seconds_count 6\n",
		"clickgen_produce_latency_seconds_bucket{le=\"30\"} 6\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("exposition lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`clickgen_partition_acked_total\{topic="hits",partition="0"\} \d\n`).MatchString(out) {
		t.Errorf("no per-partition counters:\n%s", out)
	}
}
