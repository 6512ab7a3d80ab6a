package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/measure/follow"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// followFlags are --follow-group, --follow-every and --follow-timeout: following consumer
// groups' committed offsets to measure pipeline latency (generator/measure/follow).
type followFlags struct {
	groups  []string
	every   time.Duration
	timeout time.Duration

	f  *follow.Follower // set by open
	cl *kgo.Client
}

// checkFollow refuses follow flags that cannot work, before anything is sent: groups on a
// sink without consumer groups (kind, nil while the sink is not chosen yet: run's embedded
// broker), and what follow.Options.Validate refuses (an empty, unprintable or overlong group
// name, a poll period below follow.MinEvery, a negative timeout), named by the flags.
func (b *binding) checkFollow(kind *sink.Kind) error {
	ff := b.v.sink.follow
	switch {
	case len(ff.groups) == 0:
		return nil
	case kind != nil && !kind.Partitions:
		return usagef(b.verb.name, "--follow-group needs Kafka (--brokers): a %s has no consumer groups", kind.Name)
	case ff.every == 0: // the library's default; a 0 typed is below the floor as any other
		return usagef(b.verb.name, "--follow-every 0s: want at least %v", follow.MinEvery)
	}
	return b.refuse(ff.options(nil).Validate())
}

// options are the follower's options for the topics of want.
func (ff *followFlags) options(want map[string]int32) follow.Options {
	return follow.Options{Groups: ff.groups, Topics: slices.Sorted(maps.Keys(want)), Every: ff.every, Timeout: ff.timeout}
}

// open starts following the groups on the sink's brokers, for the topics of want; nothing
// without groups.
func (ff *followFlags) open(ctx context.Context, sf *sinkFlags, want map[string]int32) error {
	if len(ff.groups) == 0 {
		return nil
	}
	opts, err := sink.ClientOpts(sf.Brokers, sf.ConnOpts()...)
	if err != nil {
		return usagef(sf.verb, "%v", err)
	}
	if ff.cl, err = kgo.NewClient(opts...); err != nil {
		return fmt.Errorf("--follow-group: Kafka client: %w", err)
	}
	ff.f, err = follow.New(kadm.NewClient(ff.cl), ff.options(want))
	if err != nil {
		ff.cl.Close()
		return usagef(sf.verb, "--follow-group: %v", err)
	}
	ff.f.Start(ctx)
	return nil
}

// abort stops following when the sink could not be opened.
func (ff *followFlags) abort() {
	if ff.f != nil {
		ff.f.Finish(context.Background(), true, nil)
		ff.cl.Close()
		ff.f = nil
	}
}

// observer is following the groups as an observer of the run, handing what it measures to m;
// nil without groups.
func (ff *followFlags) observer(w io.Writer, m *measure.Run) play.Observer {
	if ff == nil || ff.f == nil {
		return nil
	}
	return &followObserver{f: ff.f, cl: ff.cl, w: w, m: m}
}

// followObserver is a follower of consumer groups (generator/measure/follow) as an observer of the
// run: it hears every acknowledgement and, at the end, waits for the groups to drain (the
// wait announced, a signal ending it), prints a line per group, hands what it measured to the
// run's measurement (the report's follow section, the groups' freshness) and fails the run
// when a group did not drain.
type followObserver struct {
	play.Base
	f  *follow.Follower
	cl *kgo.Client
	w  io.Writer
	m  *measure.Run
}

// Acked hands the follower an acknowledgement, on the sink's acknowledgement goroutine.
func (o *followObserver) Acked(a sink.Ack) { o.f.Acked(follow.Ack(a)) }

// RunEnded waits for the groups (follow.Follower.Finish), reports them and closes the
// follower's client.
func (o *followObserver) RunEnded(ctx context.Context, e *play.End) error {
	defer o.cl.Close()
	res := o.f.Finish(ctx, e.Interrupted, func(behind []string, max time.Duration) {
		e.Wait(fmt.Sprintf("waiting for consumer group(s) %s to take everything the run sent (--follow-timeout)", strings.Join(behind, ", ")), max)
	})
	o.m.Follow(res)
	for _, g := range res.Groups {
		followLines(o.w, res, g)
	}
	var nd *follow.NotDrainedError
	switch err := res.Err(); {
	case errors.As(err, &nd):
		return fmt.Errorf("follow: %s did not take everything the run sent within --follow-timeout %v", strings.Join(nd.Groups, ", "), nd.Timeout)
	case err != nil:
		return err
	case res.Interrupted && !e.Interrupted:
		// The run was whole; a signal ended the wait for the groups: an interrupted run.
		return fmt.Errorf("follow: the wait for the groups to take everything was interrupted after %.2fs: %w", res.Waited.Seconds(), context.Canceled)
	}
	return nil
}

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
