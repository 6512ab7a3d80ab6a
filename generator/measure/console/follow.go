package console

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/measure/follow"
)

// followLines prints group g's lines, each "clickgen: follow GROUP: …" as every line
// clickgen writes on stderr (the verdict "NOT drained" lacked the prefix): what it took and its pipeline latency (of what came
// after a warm-up, the warm-up's on a line of its own), whether it drained (how long after the run, or its lag and why the wait ended), the topics it did not
// read, its failed polls.
func followLines(w io.Writer, res follow.Result, g follow.Group) {
	taken := g.Latency.Count() + g.Warmup.Count()
	latency := pipelineLine(measure.PercentilesOf(g.Latency))
	if g.Warmup.Count() > 0 {
		latency += " after the warm-up"
	}
	switch {
	case g.Drained:
		fmt.Fprintf(w, "clickgen: follow %s: %d taken, drained %.2fs after the run; pipeline latency %s (measured from: %s)\n",
			g.Name, taken, g.DrainedAfter.Seconds(), latency, res.MeasuredFrom)
	default:
		why := fmt.Sprintf("within %v", res.Timeout)
		if res.Interrupted {
			why = fmt.Sprintf("(interrupted after %.2fs)", res.Waited.Seconds())
		}
		fmt.Fprintf(w, "clickgen: follow %s: NOT drained %s: untaken %s; %d taken, pipeline latency %s (measured from: %s)\n",
			g.Name, why, g.LagText(), taken, latency, res.MeasuredFrom)
	}
	if n := g.Warmup.Count(); n > 0 {
		fmt.Fprintf(w, "clickgen: follow %s: warm-up, measured apart: %d taken, pipeline latency %s\n", g.Name, n, pipelineLine(measure.PercentilesOf(g.Warmup)))
	}
	if len(g.NotRead) > 0 {
		fmt.Fprintf(w, "clickgen: follow %s: topic(s) %s not followed: the group committed nothing on them\n", g.Name, strings.Join(g.NotRead, ", "))
	}
	if g.PollErrors > 0 {
		fmt.Fprintf(w, "clickgen: follow %s: %d of %d polls failed, last: %s\n", g.Name, g.PollErrors, g.Polls, g.LastPollError)
	}
}

// pipelineLine is a group's pipeline latency as its line spells it.
func pipelineLine(p measure.Percentiles) string {
	if p.Count == 0 {
		return "none (nothing taken)"
	}
	d := func(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }
	return fmt.Sprintf("p50 %s p90 %s p99 %s p99.9 %s max %s", d(p.P50), d(p.P90), d(p.P99), d(p.P999), d(p.Max))
}
