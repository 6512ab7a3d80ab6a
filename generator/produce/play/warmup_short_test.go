package play_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// TestWarmupOfANanosecond is issue 35's P14: `--warmup 1ns` counted ~1 000 messages of an
// unpaced run into its first nanosecond. Its end was told by a timer, which fires only when
// the scheduler runs it: on one core, not before the send loop blocks, after the first batch.
// The clock is read for each message until the warm-up is over: the first message begins it
// and (two readings of the clock being at least a nanosecond apart) the next is past it. One
// core makes the old way visible whatever the machine's load.
func TestWarmupOfANanosecond(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	snk := &recordSink{Writer: discard(t)}
	plan := play.Plan{World: smallWorld(t), Range: world.Range{From: 1, Days: 1}, Hits: "hits", Warmup: time.Nanosecond, Workers: 1}
	if _, err := play.Run(context.Background(), plan, snk, nil); err != nil {
		t.Fatal(err)
	}
	warm := 0
	for _, m := range snk.msgs {
		if m.warm {
			warm++
		}
	}
	if warm < 1 || warm > 2 || len(snk.msgs) < 1000 {
		t.Errorf("%d of %d messages in a warm-up of 1ns; want the first (and at most the one after it)", warm, len(snk.msgs))
	}
	if st := snk.Stats(); st.Warmup.Acked != int64(warm) {
		t.Errorf("the sink counted %d in the warm-up, want %d", st.Warmup.Acked, warm)
	}
}
