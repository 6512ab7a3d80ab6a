package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/measure/console"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/profiles"
)

// The one road from a config to a run, for every entry point: the settings checked (the
// workers, the progress period, the sink, the outputs, the files), then the world
// (profiles.Profile.NewWorld), then the plan (profiles.Profile.Plan), then the sink opened
// with the run's observers, the run played and finished. Every refusal comes before the
// world is built, or, for what needs the plan, before anything is sent.

// check refuses, before anything is read, what the config cannot run: workers the engine
// cannot start, a progress period below the console's floor, the sink's settings
// (sink.Settings.Validate; none chosen is the caller's to allow), the outputs on a sink of
// kind k (nil: not chosen yet) and the files.
func (c *Config) check(k *sink.Kind) error {
	if err := world.CheckWorkers(c.Workers); err != nil {
		return err
	}
	if c.Interval != 0 && c.Interval < MinInterval {
		return &field.Error{Field: "Interval", Words: "progress period", Value: c.Interval.String(), Err: fmt.Errorf("want at least %v", MinInterval)}
	}
	if err := c.checkOutputs(k); err != nil {
		return err
	}
	return fileio.Check(c.Files...)
}

// kind checks the sink's settings and returns the kind of sink they choose.
func (c *Config) kind() (*sink.Kind, error) {
	if err := c.Sink.Validate(); err != nil {
		return nil, err
	}
	return c.Sink.Kind()
}

// renderWorkers is the number of render workers for n asked for: n itself when set,
// otherwise what suits the sink (all cores but one when its client needs one, see
// play.Workers).
func renderWorkers(n int, client bool) int {
	if n > 0 {
		return n
	}
	return play.Workers(client)
}

// newWorld builds the world of p for a run on workers render workers with
// profiles.Profile.NewWorld, the one constructor every entry point goes through, within the
// config's memory limit, and sets the soft memory limit the run needs when asked to. A
// catalog that cannot be read or a run that cannot fit in memory is a refusal (nothing was
// sent); ctx ends the catalog's read (a FIFO nobody writes).
func (c *Config) newWorld(ctx context.Context, p profiles.Profile, workers int) (*world.World, error) {
	w, err := p.NewWorld(ctx, c.Memory, workers)
	if err != nil {
		return nil, field.Refuse(err)
	}
	if c.SoftMemoryLimit {
		f := world.Footprint{Scale: p.World.Scale, Garbage: p.Garbage, Workers: workers, Products: len(w.Catalog().Products)}
		debug.SetMemoryLimit(f.SoftLimit())
	}
	return w, nil
}

// plan builds the world of p (newWorld, the memory counted for memWorkers render workers) and
// p's plan (profiles.Profile.Plan, the one constructor of a plan) with opt, for the config's
// segment.
func (c *Config) plan(ctx context.Context, p profiles.Profile, memWorkers int, opt profiles.PlanOptions) (play.Plan, error) {
	w, err := c.newWorld(ctx, p, memWorkers)
	if err != nil {
		return play.Plan{}, err
	}
	opt.Segment = c.Segment
	plan, err := p.Plan(w, opt)
	return plan, field.Refuse(err)
}

// Play plays the config's profile, one of the stand's (profiles.Batch, Live, Snapshot: its
// days back to back, one day paced by model time, or the daily order snapshots), into the
// one topic or file of the config's sink, its observers listening: the console, the
// measurement and the config's outputs. A Kafka sink needs its topic named
// (sink.Settings.TopicOf); the topic gets the partitions of its kind when it is created.
func Play(ctx context.Context, c Config) (err error) {
	p := c.Profile
	kind := "hits"
	if p.Play.Send == profiles.SendSnapshots {
		kind = "orders"
	}
	k, err := c.kind()
	if err != nil {
		return field.Refuse(err)
	}
	topic, err := c.Sink.TopicOf(kind)
	if err != nil {
		return field.Refuse(err)
	}
	if err := c.check(k); err != nil {
		return field.Refuse(err)
	}
	c.armReport()
	defer func() { err = c.rep.Finish(err, c.Names) }()
	// The render workers, and those the memory is counted for, as each of the stand's verbs
	// has always had them: snapshots render no hits; a replayed day renders on the sink's
	// share of the cores and is counted without them.
	var memWorkers, workers int
	switch {
	case p.Play.Send == profiles.SendSnapshots:
	case p.Pacing.Mode == profiles.PaceReplay:
		workers = renderWorkers(c.Workers, k.Client)
	default:
		memWorkers, workers = renderWorkers(c.Workers, false), renderWorkers(c.Workers, k.Client)
	}
	var pl *console.Printer // set before the run starts, which is when progress is reported
	var total int
	opt := profiles.PlanOptions{Workers: workers, HitsTopic: topic, OrdersTopic: topic}
	l := listening{}
	if p.Pacing.Mode == profiles.PaceReplay {
		opt.ReplayEvery = c.interval()
		opt.ReplayProgress = func(s pace.Snapshot) {
			m := s.Model
			pl.Logf("played %d of %d, model time %02d:%02d, lag %.1fs (max %.1fs)",
				s.Sent, total, int(m.Hours()), int(m.Minutes())%60, s.Lag.Seconds(), s.MaxLag.Seconds())
		}
		// The target: the day's events over the real time the day takes at this speed.
		l.target = func() float64 {
			return float64(total) / (float64(24*time.Hour) / p.Pacing.Speed / float64(time.Second))
		}
	}
	plan, err := c.plan(ctx, p, memWorkers, opt)
	if err != nil {
		return err
	}
	l.plan = plan
	s, err := c.listen(ctx, map[string]int32{c.Sink.Topic: sink.DefaultTopics()[kind]}, l)
	if err != nil {
		return err
	}
	pl = s.console
	if l.target != nil {
		pl.OnUnit = func(u play.Unit) { total = u.Clean }
	}
	res, err := s.play(ctx, plan)
	return s.finish(ctx, res, err)
}

