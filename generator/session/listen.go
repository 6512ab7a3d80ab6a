package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/measure/console"
	"github.com/clickgen/clickgen/generator/measure/follow"
	"github.com/clickgen/clickgen/generator/measure/prom"
	"github.com/clickgen/clickgen/generator/measure/storefollow"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// Every listener of a run is an observer of it (play.Observer), built here as one list: the
// sink only sends. Adding a listener is one observer type and one line in listen.

// listening is what a run tells its observers beyond the config.
type listening struct {
	total       int            // messages expected, for the console's bar (inject); 0 unknown
	recordEvery time.Duration  // a rate-paced run's report interval period (measure.ReportEvery)
	target      func() float64 // the target rate of a run not paced by a rate (live)
	noFollow    bool           // the run does not follow consumer groups (inject)
	plan        play.Plan      // the plan to play, for the thresholds' and the warm-up's checks
}

// session is one run of a config: its sink and its observers.
type session struct {
	cfg      *Config
	snk      sink.Sink
	obs      *play.List
	list     []play.Observer // obs, one by one
	console  *console.Printer
	metrics  *prom.Server
	follower *kgo.Client // the follower's Kafka client; nil without one
}

// name is field key as the config's names name it, or words.
func (c *Config) name(key, words string) string { return field.Name(c.Names, key, words) }

// logf prints a line of the session on stderr, "clickgen: " first.
func (c *Config) logf(format string, args ...any) {
	fmt.Fprintf(c.Stderr, "clickgen: "+format+"\n", args...)
}

// checkOutputs checks the run's outputs before anything is sent: an unwritable report must
// not be found only after a day was sent (a scheduler then retries and duplicates the run);
// whether it is also the data file or an input is fileio.Check's to say, with the run's
// other files. The data file is checked the same way (sink.Settings.CheckReady), so that one
// on a read-only filesystem is refused before anything is sent, as a report there is. Then
// the metrics linger, the followed groups (on a sink of kind k, nil while the sink is not
// chosen yet: run's embedded broker), the followed table and the metrics address.
func (c *Config) checkOutputs(k *sink.Kind) error {
	o := &c.Outputs
	if o.Report != "" {
		if err := fileio.CheckReport(o.Report); err != nil {
			return &field.Error{Field: "Report", Words: "report", Value: o.Report, Err: err}
		}
	}
	if err := c.Sink.CheckReady(); err != nil {
		return err
	}
	switch {
	case o.MetricsLinger < 0:
		return &field.Error{Field: "MetricsLinger", Words: "metrics linger", Value: o.MetricsLinger.String(), Err: errors.New("want a duration ≥ 0")}
	case o.MetricsLinger > 0 && o.MetricsAddr == "":
		return field.New("{MetricsLinger|a metrics linger} needs {MetricsAddr|a metrics address}: there is nothing to serve")
	}
	if err := c.checkFollow(k); err != nil {
		return err
	}
	if err := c.checkStoreFollow(); err != nil {
		return err
	}
	if ae := (*prom.AddrError)(nil); errors.As(prom.CheckAddr(o.MetricsAddr), &ae) {
		return &field.Error{Field: "MetricsAddr", Words: "metrics address", Value: strconv.Quote(ae.Addr), Err: errors.New(ae.Problem)}
	}
	return nil
}

// checkFollow refuses follow settings that cannot work, before anything is sent: groups on
// a sink without consumer groups (k, nil while the sink is not chosen yet), and what
// follow.Options.Validate refuses (an empty, unprintable or overlong group name, a poll
// period below follow.MinEvery, a negative timeout).
func (c *Config) checkFollow(k *sink.Kind) error {
	f := c.Outputs.Follow
	switch {
	case len(f.Groups) == 0:
		return nil
	case k != nil && !k.Partitions:
		return field.Sentence("{Groups|following groups} needs Kafka ({Brokers|brokers}): a %s has no consumer groups", k.Name)
	case f.Every == 0: // the library's default; a 0 given is below the floor as any other
		return &field.Error{Field: "Every", Words: "poll period", Value: "0s", Err: fmt.Errorf("want at least %v", follow.MinEvery)}
	}
	return f.options(nil).Validate()
}

