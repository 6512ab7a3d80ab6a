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

	"github.com/spf13/pflag"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/console"
	"github.com/clickgen/clickgen/generator/follow"
	runreport "github.com/clickgen/clickgen/generator/report" // named apart from the tests' report type
	"github.com/clickgen/clickgen/generator/sink"
)

// followFlags are --follow-group, --follow-every and --follow-timeout: following consumer
// groups' committed offsets to measure pipeline latency (generator/follow).
type followFlags struct {
	groups  []string
	every   time.Duration
	timeout time.Duration

	f  *follow.Follower // set by open
	cl *kgo.Client
}

func addFollowFlags(fs *pflag.FlagSet) *followFlags {
	ff := &followFlags{}
	fs.StringArrayVar(&ff.groups, "follow-group", nil, "follow consumer `GROUP`'s committed offsets (repeatable): each acknowledged message's pipeline latency is from its intended send time to the first poll that sees the group's commit past it; at the end wait --follow-timeout for the group to take everything, exit 1 if it did not")
	fs.DurationVar(&ff.every, "follow-every", 250*time.Millisecond, "how often to poll the followed groups' committed offsets")
	fs.DurationVar(&ff.timeout, "follow-timeout", 2*time.Minute, "after the run, how long to wait for each followed group to take everything the run sent")
	return ff
}

// check refuses values that cannot work, before anything is sent; kind is the sink's, nil
// while it is not chosen yet (run's embedded broker).
func (ff *followFlags) check(verb string, kind *sink.Kind) error {
	switch {
	case len(ff.groups) == 0:
		return nil
	case kind != nil && !kind.Partitions:
		return usagef(verb, "--follow-group needs Kafka (--brokers): a %s has no consumer groups", kind.Name)
	case ff.every <= 0:
		return usagef(verb, "--follow-every %v: want a positive duration", ff.every)
	case ff.timeout < 0:
		return usagef(verb, "--follow-timeout %v: want a duration ≥ 0", ff.timeout)
	}
	for _, g := range ff.groups {
		if g == "" {
			return usagef(verb, "--follow-group: an empty group name")
		}
	}
	return nil
}

// open starts following the groups on the sink's brokers, for the topics of want, and
// returns the sink option that tells the follower each acknowledgement (none without groups).
func (ff *followFlags) open(ctx context.Context, sf *sinkFlags, want map[string]int32) ([]sink.Opt, error) {
	if len(ff.groups) == 0 {
		return nil, nil
	}
	opts, err := sink.ClientOpts(sf.Brokers, sf.ConnOpts()...)
	if err != nil {
		return nil, usagef(sf.verb, "%v", err)
	}
	if ff.cl, err = kgo.NewClient(opts...); err != nil {
		return nil, fmt.Errorf("--follow-group: Kafka client: %w", err)
	}
	ff.f, err = follow.New(kadm.NewClient(ff.cl), follow.Options{Groups: ff.groups, Topics: slices.Sorted(maps.Keys(want)), Every: ff.every, Timeout: ff.timeout})
	if err != nil {
		ff.cl.Close()
		return nil, usagef(sf.verb, "--follow-group: %v", err)
	}
	ff.f.Start(ctx)
	return []sink.Opt{sink.OnAck(ff.f.Acked)}, nil
}

// abort stops following when the sink could not be opened.
func (ff *followFlags) abort() {
	if ff.f != nil {
		ff.f.Finish(io.Discard, true)
		ff.cl.Close()
		ff.f = nil
	}
}

// finisher is what the session tells at the end of the run; nil without groups.
func (ff *followFlags) finisher() console.Finisher {
	if ff == nil || ff.f == nil {
		return nil
	}
	return ff
}

// Finish waits for the groups to drain and reports them (follow.Follower.Finish), then closes
// the follower's client.
func (ff *followFlags) Finish(w io.Writer, interrupted bool) (map[string]runreport.FollowGroup, error) {
	defer ff.cl.Close()
	rep, err := ff.f.Finish(w, interrupted)
	var nd *follow.NotDrainedError
	if errors.As(err, &nd) {
		err = fmt.Errorf("follow: %s did not take everything the run sent within --follow-timeout %v", strings.Join(nd.Groups, ", "), nd.Timeout)
	}
	return rep, err
}
