package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/console"
	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/verify/topics"
	"github.com/clickgen/clickgen/profiles"
)

const runHelp = `Play a profile: a bundle of world, days, topics, pacing, garbage and a stop condition, kept
in an embedded YAML file ('clickgen profiles list', 'clickgen profiles show NAME') or in your
own (--profile-file). PROFILE defaults to fill. Flags override the profile's fields.

  fill     the stand's starting world: hits of days 0-7, snapshots of days 0-6
  live     one model day paced by model time (x60), then its snapshot of the day before
  stress   model days back to back at --scale, paced by --rate, until --duration/--messages
  garbage  a model day with a high share of every garbage class, opt-in ones included
  smoke    a small controlled batch with exact expected counts (a 10-second check)

Messages go to topics hits and orders. With --brokers (or env KAFKA_BOOTSTRAP_SERVERS) they go
to that cluster, and the profile's expected counts are checked against what it acknowledged.
Without either (or with --embedded, whatever the environment says), clickgen starts an embedded
Kafka-compatible broker in-process, plays into it,
reads everything back and prints, on stdout, what arrived against the inventory: per day and
snapshot, per intake class, per partition (or, for a run cut short by a stop condition, that
every acknowledged message is in the topics). The console says which.

Pacing (--pace): none sends as fast as the sink takes them; replay sends each hit
(t - t0)/--speed after the start, t being its model time; rate releases every message when
the rate shape --rate says (open loop: a late message goes at once and counts its lag; its
latency is measured from its intended time). Shapes:
  20000/s                        constant
  ramp:1000/s-20000/s:30s        linear from 1000/s to 20000/s over 30 s, then 20000/s
  steps:1000/s@10s,5000/s@10s    each rate for its duration, the last one after that
  sine:10000/s±5000/s:60s        10000/s + 5000/s·sin(2πt/60s) ("+-" may replace "±")
A rate run prints a line every --interval (records, records/sec, MB/sec, latency avg/max,
errors, the shape's target) and at the end p50/p95/p99/p99.9/max; --report adds the
intervals to the JSON report, finer for short runs: a sixtieth of --duration in whole
seconds, between 1s and 5s and never longer than --interval (a 15s run: 15 intervals of 1s);
--interval without --duration. With --follow-group each interval also holds, per group, the
pipeline latency (p50, p99, max) of the messages the group took in it and its lag at its end.

--duration bounds the sending: a rate run releases messages for --duration, and when the
brokers cannot keep up, one due before the end but still waiting goes until 1 % later (50 ms
to 1 s) at most; the rest is not sent. What is in flight then is flushed, within
--flush-timeout: the last line splits the total time into the sending and that final flush,
as the report does (stress.sending_s, stress.final_flush_s).

A flag given (or its variable set) overrides the profile's field; a flag not given leaves
the profile's value, which is why no default is shown for those below.`

func runRun(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if err := b.parse(args, sio.out, true); err != nil {
		return err
	}
	p, segment, err := b.runProfile(ctx)
	if err != nil {
		return err
	}
	if err := b.checkWorkers(); err != nil {
		return err
	}
	if err := b.checkRunSink(); err != nil {
		return err
	}
	b.announceBrokers(sio)
	v := b.v
	uses := append(v.sink.paths(), fileio.Input("--profile-file", v.profileFile), fileio.Input(b.name("world.catalog"), p.World.Catalog))
	if err := b.checkFiles(uses...); err != nil {
		return err
	}
	every := v.interval
	if p.Pacing.Mode == profiles.PaceReplay && !b.set("interval") {
		every = time.Minute
	}
	var pl *console.Printer // set before the run starts, which is when progress is reported
	// run always plays into Kafka: its brokers, or the embedded broker, whose address is known
	// only once it has started (after the plan).
	workers := renderWorkers(v.workers, true)
	plan, err := b.plan(ctx, p, segment, workers, profiles.PlanOptions{Workers: workers, ReplayEvery: every,
		ReplayProgress: func(s pace.Snapshot) { replayLine(pl, p.Play.Day, s) }})
	if err != nil {
		return err
	}
	if err := v.sink.verdict.check("run", plan, false, len(v.sink.follow.groups)); err != nil { // before the embedded broker starts
		return err
	}
	embedded, err := startEmbedded(b, sio)
	if err != nil {
		return err
	}
	if embedded != nil {
		defer embedded.Close()
	}
	s, err := v.sink.start(ctx, sio, plan.Topics(), listenOpts{lineEvery: v.interval, maxRate: p.Pacing.MaxRate,
		recordEvery: measure.ReportEvery(plan.Stop.Duration, v.interval), plan: plan})
	if err != nil {
		return err
	}
	pl = s.console
	fmt.Fprintf(sio.err, "clickgen: %srun %s: %s, rendering on %d of %d cores\n", segmentWho(plan.Segment), p.Name, p.Describe(), plan.Workers, runtime.GOMAXPROCS(0))
	out, runErr := s.play(ctx, plan)
	if err := s.finish(ctx, out, runErr); err != nil && !onlyCrossed(err) {
		return err
	} else if err != nil {
		// A crossed threshold is a verdict on a run that completed: what it sent is still
		// checked, and a difference (exit 1) wins over the verdict (exit 3).
		return errors.Join(checkRun(ctx, sio, embedded, p, plan, out, s.snk.Stats()), err)
	}
	return checkRun(ctx, sio, embedded, p, plan, out, s.snk.Stats())
}