// Inventory is what a storage must hold after the config's profile (the stand's batch and
// snapshot) was played: the world's inventory of its range (world.World.Inventory). An
// interruption says how far the counting got.
func Inventory(ctx context.Context, c Config) (*world.Inventory, error) {
	if err := c.check(nil); err != nil {
		return nil, field.Refuse(err)
	}
	plan, err := c.plan(ctx, c.Profile, renderWorkers(c.Workers, false), profiles.PlanOptions{Workers: c.Workers})
	if err != nil {
		return nil, err
	}
	inv, err := plan.World.Inventory(ctx, plan.Range, c.Workers)
	if err != nil {
		if inv == nil {
			return nil, err
		}
		snapshots := plan.Range.Days // of the days before each run day: none before day 0
		if plan.Range.From == 0 {
			snapshots--
		}
		return nil, play.Interrupted(err, c.Names, " after counting %d of %d days' hits and %d of %d snapshots: nothing was printed",
			len(inv.Days), plan.Range.Days, len(inv.Snapshots), snapshots)
	}
	return inv, nil
}

// Run plays the config's profile (a user's: its defaults filled in here) into its topics,
// hits and orders, and checks what arrived. With brokers in the sink's settings the messages
// go to that cluster, and the profile's expected counts are checked against what it
// acknowledged; without, an embedded Kafka-compatible broker is started for the run, played
// into, and everything is read back and reconciled with the inventory (the table on
// Stdout), or, for a run cut short by a stop condition, checked to hold exactly what was
// acknowledged.
func Run(ctx context.Context, c Config) (err error) {
	p := c.Profile
	err = c.Sink.Validate()
	embedded := errors.Is(err, sink.ErrNoSink)
	switch {
	case embedded && c.Sink.Secure():
		return field.Refuse(field.New("TLS and SASL need {Brokers|brokers}: the embedded broker speaks plaintext"))
	case err != nil && !embedded:
		return field.Refuse(err)
	case !embedded:
		// The first line says where the run plays, and where the brokers came from (an
		// exported variable turned a first command into a send to that cluster).
		from := c.BrokersFrom
		if from == "" {
			from = "brokers"
		}
		c.logf("playing into Kafka at %s (%s); nothing is read back", c.Sink.Brokers, from)
	}
	k, _ := c.Sink.Kind() // nil: the embedded broker, chosen below
	if err := c.check(k); err != nil {
		return field.Refuse(err)
	}
	c.armReport()
	defer func() { err = c.rep.Finish(err, c.Names) }()
	var pl *console.Printer // set before the run starts, which is when progress is reported
	// A run always plays into Kafka: its brokers, or the embedded broker, whose address is
	// known only once it has started (after the plan).
	workers := renderWorkers(c.Workers, true)
	every := c.interval()
	if c.ReplayEvery > 0 {
		every = c.ReplayEvery
	}
	plan, err := c.plan(ctx, p, workers, profiles.PlanOptions{Workers: workers, ReplayEvery: every,
		ReplayProgress: func(s pace.Snapshot) { replayLine(pl, p.Play.Day, s) }})
	if err != nil {
		return err
	}
	if err := c.checkVerdict(plan, false); err != nil { // before the embedded broker starts
		return field.Refuse(err)
	}
	kb, err := c.startEmbedded(embedded)
	if err != nil {
		return err
	}
	if kb != nil {
		defer kb.Close()
	}
	s, err := c.listen(ctx, plan.Topics(), listening{plan: plan, recordEvery: measure.ReportEvery(plan.Stop.Duration, c.interval())})
	if err != nil {
		return err
	}
	pl = s.console
	c.logf("%srun %s: %s, rendering on %d of %d cores", segmentWho(plan.Segment), p.Name, p.Describe(), plan.Workers, runtime.GOMAXPROCS(0))
	out, runErr := s.play(ctx, plan)
	if err := s.finish(ctx, out, runErr); err != nil && !measure.OnlyCrossed(err) {
		return err
	} else if err != nil {
		// A crossed threshold is a verdict on a run that completed: what it sent is still
		// checked, and a difference (a failure) comes with the verdict.
		return errors.Join(c.checkRun(ctx, kb, plan, out, s.snk.Stats()), err)
	}
	return c.checkRun(ctx, kb, plan, out, s.snk.Stats())
}

// replayLine is the progress line of a replayed run.
func replayLine(pl *console.Printer, from int, s pace.Snapshot) {
	m := s.Model
	pl.Logf("played %d, model time day %d %02d:%02d, lag %.1fs (max %.1fs)",
		s.Sent, from+int(m/(24*time.Hour)), int(m.Hours())%24, int(m.Minutes())%60, s.Lag.Seconds(), s.MaxLag.Seconds())
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

// OnlyCrossed says whether err, an entry point's, is made only of crossed thresholds (a run
// that completed, whose figures did not hold: measure.CrossedError): a command's exit code 3.
func OnlyCrossed(err error) bool { return measure.OnlyCrossed(err) }

// WithModelNotice is ctx with a day's model told on w while it lasts more than a second
// (world.WithModelProgress, console.ModelNotice): a day is modelled whole before its first
// message, and at scale 1000 that took 53 s with nothing said.
func WithModelNotice(ctx context.Context, w io.Writer) context.Context {
	return world.WithModelProgress(ctx, console.ModelNotice(w, time.Now))
}
