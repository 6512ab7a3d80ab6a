package topics_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/topics"
)

// TestVerifyInWindows: read back from a broker, a clean day checked in 3 windows (each
// reading both topics whole and judging its segment's messages) says what the check of the
// whole day says: OK as played, with a line per window; then, with a further copy of a sent
// message, a message without key, one nobody planned and one of another run's day, the same
// counts in every word of the summary.
func TestVerifyInWindows(t *testing.T) {
	ctx := context.Background()
	w, b, k := playDay1(t, world.Garbage{})
	day1 := world.Range{From: 1, Days: 1}
	var lines []string
	run := func(windows int) (*topics.Result, error) {
		lines = nil
		v := topics.Verify{HitsTopic: "hits", OrdersTopic: "orders", Timeout: time.Minute,
			Options: topics.Options{HitPartitions: 2, OrderPartitions: 1, Windows: windows}, Brokers: b.Addrs(), ProgressAfter: time.Hour,
			Logf: func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }}
		return v.Run(ctx, w, day1)
	}
	r, err := run(3)
	if err != nil || !r.OK || len(lines) != 1+3*3 || !strings.Contains(lines[0], "in 3 windows") || !strings.HasPrefix(lines[3], "verify: window 1 of 3: read ") {
		t.Fatalf("Run(3 windows, as played) = %v, %v, lines %q; want OK, a line to say so and three per window", r != nil && r.OK, err, lines)
	}
	for _, u := range r.Hits.Units {
		if len(u.SegmentSHA256) != 3 {
			t.Errorf("day %d: %d shares' hashes, want 3", u.Day, len(u.SegmentSHA256))
		}
	}

	recs, err := broker.Consume(ctx, b.Addrs(), "hits")
	if err != nil {
		t.Fatal(err)
	}
	other := strings.Replace(string(recs[3].Value), `"EventDate":"`+world.DayDate(1).String(), `"EventDate":"`+world.DayDate(9).String(), 1)
	for _, m := range []sink.Message{
		{Topic: "hits", Key: recs[1].Key, Value: recs[1].Value},
		{Topic: "hits", Value: recs[2].Value},
		{Topic: "hits", Key: []byte("12345"), Value: []byte(`{"WatchID":1}`)},
		{Topic: "hits", Key: recs[3].Key, Value: []byte(other)},
	} {
		if err := k.Send(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	whole, err1 := run(1)
	windows, err3 := run(3)
	if whole == nil || windows == nil || err1 == nil || err3 == nil {
		t.Fatalf("Run(broken) = %v, %v: want both to differ", err1, err3)
	}
	ws, _ := json.Marshal(whole.SummaryCounts())
	gs, _ := json.Marshal(windows.SummaryCounts())
	if string(ws) != string(gs) || windows.OK || windows.Hits.Unexpected.Messages != 3 || windows.Hits.Other.Messages != 1 {
		t.Errorf("in 3 windows: %s, unexpected %d, other runs' %d\nwhole: %s; want the same, 3 and 1", gs, windows.Hits.Unexpected.Messages, windows.Hits.Other.Messages, ws)
	}
}