// options are the follower's options for the topics of want.
func (f Follow) options(want map[string]int32) follow.Options {
	return follow.Options{Groups: f.Groups, Topics: slices.Sorted(maps.Keys(want)), Every: f.Every, Timeout: f.Timeout}
}

// checkVerdict refuses, before anything is sent, what the run could not judge: a rate
// threshold on a run with no target rate (one not paced by a rate shape, live having its
// model day's: hasTarget), a freshness threshold without groups to follow, a negative warm-up
// or one that leaves nothing of plan's duration, or of a rate shape that ends the run by
// itself.
func (c *Config) checkVerdict(plan play.Plan, hasTarget bool) error {
	o := &c.Outputs
	switch d := plan.Stop.Duration; {
	case o.Warmup < 0:
		return &field.Error{Field: "Warmup", Words: "warm-up", Value: o.Warmup.String(), Err: errors.New("want a duration ≥ 0")}
	case o.Warmup > 0 && d > 0 && o.Warmup >= d:
		return field.Sentence("{Warmup|the warm-up} %v is not shorter than the run's duration %v ({stop.duration|stop.duration}): nothing would be measured after it", o.Warmup, d)
	case o.Warmup > 0 && plan.Pacing.ByCount && plan.Pacing.Shape != nil:
		// A rate shape that ends by itself (a ramp or steps down to 0/s), or a message limit
		// at a rate, ends the run before any duration: a warm-up as long measured everything
		// apart and judged the thresholds on nothing.
		if end, ok := pace.End(plan.Pacing.Shape, uint64(max(plan.Stop.Messages, 0))); ok && o.Warmup >= end {
			limit := ""
			if plan.Stop.Messages > 0 {
				limit = fmt.Sprintf(" and {stop.messages|the message limit} %d", plan.Stop.Messages)
			}
			return field.Sentence("{Warmup|the warm-up} %v is not shorter than the run: its last message is due %v after the first (the rate shape%s): nothing would be measured after it",
				o.Warmup, end, limit)
		}
	}
	for _, t := range o.Thresholds {
		switch {
		case t.NeedsTarget() && !plan.Pacing.ByCount && !hasTarget:
			return field.Sentence("{Thresholds|threshold} %s: the run has no target rate to compare with: it is not paced by a rate (run {pacing.rate|with a rate shape}, or the stress profile)", t)
		case t.Freshness && len(o.Follow.Groups) == 0:
			return field.Sentence("{Thresholds|threshold} %s: freshness is measured by following a consumer group: give {Groups|a group to follow}", t)
		}
	}
	return nil
}

// prepare readies the sink settings for opening: the TLS files are read once, here, before
// any client (the sink's, a follower's) is built from them, so a FIFO among them waits within
// ctx (an unreadable one is a refusal); and the options it returns say each topic created,
// with its partitions and replication factor, and, past a second, what the sink waits for
// before sending and how long at most, as brokers that do not answer are told (issue 31).
func (c *Config) prepare(ctx context.Context) ([]sink.Opt, error) {
	if w := c.Sink.ClearTextWarning(c.Names); w != "" {
		c.logf("%s", w)
	}
	if err := c.Sink.LoadTLS(ctx); err != nil {
		if ce := (*sink.ConfigError)(nil); errors.As(err, &ce) {
			return nil, field.Refuse(ce.Err) // wrapped, so that an I/O error stays a failure
		}
		return nil, err // interrupted
	}
	opts := []sink.Opt{ConnectNotice(c.Stderr, c.Names), sink.OnCreate(func(cr sink.Created) {
		parts := "partitions"
		if cr.Partitions == 1 {
			parts = "partition"
		}
		c.logf("created topic %s (%d %s, replication factor %d)", cr.Topic, cr.Partitions, parts, cr.Replication)
	}, func(w sink.LeaderWait) {
		c.logf("waiting until every broker knows a leader for each partition of %s (%d not yet), at most %v (%s; Ctrl-C stops)",
			strings.Join(w.Topics, ", "), w.Pending, w.Bound, c.name("ConnectTimeout", "the connect timeout"))
	})}
	if c.KafkaLog != nil {
		opts = append(opts, sink.Logger(c.KafkaLog))
	}
	return opts, nil
}

