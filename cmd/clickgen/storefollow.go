package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/clickgen/clickgen/generator/clickhouse"
	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/measure/storefollow"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// storeFollowFlags are --follow-clickhouse, --follow-table, --follow-sample and the
// ClickHouse credentials of the sending verbs (--clickhouse-user, CLICKHOUSE_PASSWORD, and
// --tls-ca's CA for an https server): freshness until queryable (generator/measure/storefollow). The
// poll period and the wait at the end are --follow-every and --follow-timeout, as for groups.
type storeFollowFlags struct {
	url      string
	table    string
	sample   pace.Rate
	user     string
	password string // env CLICKHOUSE_PASSWORD

	f *storefollow.Follower // set by open
}

// defaultStoreTable is the table --follow-clickhouse reads without --follow-table: the
// stand's events, through their Distributed face.
const defaultStoreTable = "ods.event_dist"

// checkStoreFollow refuses, before anything is sent, store-following flags that cannot work:
// a table, a sample rate or a user without --follow-clickhouse, store_* thresholds without it,
// a URL the client refuses, and what storefollow.Options.Validate refuses, named by the flags.
func (b *binding) checkStoreFollow() error {
	sf := b.v.sink.storeFollow
	if sf == nil {
		return nil
	}
	if sf.url == "" {
		for _, name := range []string{"follow-table", "follow-sample"} {
			if b.set(name) {
				return usagef(b.verb.name, "--%s needs --follow-clickhouse: there is no table to follow", name)
			}
		}
		if b.set("clickhouse-user") {
			return usagef(b.verb.name, "--clickhouse-user needs --follow-clickhouse")
		}
		if vf := b.v.sink.verdict; vf != nil && vf.thresholds.NeedStore() {
			for _, t := range vf.thresholds {
				if t.Store {
					return usagef(b.verb.name, "--threshold %s: the time until queryable is measured by following a table: give --follow-clickhouse", t)
				}
			}
		}
		return nil
	}
	if _, err := sf.client(nil, b.v.sink.ConnectTimeout); err != nil {
		return usage(b.verb.name, err)
	}
	if err := sf.options(play.Plan{}, b.v.sink.follow).Validate(); err != nil {
		return b.refuse(err)
	}
	return nil
}

// options are the follower's options for plan's topics.
func (sf *storeFollowFlags) options(plan play.Plan, ff *followFlags) storefollow.Options {
	o := storefollow.Options{Table: sf.table, HitsTopic: plan.Hits, OrdersTopic: plan.Orders, Sample: float64(sf.sample)}
	if o.Table == "" {
		o.Table = defaultStoreTable
	}
	if ff != nil {
		o.Every, o.Timeout = ff.every, ff.timeout
	}
	return o
}

// client is the ClickHouse client of --follow-clickhouse, with the CA pem (nil: the system's)
// and the connection's bound.
func (sf *storeFollowFlags) client(pem []byte, connect time.Duration) (*clickhouse.Client, error) {
	opts := []clickhouse.Opt{}
	if connect > 0 {
		opts = append(opts, clickhouse.ConnectTimeout(connect))
	}
	if sf.user != "" {
		opts = append(opts, clickhouse.User(sf.user))
	}
	if sf.password != "" {
		opts = append(opts, clickhouse.Password(sf.password))
	}
	if pem != nil {
		opts = append(opts, clickhouse.RootCAs(pem))
	}
	c, err := clickhouse.New(sf.url, opts...)
	if errors.Is(err, clickhouse.ErrURL) {
		return nil, fmt.Errorf("--follow-clickhouse: %s", strings.TrimPrefix(err.Error(), clickhouse.ErrURL.Error()+": "))
	}
	if err != nil {
		return nil, fmt.Errorf("--follow-clickhouse: %w", err)
	}
	return c, nil
}

