package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/broker"
	"github.com/clickgen/clickgen/generator/pace"
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
intervals to the JSON report.

Exit codes: 0 when the run and its check are clean, 1 when a message failed or the check
found a difference, 2 for usage errors (nothing was sent), 130 when interrupted.`

// runFlags are the flags of `clickgen run` that override profile fields.
type runFlags struct {
	fs          *pflag.FlagSet
	profileFile string
	wf          *worldFlags
	df          *dayFlags
	send        string
	pace        string
	speed       float64
	rate        string
	maxRate     string
	duration    time.Duration
	messages    int64
	interval    time.Duration
	workers     int
	gf          *garbageFlags
	sf          *sinkFlags
}

func addRunFlags(fs *pflag.FlagSet) *runFlags {
	rf := &runFlags{fs: fs}
	fs.StringVar(&rf.profileFile, "profile-file", "", "play the profile in this YAML `FILE` instead of an embedded one (format: 'clickgen profiles show fill')")
	rf.wf = addWorldFlags(fs)
	rf.df = addDayFlags(fs, "number of run days (play.days; ends play.endless)")
	fs.StringVar(&rf.send, "send", "", "what to send (play.send): hits, snapshots or hits+snapshots")
	fs.StringVar(&rf.pace, "pace", "", "pacing mode (pacing.mode): none, replay or rate; --speed implies replay, --rate implies rate")
	fs.Float64Var(&rf.speed, "speed", 0, "replay speed in model seconds per real second (pacing.speed; 60 plays a day in 24 min)")
	fs.StringVar(&rf.rate, "rate", "", "rate `SHAPE` (pacing.rate), e.g. 20000/s or ramp:1000/s-20000/s:30s, see above")
	fs.StringVar(&rf.maxRate, "max-rate", "", "a ceiling on the hits' rate on top of any pacing, e.g. 50000/s (pacing.max_rate)")
	fs.DurationVar(&rf.duration, "duration", 0, "stop sending after this long, e.g. 30s (stop.duration)")
	fs.Int64Var(&rf.messages, "messages", 0, "stop after this many hit messages (stop.messages)")
	fs.DurationVar(&rf.interval, "interval", 5*time.Second, "how often a paced run prints a progress line")
	fs.IntVar(&rf.workers, "workers", 0, "days are generated on this many cores; 0 means all")
	rf.gf = addGarbageFlags(fs)
	rf.sf = addSinkFlags(fs)
	// The shared helpers speak of the stand's environment variables; run reads none of them.
	usage := map[string]string{
		"seed":    "world seed (world.seed)",
		"scale":   "multiply the inflow of new visitors (and events per day) by this factor (world.scale)",
		"catalog": "catalog CSV `FILE` (sku,name,category,brand,price[,demand]) instead of the embedded one (world.catalog)",
		"day":     "first model day D, 0 = Monday 2026-06-01 (play.day)",
		"days":    "number of run days (play.days; ends play.endless)",
		"brokers": "Kafka bootstrap `HOSTS`, comma-separated; without it, an embedded broker is played into and read back",
	}
	for name, u := range usage {
		fs.Lookup(name).Usage = u
	}
	fs.MarkHidden("file")
	fs.MarkHidden("topic")
	return rf
}

// profile loads the profile named by args or --profile-file and applies the flags to it.
// Every mistake is a usage error.
func (rf *runFlags) profile() (profiles.Profile, error) {
	fs := rf.fs
	var p profiles.Profile
	var err error
	switch {
	case fs.NArg() > 1:
		return p, usagef("run", "unexpected argument %q: one profile at most", fs.Arg(1))
	case fs.NArg() == 1 && rf.profileFile != "":
		return p, usagef("run", "both profile %s and --profile-file given: choose one", fs.Arg(0))
	case rf.profileFile != "":
		if p, err = loadProfileFile(rf.profileFile); err != nil {
			return p, usagef("run", "%v", err)
		}
	default:
		name := profiles.Default
		if fs.NArg() == 1 {
			name = fs.Arg(0)
		}
		if p, err = profiles.Load(name); err != nil {
			return p, usagef("run", "%v", err)
		}
	}
	what := "profile " + p.Name
	if rf.profileFile != "" {
		what = rf.profileFile
	}
	changed := false // did a flag change what is played (so the profile's expect no longer holds)?
	set := func(flag string, apply func()) {
		if fs.Changed(flag) {
			apply()
			changed = true
		}
	}
	set("seed", func() { p.World.Seed = rf.wf.seed })
	set("scale", func() { p.World.Scale = rf.wf.scale })
	set("catalog", func() { p.World.Catalog = rf.wf.catalog })
	set("day", func() { p.Play.Day = rf.df.day })
	set("days", func() { p.Play.Days, p.Play.Endless = rf.df.days, false })
	set("send", func() { p.Play.Send = rf.send })
	set("garbage", func() { p.Garbage.Rate = rf.gf.rate })
	set("redeliver", func() { p.Garbage.Redeliver = rf.gf.redeliver })
	set("duration", func() { p.Stop.Duration = rf.duration })
	set("messages", func() { p.Stop.Messages = rf.messages })
	if fs.Changed("garbage-mix") {
		mix, err := world.ParseMix(rf.gf.mix)
		if err != nil {
			return p, usagef("run", "--garbage-mix: %v", err)
		}
		p.Garbage.Mix, changed = mix, true
	}
	if fs.Changed("seed") && rf.wf.seed == 0 {
		return p, usagef("run", "--seed 0: the seed must be positive")
	}
	if fs.Changed("days") && rf.df.days < 1 {
		return p, usagef("run", "--days %d: want at least 1", rf.df.days)
	}
	// Pacing: --speed means replay, --rate means rate, --pace says it outright.
	if fs.Changed("speed") && fs.Changed("rate") {
		return p, usagef("run", "--speed (replay) and --rate (a rate shape) exclude each other")
	}
	mode := p.Pacing.Mode
	switch {
	case fs.Changed("pace"):
		mode = rf.pace
		if (fs.Changed("speed") && mode != profiles.PaceReplay) || (fs.Changed("rate") && mode != profiles.PaceRate) {
			return p, usagef("run", "--pace %s contradicts --speed or --rate", mode)
		}
	case fs.Changed("speed"):
		mode = profiles.PaceReplay
	case fs.Changed("rate"):
		mode = profiles.PaceRate
	}
	if mode != p.Pacing.Mode {
		p.Pacing = profiles.Pacing{Mode: mode, MaxRate: p.Pacing.MaxRate}
	}
	if fs.Changed("speed") {
		if _, err := pace.Replay(rf.speed); err != nil {
			return p, usagef("run", "--speed: %v", err)
		}
		p.Pacing.Speed = rf.speed
	}
	if fs.Changed("rate") {
		if _, err := pace.ParseShape(rf.rate); err != nil {
			return p, usagef("run", "--rate: %v", err)
		}
		p.Pacing.Rate = rf.rate
	}
	if fs.Changed("max-rate") {
		if rf.maxRate != "" {
			if _, err := pace.ParseRate(rf.maxRate); err != nil {
				return p, usagef("run", "--max-rate: %v", err)
			}
		}
		p.Pacing.MaxRate = rf.maxRate
	}
	if changed && p.Expect.Set() {
		p.Expect = profiles.Expect{}
	}
	if err := p.Validate(); err != nil {
		return p, usagef("run", "%s: %v", what, err)
	}
	if rf.interval <= 0 {
		return p, usagef("run", "--interval must be positive")
	}
	return p.WithDefaults(), nil
}

// loadProfileFile reads and parses a user's profile; errors name the file and the field.
func loadProfileFile(path string) (profiles.Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return profiles.Profile{}, fmt.Errorf("--profile-file: %w", err)
	}
	p, err := profiles.Parse(data)
	if err != nil {
		return profiles.Profile{}, fmt.Errorf("--profile-file %s: %w", path, err)
	}
	if p.Name == "" {
		p.Name = strings.TrimSuffix(strings.TrimSuffix(baseName(path), ".yaml"), ".yml")
	}
	return p, nil
}

func baseName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}

// checkSink validates the sink flags run uses: no --file or --topic (run writes topics hits
// and orders), TLS and SASL only with --brokers, and the flags' own checks.
func (rf *runFlags) checkSink() error {
	sf := rf.sf
	switch {
	case rf.workers < 0:
		return usagef("run", "--workers %d: want 0 (all cores) or more", rf.workers)
	case sf.file != "":
		return usagef("run", "--file: run plays into Kafka (or its embedded broker); use batch or snapshot for files")
	case sf.topic != "":
		return usagef("run", "--topic: run writes topics hits and orders")
	case sf.brokers == "" && (sf.tls || sf.tlsCA != "" || sf.tlsCert != "" || sf.saslMechanism != ""):
		return usagef("run", "TLS and SASL flags need --brokers: the embedded broker speaks plaintext")
	case (sf.tlsCert == "") != (sf.tlsKey == ""):
		return usagef("run", "--tls-cert and --tls-key go together")
	case sf.saslMechanism != "" && sf.saslUser == "":
		return usagef("run", "--sasl-mechanism needs --sasl-user")
	case sf.connectTimeout <= 0 || sf.flushTimeout <= 0 || sf.deliveryTimeout <= 0:
		return usagef("run", "--connect-timeout, --delivery-timeout and --flush-timeout must be positive")
	}
	if sf.saslMechanism != "" {
		if !envSet(passwordEnv) {
			return usagef("run", "--sasl-mechanism needs the password in env %s", passwordEnv)
		}
	}
	switch sink.Compression(sf.compression) {
	case sink.CompressionNone, sink.CompressionGzip, sink.CompressionSnappy, sink.CompressionLZ4, sink.CompressionZstd:
	default:
		return usagef("run", "--compression %q: want none, gzip, snappy, lz4 or zstd", sf.compression)
	}
	if err := checkSinkFlags("run", sf); err != nil {
		return err
	}
	return checkMetricsAddr("run", sf.metricsAddr)
}

// worldOf builds the profile's world; an unreadable catalog is a usage error.
func worldOf(p profiles.Profile) (*world.World, error) {
	params := world.Params{Seed: p.World.Seed, Scale: p.World.Scale}
	if p.World.Catalog != "" {
		data, err := os.ReadFile(p.World.Catalog)
		if err != nil {
			return nil, usagef("run", "catalog: %v", err)
		}
		c, err := world.ParseCatalog(data)
		if err != nil {
			return nil, usagef("run", "catalog %s: %v", p.World.Catalog, err)
		}
		params.Catalog = c
	}
	w, err := world.NewWorld(params)
	if err != nil {
		return nil, usagef("run", "%v", err)
	}
	return w, nil
}

func runRun(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags("run", "run [PROFILE] [flags]", runHelp)
	rf := addRunFlags(fs)
	if err := parseFlags(fs, args, sio.out); err != nil {
		return err
	}
	p, err := rf.profile()
	if err != nil {
		return err
	}
	if err := rf.checkSink(); err != nil {
		return err
	}
	if err := checkMemory("run", p.World.Scale, p.GarbageSettings(), rf.wf.maxMem); err != nil {
		return err
	}
	w, err := worldOf(p)
	if err != nil {
		return err
	}
	plan, err := newRunPlan(p, rf)
	if err != nil {
		return err
	}

	sf := rf.sf
	var embedded *broker.Broker
	if sf.brokers == "" {
		if embedded, err = broker.StartBroker("127.0.0.1:0"); err != nil {
			return fmt.Errorf("embedded broker: %w", err)
		}
		defer embedded.Close()
		sf.brokers = strings.Join(embedded.Addrs(), ",")
		fmt.Fprintf(sio.err, "clickgen: embedded broker on %s (topics hits/2, orders/1), gone when the run ends\n", sf.brokers)
	}
	snk, err := withMetrics("run", sf.metricsAddr, sio.err, func() (sink.Sink, error) {
		return openRunSink(ctx, sf, plan.topics(), sio.err)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(sio.err, "clickgen: run %s: %s\n", p.Name, plan)
	if plan.meter != nil {
		plan.meter.snk = snk
	}

	var pl *player
	if plan.meter != nil {
		pl = newPlayerLines(sio, snk, sf.flushTimeout, 0, rf.interval, plan.meter.line)
	} else {
		pl = newPlayer(sio, snk, sf.flushTimeout, 0)
	}
	out, runErr := plan.play(ctx, pl, w)
	if plan.meter != nil {
		plan.finishStress(pl, out, runErr)
	}
	if err := pl.finish(runErr, sf.report); err != nil {
		return err
	}
	return checkRun(ctx, sio, embedded, w, p, plan, out, snk.Stats())
}

// openRunSink connects a Kafka sink to sf's brokers and checks (or creates) the topics.
func openRunSink(ctx context.Context, sf *sinkFlags, topics []string, stderr io.Writer) (sink.Sink, error) {
	k, err := sink.NewKafka(sf.kafkaOpts()...)
	if err != nil {
		return nil, usagef("run", "%v", err)
	}
	if err := k.CheckConnect(ctx); err != nil {
		k.Close()
		return nil, err
	}
	want := map[string]int32{}
	for _, t := range topics {
		want[t] = sink.DefaultTopics()[t]
	}
	warnings, err := k.EnsureTopics(ctx, sf.createTopics, want)
	for _, w := range warnings {
		fmt.Fprintf(stderr, "clickgen: warning: %s\n", w)
	}
	if err != nil {
		k.Close()
		return nil, err
	}
	return k, nil
}

// runPlan is a resolved profile: what the send loop needs.
type runPlan struct {
	p        profiles.Profile
	g        world.Garbage
	days     int // run days; 0 for endless
	hits     bool
	snaps    bool
	schedule pace.Schedule // nil: unpaced
	shape    pace.Pacer    // the rate shape (mode rate), before the duration cut-off
	opts     []pace.Opt
	byCount  bool // every message waits its turn (mode rate); else extras ride with their event
	workers  int
	meter    *stressMeter // mode rate: interval lines and the extended report
	every    time.Duration
	runner   *pace.Runner
}

func newRunPlan(p profiles.Profile, rf *runFlags) (*runPlan, error) {
	plan := &runPlan{p: p, g: p.GarbageSettings(), days: p.Play.Days, workers: rf.workers, every: rf.interval}
	if p.Play.Endless {
		plan.days = 0
	}
	if err := checkDays("run", p.Play.Day, max(plan.days, 1)); err != nil { // endless: the first day
		return nil, err
	}
	plan.hits = p.Play.Send == profiles.SendHits || p.Play.Send == profiles.SendBoth
	plan.snaps = p.Play.Send == profiles.SendSnapshots || p.Play.Send == profiles.SendBoth
	if p.Pacing.MaxRate != "" {
		r, err := pace.ParseRate(p.Pacing.MaxRate)
		if err != nil {
			return nil, usagef("run", "pacing.max_rate: %v", err)
		}
		plan.opts = append(plan.opts, pace.WithMaxRate(r))
		plan.schedule = func(uint64, time.Duration) (time.Duration, bool) { return 0, true } // only the ceiling
	}
	switch p.Pacing.Mode {
	case profiles.PaceReplay:
		s, err := pace.Replay(p.Pacing.Speed)
		if err != nil {
			return nil, usagef("run", "pacing.speed: %v", err)
		}
		plan.schedule = s
		if !rf.fs.Changed("interval") {
			plan.every = time.Minute
		}
	case profiles.PaceRate:
		shape, err := p.Shape()
		if err != nil {
			return nil, usagef("run", "%v", err)
		}
		plan.shape, plan.byCount = shape, true
		cut := shape
		if p.Stop.Duration > 0 {
			if cut, err = pace.Until(shape, p.Stop.Duration); err != nil {
				return nil, usagef("run", "stop.duration: %v", err)
			}
		}
		plan.schedule = pace.ByCount(cut)
		// Built before the progress goroutine starts, which reads it through the meter.
		if plan.runner, err = pace.NewRunner(plan.schedule, plan.opts...); err != nil {
			return nil, usagef("run", "%v", err)
		}
		plan.meter = newStressMeter(nil, shape)
		plan.meter.runner = plan.runner
	}
	return plan, nil
}

// topics lists the topics the plan writes.
func (plan *runPlan) topics() []string {
	var t []string
	if plan.hits {
		t = append(t, "hits")
	}
	if plan.snaps {
		t = append(t, "orders")
	}
	return t
}

// String says in one line what the plan plays.
func (plan *runPlan) String() string {
	p := plan.p
	var b strings.Builder
	if plan.days == 0 {
		fmt.Fprintf(&b, "model days from %d on", p.Play.Day)
	} else {
		fmt.Fprintf(&b, "model days %d-%d", p.Play.Day, p.Play.Day+plan.days-1)
	}
	fmt.Fprintf(&b, " (%s), seed %d, scale %g", p.Play.Send, p.World.Seed, p.World.Scale)
	switch p.Pacing.Mode {
	case profiles.PaceReplay:
		fmt.Fprintf(&b, ", replayed at x%g", p.Pacing.Speed)
	case profiles.PaceRate:
		fmt.Fprintf(&b, ", paced at %s", shapeName(plan.shape))
	default:
		b.WriteString(", unpaced")
	}
	if p.Pacing.MaxRate != "" {
		fmt.Fprintf(&b, " under %s", p.Pacing.MaxRate)
	}
	if p.Garbage.Rate > 0 || p.Garbage.Redeliver > 0 {
		fmt.Fprintf(&b, ", garbage %g, redeliver %g", p.Garbage.Rate, p.Garbage.Redeliver)
	}
	if p.Stop.Duration > 0 {
		fmt.Fprintf(&b, ", for %v", p.Stop.Duration)
	}
	if p.Stop.Messages > 0 {
		fmt.Fprintf(&b, ", at most %d messages", p.Stop.Messages)
	}
	return b.String()
}

// play sends the plan: the hits of the run days (paced as the plan says, flushed after each
// day unless paced by a rate shape), then, unless a stop condition ended the hits, the
// snapshots the run days send.
func (plan *runPlan) play(ctx context.Context, pl *player, w *world.World) (hitsOutcome, error) {
	out := hitsOutcome{firstDay: plan.p.Play.Day, lastDay: plan.p.Play.Day - 1}
	if plan.p.Stop.Duration > 0 && plan.p.Pacing.Mode != profiles.PaceRate {
		// A rate shape is cut off exactly by pace.Until; other runs stop at a deadline.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, plan.p.Stop.Duration, errStop)
		defer cancel()
	}
	var book *world.OrderBook
	if plan.snaps {
		book = world.NewOrderBook(w)
	}
	var err error
	if plan.hits {
		err = plan.playHits(ctx, pl, w, book, &out)
	}
	if err == nil && plan.snaps && out.stopped == "" {
		err = playSnapshots(ctx, pl, w, book, "orders", plan.p.Play.Day, plan.days, plan.g)
	}
	if err != nil && errors.Is(context.Cause(ctx), errStop) && ctx.Err() != nil && !errors.Is(err, context.Canceled) {
		// The deadline of stop.duration, not an interruption.
		out.stopped, err = "duration", nil
		if ferr := pl.flush(); ferr != nil {
			err = ferr
		}
		pl.prog.logf("stopped at the duration limit (%v) after %d hit messages", plan.p.Stop.Duration, out.sent)
	}
	return out, err
}

func (plan *runPlan) playHits(ctx context.Context, pl *player, w *world.World, book *world.OrderBook, out *hitsOutcome) error {
	if plan.schedule != nil && plan.runner == nil {
		var err error
		opts := plan.opts
		if plan.p.Pacing.Mode == profiles.PaceReplay {
			opts = append(opts, pace.WithProgress(plan.every, func(s pace.Snapshot) {
				m := s.Model
				pl.prog.logf("played %d, model time day %d %02d:%02d, lag %.1fs (max %.1fs)",
					s.Sent, plan.p.Play.Day+int(m/(24*time.Hour)), int(m.Hours())%24, int(m.Minutes())%60, s.Lag.Seconds(), s.MaxLag.Seconds())
			}))
		}
		if plan.runner, err = pace.NewRunner(plan.schedule, opts...); err != nil {
			return usagef("run", "%v", err)
		}
	}
	h := &hitsRun{topic: "hits", from: plan.p.Play.Day, n: plan.days, limit: plan.p.Stop.Messages, workers: plan.workers,
		garbage: plan.g, runner: plan.runner, byCount: plan.byCount, flushDays: plan.p.Pacing.Mode != profiles.PaceRate, book: book}
	var err error
	*out, err = h.play(ctx, pl, w)
	return err
}

// finishStress flushes a rate-paced run, prints its final line and prepares its report.
func (plan *runPlan) finishStress(pl *player, out hitsOutcome, runErr error) {
	m := plan.meter
	var snap pace.Snapshot
	if plan.runner != nil {
		snap = plan.runner.Snapshot()
	}
	if !out.pacedFrom.IsZero() {
		pl.start = out.pacedFrom // achieved rate over the paced time, not the setup
	}
	elapsed := time.Since(pl.start)
	// The target is the shape's mean over the time it was asked to pace.
	span := elapsed
	switch out.stopped {
	case "duration":
		span = plan.p.Stop.Duration
	case "messages":
		if d, ok := plan.shape.Due(uint64(out.sent)); ok && d > 0 {
			span = d
		}
	}
	pl.target = allowedRate(plan.shape, 0, span)
	pl.prog.logf("%s", m.final(elapsed, pl.target))
	stopped := out.stopped
	switch {
	case errors.Is(runErr, context.Canceled):
		stopped = "interrupted"
	case runErr != nil:
		stopped = "failed"
	case stopped == "":
		stopped = "days"
	}
	var maxRate float64
	if plan.p.Pacing.MaxRate != "" {
		r, _ := pace.ParseRate(plan.p.Pacing.MaxRate)
		maxRate = float64(r)
	}
	info := stressInfo{
		Shape: shapeName(plan.shape), MaxRatePerS: maxRate, PacedS: elapsed.Seconds(), Released: snap.Sent,
		MaxLagMS: msOf(snap.MaxLag), FirstDay: out.firstDay, LastDay: out.lastDay, Stopped: stopped,
	}
	pl.extend = func(r sink.Report) any { return m.report(r, info) }
}

// checkRun says whether the run delivered what it should. With the embedded broker it reads
// the topics back: a complete run of whole days is reconciled message by message against the
// inventory (the table goes to stdout); a run cut short by a stop condition is checked to hold
// exactly what was acknowledged, partition by partition. A profile's expected counts are then
// compared with what the topics hold (or, with --brokers, with what was acknowledged).
func checkRun(ctx context.Context, sio *stdio, embedded *broker.Broker, w *world.World, p profiles.Profile, plan *runPlan,
	out hitsOutcome, st sink.Stats) error {
	held := map[string]int64{}
	var problems []string
	if embedded == nil {
		for _, t := range plan.topics() {
			held[t] = st.Topics[t].Acked
		}
	} else {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		defer cancel()
		addrs := embedded.Addrs()
		var err error
		if out.stopped == "" && plan.days > 0 {
			problems, err = reconcileRun(ctx, sio.out, addrs, w, plan, held)
		} else {
			fmt.Fprintf(sio.out, "The run was cut short (stop condition: %s): checking that the topics hold exactly what was acknowledged.\n", out.stopped)
			problems, err = checkHeld(ctx, sio.out, addrs, plan.topics(), st, held)
		}
		if err != nil {
			return fmt.Errorf("reading back from the embedded broker: %w", err)
		}
	}
	for _, e := range []struct {
		topic string
		want  *int64
	}{{"hits", p.Expect.Hits}, {"orders", p.Expect.Orders}} {
		if e.want == nil {
			continue
		}
		verdict := "ok"
		if held[e.topic] != *e.want {
			verdict = "DIFFERS"
			problems = append(problems, fmt.Sprintf("%s holds %d messages, profile %s expects %d", e.topic, held[e.topic], p.Name, *e.want))
		}
		fmt.Fprintf(sio.out, "expect %s: %d messages, profile %s says %d: %s\n", e.topic, held[e.topic], p.Name, *e.want, verdict)
	}
	if len(problems) > 0 {
		return fmt.Errorf("check failed: %s", strings.Join(problems, "; "))
	}
	return nil
}

// reconcileRun reads both topics back through a reconcile.Checker (never holding them) and
// writes the reconciliation table to out. Topics the plan did not write are not judged.
func reconcileRun(ctx context.Context, out io.Writer, addrs []string, w *world.World, plan *runPlan, held map[string]int64) ([]string, error) {
	exp, err := reconcile.Expect(ctx, w, plan.p.Play.Day, plan.days, plan.g, reconcile.Options{Workers: plan.workers})
	if err != nil {
		return nil, err
	}
	c := exp.NewChecker()
	for _, t := range plan.topics() {
		add := c.AddHit
		if t == "orders" {
			add = c.AddOrder
		}
		err := broker.ConsumeFunc(ctx, addrs, t, func(r broker.Record) error {
			add(reconcile.Message{Partition: r.Partition, Offset: r.Offset, Key: r.Key, Value: r.Value})
			held[t]++
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	res := c.Result()
	if plan.hits && plan.snaps {
		if err := res.WriteTable(out); err != nil {
			return nil, err
		}
		if !res.OK {
			return []string{"the topics do not reconcile with the inventory (table above)"}, nil
		}
		return nil, nil
	}
	// One topic was played: the full table would list the other one as missing.
	tr := &res.Hits
	if plan.snaps {
		tr = &res.Orders
	}
	fmt.Fprintf(out, "Only topic %s was played; reconciling it alone against the inventory.\n", tr.Topic)
	for _, u := range tr.Units {
		what := "day"
		if tr.Topic == "orders" {
			what = "snapshot"
		}
		fmt.Fprintf(out, "%s %s %d %s: %d messages arrived of %d sent, clean hash %s: %s\n",
			tr.Topic, what, u.Day, u.Date, u.Got.Messages, u.Want.Messages, okText(u.SHA256OK, "matches", "DIFFERS"), okText(u.OK, "ok", "DIFFERS"))
	}
	fmt.Fprintf(out, "%s unexpected: %d messages\n", tr.Topic, tr.Unexpected.Messages)
	if !tr.OK {
		return []string{fmt.Sprintf("topic %s does not reconcile with the inventory", tr.Topic)}, nil
	}
	fmt.Fprintf(out, "OK: every %s message sent arrived as often as it was sent, with its key, in its partition, and nothing else.\n", tr.Topic)
	return nil, nil
}

func okText(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}

// checkHeld counts what each topic holds, per partition, and compares it with what the sink
// acknowledged.
func checkHeld(ctx context.Context, out io.Writer, addrs []string, topics []string, st sink.Stats, held map[string]int64) ([]string, error) {
	var problems []string
	for _, t := range topics {
		parts := map[int32]int64{}
		err := broker.ConsumeFunc(ctx, addrs, t, func(r broker.Record) error {
			parts[r.Partition]++
			held[t]++
			return nil
		})
		if err != nil {
			return nil, err
		}
		acked := st.Topics[t]
		same := held[t] == acked.Acked && len(parts) == len(acked.Partitions)
		for p, n := range parts {
			same = same && acked.Partitions[p] == n
		}
		verdict := "ok"
		if !same {
			verdict = "DIFFERS"
			problems = append(problems, fmt.Sprintf("%s holds %d messages %s, %d were acknowledged %s",
				t, held[t], partitionList(parts), acked.Acked, partitionList(acked.Partitions)))
		}
		fmt.Fprintf(out, "%s: %d acknowledged %s, %d in the topic %s: %s\n", t, acked.Acked, partitionList(acked.Partitions), held[t], partitionList(parts), verdict)
	}
	return problems, nil
}

// partitionList spells per-partition counts as "(partitions 0:12 1:15)".
func partitionList(m map[int32]int64) string {
	if len(m) == 0 {
		return "(empty)"
	}
	var b strings.Builder
	b.WriteString("(partitions")
	for _, p := range sortedKeys(m) {
		fmt.Fprintf(&b, " %d:%d", p, m[p])
	}
	b.WriteString(")")
	return b.String()
}