// ConnectNotice is the sink option that says on w, once brokers have kept the connection
// check waiting for a second, what it waits for and how long at most, naming the connect
// timeout by names: an unresponsive broker looked like a hang for the whole connect timeout
// (issue 31).
func ConnectNotice(w io.Writer, names field.Names) sink.Opt {
	return sink.OnConnectWait(func(cw sink.ConnectWait) {
		fmt.Fprintf(w, "clickgen: waiting for Kafka at %s to answer, at most %v (%s; Ctrl-C stops)\n",
			cw.Brokers, cw.Bound, field.Name(names, "ConnectTimeout", "the connect timeout"))
	})
}

// listen builds the observers of the run and opens the sink for the topics of want with what
// they need of it (play.SinkOpts): the measurement (generator/measure: the figures, the
// followed groups, the thresholds, the report), the console, Prometheus and the report file.
// Their order does not matter (play.Finish). A bad or busy metrics address is a refusal
// before connecting; bad sink options are refusals too.
func (c *Config) listen(ctx context.Context, want map[string]int32, l listening) (*session, error) {
	if err := c.checkVerdict(l.plan, l.target != nil); err != nil {
		return nil, field.Refuse(err)
	}
	opts, err := c.prepare(ctx) // before any client is built from the settings
	if err != nil {
		return nil, err
	}
	s := &session{cfg: c}
	if addr := c.Outputs.MetricsAddr; addr != "" {
		if s.metrics, err = prom.ListenOn(addr); err != nil {
			return nil, field.Refuse(&field.Error{Field: "MetricsAddr", Words: "metrics address", Err: err})
		}
	}
	var f *follow.Follower
	var sf *storefollow.Follower
	if !l.noFollow {
		if f, err = s.follow(ctx, want); err != nil {
			s.metrics.Stop()
			return nil, err
		}
		if sf, err = c.storeFollow(ctx, l.plan); err != nil {
			s.metrics.Stop()
			s.closeFollower(f)
			return nil, err
		}
	}
	o := &c.Outputs
	m := measure.New(measure.Options{RecordEvery: l.recordEvery, LineEvery: c.interval(), MaxRate: c.Profile.Pacing.MaxRate, Target: l.target,
		Follow: f, Thresholds: o.Thresholds})
	s.console = console.NewPrinter(c.Stderr, console.Options{Total: l.total, LineEvery: c.interval(), Interval: m.Interval,
		LimitName: c.LimitName, Names: c.Names})
	list := []play.Observer{m, s.console}
	if f != nil {
		list = append(list, acks{f})
		s.metrics.Follow(f.States)
	}
	if sf != nil {
		list = append(list, sf.Observer())
		s.metrics.Store(sf.State)
	}
	if s.metrics != nil {
		until := ""
		if o.MetricsLinger > 0 {
			until = fmt.Sprintf(" (after the run until a scrape has read the final values, at most %v)", o.MetricsLinger)
		}
		c.logf("Prometheus metrics on http://%s/metrics%s", s.metrics.Addr(), until)
		s.metrics.Linger(o.MetricsLinger)
		list = append(list, s.metrics)
	}
	if o.Report != "" {
		list = append(list, reportFile{c.rep})
	}
	s.list, s.obs = list, play.Observers(list...)
	if s.snk, err = c.open(ctx, want, append(opts, play.SinkOpts(s.obs)...)); err != nil {
		s.metrics.Stop()
		s.closeFollower(f)
		abortStoreFollow(sf)
		return nil, err
	}
	return s, nil
}

