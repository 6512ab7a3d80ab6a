package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/console"
	"github.com/clickgen/clickgen/cmd/clickgen/internal/reportfile"
	"github.com/clickgen/clickgen/generator/logs"
	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// Every listener of a run is an observer of it (play.Observer), and a verb's observers are
// built as one list, here: the sink only sends. Adding a listener is one observer type and
// one line in sinkFlags.start.

// listenOpts are what a verb tells its run's observers beyond the flags.
type listenOpts struct {
	total       int            // messages expected, for the console's bar (inject); 0 unknown
	lineEvery   time.Duration  // a rate-paced run's console line period (run --interval)
	recordEvery time.Duration  // its report's interval period (measure.ReportEvery)
	maxRate     pace.Rate      // its ceiling, which the report names
	target      func() float64 // the target rate of a run not paced by a rate (live)
	noFollow    bool           // the verb does not follow consumer groups (inject)
	plan        play.Plan      // the plan to play, for --threshold's and --warmup's checks
}

// session is one run of a verb: its sink and its observers.
type session struct {
	verb    string
	snk     sink.Sink
	obs     *play.List
	console *console.Printer
	flush   time.Duration // the flush timeout
	warmup  time.Duration // --warmup
}

// start builds the observers of a verb's run and opens the sink for the topics of want with
// what they need of it, in this order, which is the order they hear the run's end
// (play.Observer.RunEnded):
//
//   - the measurement (generator/measure): the run's figures and its report;
//   - the console: progress and unit lines, the waits of the end, the summary;
//   - following consumer groups (--follow-group): the drain wait, the report's follow section;
//   - following a table (--follow-clickhouse): the wait for the sampled keys, the report's
//     store section;
//   - the verdict (--threshold): each threshold judged on the final figures, freshness included;
//   - Prometheus (--metrics-addr): served during the run, the linger at its end;
//   - the report file (--report): its document kept, written at the verb's end (finishReport).
//
// The sink gets what the observers need of it as options: kprom's hooks (franz-go calls
// them; nothing wraps the client) and, when an observer listens to acknowledgements (the
// follower), the function that hands them on (play.List.Acks). A bad or busy --metrics-addr
// is a usage error before connecting; Kafka's warnings go to stderr, bad options are usage
// errors; with --log-format json the Kafka client logs its warnings and errors too.
func (sf *sinkFlags) start(ctx context.Context, sio *stdio, want map[string]int32, o listenOpts) (*session, error) {
	if err := sf.verdict.check(sf.verb, o.plan, o.target != nil, len(sf.follow.groups)); err != nil {
		return nil, err
	}
	prep, err := sf.prepare(ctx, sio) // before any client is built from the settings
	if err != nil {
		return nil, err
	}
	metrics, err := listenMetrics(sf.metricsAddr)
	if err != nil {
		return nil, usage(sf.verb, err)
	}
	if !o.noFollow {
		if err := sf.follow.open(ctx, sf, want); err != nil {
			metrics.Stop()
			return nil, err
		}
		if err := sf.storeFollow.open(ctx, sf, o.plan); err != nil {
			metrics.Stop()
			sf.follow.abort()
			return nil, err
		}
	}
	m := measure.New(measure.Options{RecordEvery: o.recordEvery, LineEvery: o.lineEvery, MaxRate: o.maxRate, Target: o.target})
	if f := sf.follow.f; f != nil && !o.noFollow {
		m.FollowIntervals(f.States)
		metrics.Follow(f.States)
	}
	if f := sf.storeFollow.f; f != nil && !o.noFollow {
		metrics.Store(f.State)
	}
	p := console.NewPrinter(sio.err, m, o.total, o.lineEvery)
	list := []play.Observer{m, p}
	if !o.noFollow {
		list = append(list, sf.follow.observer(sio.err, m), sf.storeFollow.observer(sio.err, m))
	}
	list = append(list, sf.verdict.observer(sio.err, m))
	if metrics != nil {
		until := ""
		if sf.metricsLinger > 0 {
			until = fmt.Sprintf(" (after the run until a scrape has read the final values, at most %v)", sf.metricsLinger)
		}
		fmt.Fprintf(sio.err, "clickgen: Prometheus metrics on http://%s/metrics%s\n", metrics.Addr(), until)
		metrics.Linger(sf.metricsLinger)
		list = append(list, metrics)
	}
	if sf.report != "" {
		list = append(list, &reportfile.Observer{Report: m.Report, Keep: sf.keepReport})
	}
	obs := play.Observers(list...)
	snk, err := sf.openSink(ctx, sio, want, append(prep, sf.sinkOpts(sio, obs, metrics.SinkOpts())...))
	if err != nil {
		metrics.Stop()
		sf.follow.abort()
		sf.storeFollow.abort()
		return nil, err
	}
	return &session{verb: sf.verb, snk: snk, obs: obs, console: p, flush: sf.FlushTimeout, warmup: sf.verdict.warmupOf()}, nil
}

// sinkOpts are the sink options the run's observers need (hooks: kprom's) and, when one of
// obs listens to acknowledgements, the function that tells them; and the Kafka client's
// logger with --log-format json.
func (sf *sinkFlags) sinkOpts(sio *stdio, obs *play.List, hooks []sink.Opt) []sink.Opt {
	var opts []sink.Opt
	if l := logs.Of(sio.err); l != nil {
		opts = append(opts, sink.Logger(l.Logger("kafka", slog.LevelWarn)))
	}
	opts = append(opts, hooks...)
	if acks := obs.Acks(); acks != nil {
		opts = append(opts, sink.OnAck(acks))
	}
	return opts
}

// openSink opens the sink the settings choose (sink.Settings.Open) with opts, wording its
// failures for the command line.
func (sf *sinkFlags) openSink(ctx context.Context, sio *stdio, want map[string]int32, opts []sink.Opt) (sink.Sink, error) {
	s, err := sf.Open(ctx, sio.out, want, func(w sink.PartitionsWarning) { fmt.Fprintf(sio.err, "clickgen: warning: %s\n", sinkWarning(w)) }, opts...)
	var ce *sink.ConfigError
	var fe *sink.FileError
	switch {
	case errors.As(err, &ce):
		return nil, usagef(sf.verb, "%v", ce.Err)
	case errors.As(err, &fe):
		return nil, fmt.Errorf("--file: %w", fe.Err)
	case err != nil:
		return nil, sinkError(err)
	}
	return s, nil
}

// play runs plan into the session's sink with the session's flush timeout and warm-up, its
// observers hearing it.
func (s *session) play(ctx context.Context, plan play.Plan) (play.Result, error) {
	plan.FlushTimeout, plan.Warmup = s.flush, s.warmup
	return play.Run(ctx, plan, s.snk, s.obs)
}

// finish ends the run that returned res and err (play.Finish: the flush of what is queued,
// the observers' end in order, the sink closed) and returns its error, explained: an
// interrupted run says the summary is exact.
func (s *session) finish(ctx context.Context, res play.Result, err error) error {
	err = play.Finish(ctx, s.snk, s.obs, s.flush, res, err)
	return interrupted(s.verb, err, ": the summary above says exactly what was acknowledged")
}