// startEmbedded starts the embedded broker when neither --brokers nor its variable gave
// brokers (or --embedded was given), and points the sink flags at it; nil when brokers were
// given (announceBrokers said which).
func startEmbedded(b *binding, sio *stdio) (*broker.Broker, error) {
	sf := &b.v.sink
	if sf.Kafka() {
		return nil, nil
	}
	kb, err := broker.Start("127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("embedded broker: %w", err)
	}
	sf.Brokers = kb.Addrs()
	fmt.Fprintf(sio.err, "clickgen: embedded broker on %s (topics hits/2, orders/1), gone when the run ends\n", sf.Brokers)
	return kb, nil
}

// replayLine is the progress line of a replayed run.
func replayLine(pl *console.Printer, from int, s pace.Snapshot) {
	m := s.Model
	pl.Logf("played %d, model time day %d %02d:%02d, lag %.1fs (max %.1fs)",
		s.Sent, from+int(m/(24*time.Hour)), int(m.Hours())%24, int(m.Minutes())%60, s.Lag.Seconds(), s.MaxLag.Seconds())
}

// checkRun says whether the run delivered what it should (topics.CheckRun): with the
// embedded broker it reads the topics back, the table to stdout; with --brokers it trusts what
// was acknowledged. The counts p expects are checked too, for the whole run.
func checkRun(ctx context.Context, sio *stdio, embedded *broker.Broker, p profiles.Profile, plan play.Plan,
	out play.Result, st sink.Stats) error {
	run := topics.Run{World: plan.World, Range: plan.Range, Options: topics.Options{Workers: plan.Workers},
		Hits: plan.Hits, Orders: plan.Orders, Stats: st,
		Want: topics.Counts{Source: "profile " + p.Name, Hits: p.Expect.Hits, Orders: p.Expect.Orders}}
	if out.Stopped != play.StopDays || plan.Days == 0 {
		run.CutShort = string(out.Stopped)
	}
	var brokers []string
	if embedded != nil {
		brokers = embedded.Addrs()
	}
	const readBack = 10 * time.Minute
	if embedded != nil {
		fmt.Fprintf(sio.err, "clickgen: %s%s\n", segmentWho(plan.Segment), console.WaitLine("reading the run's messages back from the embedded broker to check them", readBack))
	}
	ctx, cancel := context.WithTimeout(ctx, readBack)
	defer cancel()
	problems, _, err := topics.CheckRun(ctx, sio.out, brokers, run)
	if err != nil {
		return fmt.Errorf("reading back from the embedded broker: %w", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("check failed: %s", strings.Join(problems, "; "))
	}
	return nil
}

// segmentWho is what a line of a segmented run starts with, after "clickgen: ", so that the
// interleaved logs of N processes can be told apart (the console's lines say it too): "segment
// 1/4: ", or "" for the whole run.
func segmentWho(s world.Segment) string {
	if s.Whole() {
		return ""
	}
	return "segment " + s.String() + ": "
}