// follow starts following the groups on the sink's brokers, for the topics of want; nil
// without groups.
func (s *session) follow(ctx context.Context, want map[string]int32) (*follow.Follower, error) {
	c := s.cfg
	if len(c.Outputs.Follow.Groups) == 0 {
		return nil, nil
	}
	opts, err := sink.ClientOpts(c.Sink.Brokers, c.Sink.ConnOpts()...)
	if err != nil {
		return nil, field.Refuse(err)
	}
	if s.follower, err = kgo.NewClient(opts...); err != nil {
		return nil, fmt.Errorf("%s: Kafka client: %w", c.name("Groups", "following groups"), err)
	}
	f, err := follow.New(kadm.NewClient(s.follower), c.Outputs.Follow.options(want))
	if err != nil {
		s.follower.Close()
		return nil, field.Refuse(fmt.Errorf("%s: %v", c.name("Groups", "following groups"), err))
	}
	f.Start(ctx)
	return f, nil
}

// closeFollower stops following when the sink could not be opened (f, nil without one), and
// closes the follower's client.
func (s *session) closeFollower(f *follow.Follower) {
	if f != nil {
		f.Finish(context.Background(), true, nil)
	}
	if s.follower != nil {
		s.follower.Close()
	}
}

// acks hands the follower every acknowledgement, on the sink's acknowledgement goroutine:
// the one hook a follower needs of the run.
type acks struct{ f *follow.Follower }

func (a acks) RunStarted(play.Start)                     {}
func (a acks) RunEnded(context.Context, *play.End) error { return nil }
func (a acks) Acked(x sink.Ack)                          { a.f.Acked(follow.Ack(x)) }

// open opens the sink the settings choose (sink.Settings.Open) with opts, wording its
// failures by the config's names: bad options are refusals.
func (c *Config) open(ctx context.Context, want map[string]int32, opts []sink.Opt) (sink.Sink, error) {
	s, err := c.Sink.Open(ctx, c.Stdout, want, func(w sink.PartitionsWarning) { c.logf("warning: %s", w.Say(c.Names)) }, opts...)
	var ce *sink.ConfigError
	var fe *sink.FileError
	switch {
	case errors.As(err, &ce):
		return nil, field.Refuse(ce.Err)
	case errors.As(err, &fe):
		return nil, fmt.Errorf("%s: %w", c.name("File", "file"), fe.Err)
	case err != nil:
		return nil, sink.Explain(err, c.Names)
	}
	return s, nil
}

// interval is the progress period.
func (c *Config) interval() time.Duration {
	if c.Interval > 0 {
		return c.Interval
	}
	return DefaultInterval
}

// play runs plan into the session's sink with the session's flush timeout and warm-up, its
// observers hearing it.
func (s *session) play(ctx context.Context, plan play.Plan) (play.Result, error) {
	plan.FlushTimeout, plan.Warmup = s.cfg.Sink.FlushTimeout, s.cfg.Outputs.Warmup
	return play.Run(ctx, plan, s.snk, s.obs)
}

// finish ends the run that returned res and err (play.Finish: the flush of what is queued,
// the observers' end, the sink closed), then stops serving metrics (after their linger) and
// following, and returns the run's error; an interrupted run says the summary is exact.
func (s *session) finish(ctx context.Context, res play.Result, err error) error {
	err = play.Finish(ctx, s.snk, s.obs, s.cfg.Sink.FlushTimeout, res, err)
	if s.follower != nil {
		s.follower.Close()
	}
	s.metrics.Close(ctx, s.obs.Waiting)
	return play.Interrupted(err, s.cfg.Names, ": the summary above says exactly what was acknowledged")
}

// reportFile is the observer that keeps the run's report document, the one the measurement
// made (measure.Outcome), for the report file (fileio.Report), which the entry point writes at
// its very end, whatever the end.
type reportFile struct{ rep *fileio.Report }

func (r reportFile) RunStarted(play.Start)                     {}
func (r reportFile) RunEnded(context.Context, *play.End) error { return nil }

// RunReported keeps the report's document.
func (r reportFile) RunReported(_ context.Context, e *play.End) error {
	if out, ok := play.Get[measure.Outcome](e); ok {
		r.rep.Keep(out.Report)
	}
	return nil
}