// open starts following the table for plan's topics: the table is probed (its columns, its
// engine) and the server's clock read before anything is sent; nothing without
// --follow-clickhouse. A table that cannot be followed is an error before the run.
func (sf *storeFollowFlags) open(ctx context.Context, s *sinkFlags, plan play.Plan) error {
	if sf == nil || sf.url == "" {
		return nil
	}
	var pem []byte
	if s.TLSCA != "" {
		var err error
		if pem, err = fileio.Read(ctx, s.TLSCA, fileio.Limit{Bytes: sink.MaxPEMBytes}); err != nil {
			return fmt.Errorf("--tls-ca: %w", err)
		}
	}
	c, err := sf.client(pem, s.ConnectTimeout)
	if err != nil {
		return usage(s.verb, err)
	}
	f, err := storefollow.New(&storefollow.ClickHouse{Client: c}, sf.options(plan, s.follow))
	if err != nil {
		return usage(s.verb, err)
	}
	octx, cancel := context.WithTimeout(ctx, s.ConnectTimeout+clickhouse.DefaultFirstByteTimeout)
	defer cancel()
	if err := f.Open(octx); err != nil {
		if errors.Is(err, storefollow.ErrNotFollowable) {
			return usagef(s.verb, "--follow-table: %v", err)
		}
		return fmt.Errorf("--follow-clickhouse %s: %w", c.Endpoint(), err)
	}
	f.Start(ctx)
	sf.f = f
	return nil
}

// abort stops following when the sink could not be opened.
func (sf *storeFollowFlags) abort() {
	if sf != nil && sf.f != nil {
		sf.f.Finish(context.Background(), true, nil)
		sf.f = nil
	}
}

// observer is following the table as an observer of the run, handing what it measures to m;
// nil without --follow-clickhouse.
func (sf *storeFollowFlags) observer(w io.Writer, m *measure.Run) play.Observer {
	if sf == nil || sf.f == nil {
		return nil
	}
	return &storeObserver{f: sf.f, w: w, m: m, sample: sf.sample}
}

// storeObserver is a follower of a table (generator/measure/storefollow) as an observer of the run:
// it hears every acknowledgement (sampling some) and, at the end, waits for the sampled keys
// still unseen (the wait announced, a signal ending it), prints its lines and hands what it
// measured to the run's measurement (the report's store section, the store_* thresholds).
// Unseen keys do not fail the run: store_unseen==0 judges them (exit code 3).
type storeObserver struct {
	play.Base
	f      *storefollow.Follower
	w      io.Writer
	m      *measure.Run
	sample pace.Rate
}

// Acked hands the follower an acknowledgement, on the sink's acknowledgement goroutine.
func (o *storeObserver) Acked(a sink.Ack) {
	o.f.Acked(storefollow.Ack{Topic: a.Topic, Due: a.Due, Intended: a.Intended, Warmup: a.Warmup, Value: a.Value})
}

// RunEnded waits for the sampled keys (storefollow.Follower.Finish) and reports them.
func (o *storeObserver) RunEnded(ctx context.Context, e *play.End) error {
	res := o.f.Finish(ctx, e.Interrupted, func(unseen int, max time.Duration) {
		e.Wait(fmt.Sprintf("waiting for %d sampled message(s) to be readable from %s (--follow-timeout)", unseen, o.f.Table().Name), max)
	})
	o.m.Store(res)
	storeLines(o.w, res, o.sample)
	if res.Interrupted && !e.Interrupted {
		return fmt.Errorf("follow: the wait for the sampled messages to be readable from %s was interrupted after %.2fs: %w", res.Table, res.Waited.Seconds(), context.Canceled)
	}
	return nil
}

// maxUnseenLine bounds the unseen keys the console lists; the report lists more.
const maxUnseenLine = 10

// storeLines prints the store follower's lines: what it sampled and saw, the time until
// queryable with the poll period that bounds it, the unseen keys, the stale rows, the polls
// that failed.
func storeLines(w io.Writer, res storefollow.Result, sample pace.Rate) {
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
	if sample > 0 {
		rate = sample.String()
	}
	fmt.Fprintf(w, "clickgen: store %s: %d sampled (%s of topic %s, at most %s), %d seen, %d unseen; time until queryable %s (measured from: %s)\n",
		res.Table, res.Sampled, res.KeyColumn, res.Topic, rate, res.Seen, res.UnseenCount, latency, res.MeasuredFrom)
	fmt.Fprintf(w, "clickgen: store %s: polled every %v, a poll took p50 %s max %s: each figure is at most %s late\n",
		res.Table, res.Every, d(poll.P50), d(poll.Max), d(res.Every+poll.Max))
	if res.UnseenCount > 0 {
		why := fmt.Sprintf("within --follow-timeout %v", res.Timeout)
		if res.Interrupted {
			why = fmt.Sprintf("(the wait was interrupted after %.2fs)", res.Waited.Seconds())
		}
		var keys []string
		for i, k := range res.Unseen {
			if i == maxUnseenLine {
				keys = append(keys, fmt.Sprintf("… %d more in --report", res.UnseenCount-maxUnseenLine))
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
