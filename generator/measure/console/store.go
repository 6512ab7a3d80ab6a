package console

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/measure/storefollow"
	"github.com/clickgen/clickgen/generator/produce/pace"
)

// maxUnseenLine bounds the unseen keys the console lists; the report lists more.
const maxUnseenLine = 10

// storeLines prints the store follower's lines: what it sampled and saw, the time until
// queryable with the poll period that bounds it, the unseen keys, the stale rows, the polls
// that failed. The values mentioned are named by names (the follow timeout, the report).
func storeLines(w io.Writer, res storefollow.Result, names field.Names) {
	p := measure.PercentilesOf(res.Latency)
	poll := measure.PercentilesOf(res.PollTime)
	d := func(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
	latency := "none (nothing seen)"
	if p.Count > 0 {
		latency = fmt.Sprintf("p50 %s p95 %s p99 %s max %s", d(p.P50), d(p.P95), d(p.P99), d(p.Max))
		if res.Warmup.Count() > 0 {
			latency += " after the warm-up"
		}
	}
	rate := "default"
	if res.Sample > 0 {
		rate = pace.Rate(res.Sample).String()
	}
	fmt.Fprintf(w, "clickgen: store %s: %d sampled (%s of topic %s, at most %s), %d seen, %d unseen; time until queryable %s (measured from: %s)\n",
		res.Table, res.Sampled, res.KeyColumn, res.Topic, rate, res.Seen, res.UnseenCount, latency, res.MeasuredFrom)
	fmt.Fprintf(w, "clickgen: store %s: polled every %v, a poll took p50 %s max %s: each figure is at most %s late\n",
		res.Table, res.Every, d(poll.P50), d(poll.Max), d(res.Every+poll.Max))
	if res.UnseenCount > 0 {
		why := fmt.Sprintf("within %s %v", field.Name(names, "Timeout", "the follow timeout"), res.Timeout)
		if res.Interrupted {
			why = fmt.Sprintf("(the wait was interrupted after %.2fs)", res.Waited.Seconds())
		}
		var keys []string
		for i, k := range res.Unseen {
			if i == maxUnseenLine {
				keys = append(keys, fmt.Sprintf("… %d more in %s", res.UnseenCount-maxUnseenLine, field.Name(names, "Report", "the report")))
				break
			}
			keys = append(keys, k.String())
		}
		fmt.Fprintf(w, "clickgen: store %s: %d sampled message(s) NOT readable %s: %s\n", res.Table, res.UnseenCount, why, strings.Join(keys, ", "))
	}
	if res.Stale > 0 {
		fmt.Fprintf(w, "clickgen: store %s: %d sampled key(s) were stored already before the run (loaded earlier: a day played again); each waited for its own row\n", res.Table, res.Stale)
	}
	if res.NoLoadTime {
		fmt.Fprintf(w, "clickgen: store %s: the table has no _load_ts: a key stored before the run counts as seen at once\n", res.Table)
	}
	if res.Paused > 0 {
		fmt.Fprintf(w, "clickgen: store %s: %d message(s) not sampled while %d sampled keys waited (the most kept)\n", res.Table, res.Paused, storefollow.DefaultMaxPending)
	}
	if res.PollErrors > 0 {
		fmt.Fprintf(w, "clickgen: store %s: %d of %d polls failed, last: %s\n", res.Table, res.PollErrors, res.Polls, res.LastPollError)
	}
}
