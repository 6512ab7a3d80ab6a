package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/console"
	"github.com/clickgen/clickgen/generator/broker"
	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/pace"
	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/reconcile"
	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
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

Messages go to topics hits and orders. With --brokers they go to that cluster. Without it
clickgen starts an embedded Kafka-compatible broker in-process, plays into it, reads
everything back and prints, on stdout, what arrived against the inventory: per day and
snapshot, per intake class, per partition (or, for a run cut short by a stop condition, that
every acknowledged message is in the topics). KAFKA_BOOTSTRAP_SERVERS is not consulted.

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

Exit codes: 0 when the run and its check are clean, 1 when a message failed or the check
found a difference, 2 for usage errors (nothing was sent), 3 when the run completed but a
--threshold was crossed, 130 when interrupted.`

func runRun(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags("run", "run [PROFILE] [flags]", runHelp)
	var sf *sinkFlags
	rf := addRunFlags(fs, func(fs *pflag.FlagSet) {
		sf = addSinkFlags(fs)
		sf.verdict = addVerdictFlags(fs)
		fs.Lookup("brokers").Usage = "Kafka bootstrap `HOSTS`, comma-separated; without it, an embedded broker is played into and read back"
		fs.MarkHidden("file")
		fs.MarkHidden("topic")
	})
	if err := parseFlags(fs, args, sio.out, true); err != nil {
		return err
	}
	p, segment, err := rf.profile(ctx, os.LookupEnv)
	if err != nil {
		return usage("run", err)
	}
	if err := checkRunSink(sf, rf.workers); err != nil {
		return err
	}
	catalog := "world.catalog" // of the profile
	if fs.Changed("catalog") {
		catalog = "--catalog"
	}
	if err := checkPaths("run", append(sf.paths(), fileio.Input("--profile-file", rf.profileFile), fileio.Input(catalog, p.World.Catalog))...); err != nil {
		return err
	}
	w, err := newWorld(ctx, "run", p, rf.world.maxMemory, renderWorkers(rf.workers, true), "catalog")
	if err != nil {
		return err
	}
	every := rf.interval
	if p.Pacing.Mode == profiles.PaceReplay && !fs.Changed("interval") {
		every = time.Minute
	}
	var pl *console.Printer // set before the run starts, which is when progress is reported
	// run always plays into Kafka: --brokers, or the embedded broker, whose address is known
	// only once it has started (after the plan), so sf.Kafka() cannot tell yet.
	plan, err := p.Plan(w, profiles.PlanOptions{Workers: renderWorkers(rf.workers, true), ReplayEvery: every, Segment: segment,
		ReplayProgress: func(s pace.Snapshot) { replayLine(pl, p.Play.Day, s) }})
	if err != nil {
		return usagef("run", "%v", err)
	}
	if err := sf.verdict.check("run", plan, false, len(sf.follow.groups)); err != nil { // before the embedded broker starts
		return err
	}
	embedded, err := startEmbedded(sf, sio)
	if err != nil {
		return err
	}
	if embedded != nil {
		defer embedded.Close()
	}
	s, err := sf.start(ctx, sio, plan.Topics(), listenOpts{lineEvery: rf.interval, maxRate: p.Pacing.MaxRate,
		recordEvery: measure.ReportEvery(plan.Stop.Duration, rf.interval), plan: plan})
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

// checkRunSink validates the sink flags run uses: no --file or --topic (run writes topics
// hits and orders), TLS and SASL only with --brokers, and the settings' own checks.
func checkRunSink(sf *sinkFlags, workers int) error {
	switch {
	case checkWorkers("run", workers) != nil:
		return checkWorkers("run", workers)
	case sf.File != "":
		return usagef("run", "--file: run plays into Kafka (or its embedded broker); use batch or snapshot for files")
	case sf.Topic != "":
		return usagef("run", "--topic: run writes topics hits and orders")
	case !sf.Kafka() && (sf.TLS || sf.TLSCA != "" || sf.TLSCert != "" || sf.SASLMechanism != ""):
		return usagef("run", "TLS and SASL flags need --brokers: the embedded broker speaks plaintext")
	}
	return sf.check(sf.validateSettings(os.LookupEnv))
}

// startEmbedded starts the embedded broker when no --brokers were given and points the sink
// flags at it; nil when brokers were given.
func startEmbedded(sf *sinkFlags, sio *stdio) (*broker.Broker, error) {
	if sf.Kafka() {
		return nil, nil
	}
	b, err := broker.Start("127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("embedded broker: %w", err)
	}
	sf.Brokers = b.Addrs()
	fmt.Fprintf(sio.err, "clickgen: embedded broker on %s (topics hits/2, orders/1), gone when the run ends\n", sf.Brokers)
	return b, nil
}

// replayLine is the progress line of a replayed run.
func replayLine(pl *console.Printer, from int, s pace.Snapshot) {
	m := s.Model
	pl.Logf("played %d, model time day %d %02d:%02d, lag %.1fs (max %.1fs)",
		s.Sent, from+int(m/(24*time.Hour)), int(m.Hours())%24, int(m.Minutes())%60, s.Lag.Seconds(), s.MaxLag.Seconds())
}

// checkRun says whether the run delivered what it should (reconcile.CheckRun): with the
// embedded broker it reads the topics back, the table to stdout; with --brokers it trusts what
// was acknowledged. The counts p expects are checked too, for the whole run.
func checkRun(ctx context.Context, sio *stdio, embedded *broker.Broker, p profiles.Profile, plan play.Plan,
	out play.Result, st sink.Stats) error {
	run := reconcile.Run{World: plan.World, Range: plan.Range, Options: reconcile.Options{Workers: plan.Workers},
		Hits: plan.Hits, Orders: plan.Orders, Stats: st,
		Want: reconcile.Counts{Source: "profile " + p.Name, Hits: p.Expect.Hits, Orders: p.Expect.Orders}}
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
	problems, _, err := reconcile.CheckRun(ctx, sio.out, brokers, run)
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
