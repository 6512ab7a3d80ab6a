package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/console"
	"github.com/clickgen/clickgen/cmd/clickgen/internal/reportfile"
	"github.com/clickgen/clickgen/cmd/clickgen/internal/sysmem"
	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
	"github.com/clickgen/clickgen/profiles"
)

// newWorld builds the world of p for a run on workers render workers with
// profiles.Profile.NewWorld, the one constructor every verb goes through, and sets the soft
// memory limit the run needs: the one place it is set. The memory the run may take is
// measured here (sysmem.Limit: max, 0 for none, the address-space and cgroup limits, the
// available memory) and given to NewWorld as a value. A catalog that cannot be read (named
// catalog, as the verb calls it) or a run that cannot fit in memory is a usage error
// (nothing was sent); ctx ends the catalog's read (a FIFO nobody writes).
func newWorld(ctx context.Context, verb string, p profiles.Profile, max profiles.Bytes, workers int, catalog string) (*world.World, error) {
	limit, source := sysmem.Limit(int64(max))
	w, err := p.NewWorld(ctx, profiles.MemoryLimit{Bytes: profiles.Bytes(limit), Source: source}, workers)
	if ve, ok := err.(*profiles.ValueError); ok && ve.Name == "catalog" {
		named := *ve
		named.Name = catalog
		err = &named
	}
	if err != nil {
		return nil, usage(verb, flagNamed(err))
	}
	setMemoryLimit(w, world.Footprint{Scale: p.World.Scale, Garbage: p.Garbage, Workers: workers})
	return w, nil
}

// setMemoryLimit sets the soft memory limit a run of world w with footprint f needs
// ([world.Footprint.SoftLimit], the catalog's rows counted from w); GOMEMLIMIT overrides it.
func setMemoryLimit(w *world.World, f world.Footprint) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	f.Products = len(w.Catalog().Products)
	debug.SetMemoryLimit(f.SoftLimit())
}

// checkWorkers refuses a --workers n the engine cannot start (world.CheckWorkers), in the
// one wording every verb with --workers uses. The memory check counts the workers too.
func checkWorkers(verb string, n int) error {
	if world.CheckWorkers(n) != nil {
		return usagef(verb, "--workers %d: want 0 (all cores) to %d", n, world.MaxWorkers)
	}
	return nil
}

// playFlags are the flags every verb that plays into a sink shares (batch, live, snapshot):
// the world, the model days, garbage and the segment, registered in that order, and the
// sink. inventory uses them without the sink. They are overrides of the verb's built-in
// profile (profiles.Batch, Live, Snapshot), every one applied whether given or not: the
// flags' defaults are the stand's.
type playFlags struct {
	world   *worldFlags
	days    *dayFlags
	garbage *garbageFlags
	segment *segmentFlags
	fs      *pflag.FlagSet
	sink    *sinkFlags // nil without a sink
	// names are the verb's own flags for profile fields flagNames does not name as it does
	// (batch's --limit is stop.messages).
	names map[string]string
}

// addPlayFlags registers the play flags on fs; daysHelp is --days' help, or "" for a verb
// that plays one day (addDayFlags).
func addPlayFlags(fs *pflag.FlagSet, daysHelp string, withSink bool) *playFlags {
	pf := &playFlags{world: addWorldFlags(fs), days: addDayFlags(fs, daysHelp), fs: fs}
	pf.garbage = addGarbageFlags(fs)
	pf.segment = addSegmentFlags(fs)
	if withSink {
		pf.sink = addSinkFlags(fs)
	}
	return pf
}

// parse reads args and the environment fallbacks and applies them to base, the verb's
// built-in profile, in the order the verbs report mistakes: --day given, then the verb's own
// check (check, may be nil: its environment fallbacks, read through the same env, the flags
// that are not the profile's, and the overrides of its own flags, which it adds to o), the
// segment, the garbage, the sink, and then the profile's values, each refused once by profiles.Profile.Apply and
// named by the flag that carried it: any mistake is a usage error before anything is sent.
// It returns the profile and the segment the flags choose.
func (pf *playFlags) parse(base profiles.Profile, args []string, out io.Writer, check func(env envLookup, o *profiles.Overrides) error) (profiles.Profile, world.Segment, error) {
	return pf.parseEnv(base, args, out, os.LookupEnv, check)
}

// parseEnv is parse with the environment read through env.
func (pf *playFlags) parseEnv(base profiles.Profile, args []string, out io.Writer, env envLookup, check func(env envLookup, o *profiles.Overrides) error) (profiles.Profile, world.Segment, error) {
	verb := pf.fs.Name()
	if err := parseFlags(pf.fs, args, out, false); err != nil {
		return base, world.Segment{}, err
	}
	if err := pf.days.resolve(env); err != nil {
		return base, world.Segment{}, usage(verb, err)
	}
	o := pf.overrides()
	if check != nil {
		if err := check(env, &o); err != nil {
			return base, world.Segment{}, usage(verb, err)
		}
	}
	segment, err := pf.segment.resolve(env)
	if err != nil {
		return base, segment, usage(verb, err)
	}
	if _, err := pf.garbage.resolve(); err != nil {
		return base, segment, usage(verb, err)
	}
	if pf.sink != nil {
		if err := pf.sink.resolve(); err != nil {
			return base, segment, err
		}
	}
	if err := pf.world.resolveEnv(env); err != nil {
		return base, segment, usage(verb, err)
	}
	p, err := base.Apply(o)
	if err == nil {
		err = profiles.CheckDays(p.Play.Day, p.Play.Days)
	}
	if err != nil {
		return p, segment, usage(verb, flagNamedAs(err, pf.names))
	}
	uses := []fileio.Use{fileio.Input("--catalog", p.World.Catalog)}
	if pf.sink != nil {
		uses = append(uses, pf.sink.paths()...)
	}
	return p, segment, checkPaths(verb, uses...)
}

// overrides are the play flags as changes to the built-in profile: all of them, given or
// not (their defaults are the stand's), but the garbage mix, which only a named mix sets.
func (pf *playFlags) overrides() profiles.Overrides {
	wf, g := pf.world, &pf.garbage.garbage
	o := profiles.Overrides{Seed: &wf.seed, Scale: &wf.scale, Catalog: &wf.catalog, Day: &pf.days.day,
		GarbageRate: &g.Rate, Redeliver: &g.Redeliver}
	if pf.fs.Lookup("days") != nil {
		o.Days = &pf.days.days
	}
	if g.Mix != nil {
		o.Mix = &g.Mix
	}
	return o
}

// plan builds the world of p (newWorld: memory, scale, catalog, soft limit; the memory
// counted for pf.world.workers render workers) and p's plan (profiles.Profile.Plan, the one
// constructor of a plan every verb goes through) for segment, with opt. A verb with a sink
// sends what p sends to the topic --topic names (sinkFlags.TopicFor). Refusals are usage
// errors.
func (pf *playFlags) plan(ctx context.Context, p profiles.Profile, segment world.Segment, opt profiles.PlanOptions) (play.Plan, error) {
	verb := pf.fs.Name()
	w, err := newWorld(ctx, verb, p, pf.world.maxMemory, pf.world.workers, "--catalog")
	if err != nil {
		return play.Plan{}, err
	}
	if pf.sink != nil {
		kind := "hits"
		if p.Play.Send == profiles.SendSnapshots {
			kind = "orders"
		}
		topic, err := pf.sink.TopicFor(verb, kind)
		if err != nil {
			return play.Plan{}, usage(verb, err)
		}
		opt.HitsTopic, opt.OrdersTopic = topic, topic
	}
	opt.Segment = segment
	plan, err := p.Plan(w, opt)
	if err != nil {
		return plan, usage(verb, flagNamedAs(err, pf.names))
	}
	return plan, nil
}

// start opens the sink for plan's topic of kind (hits or orders: the partitions a created
// topic gets) with the verb's observers (sinkFlags.start).
func (pf *playFlags) start(ctx context.Context, sio *stdio, kind string, o listenOpts) (*session, error) {
	return pf.sink.start(ctx, sio, map[string]int32{pf.sink.Topic: sink.DefaultTopics()[kind]}, o)
}

// checkEvery refuses a progress period below console.MinProgressEvery, naming flag (run's
// --interval, live's --progress-every): the one wording of the floor.
func checkEvery(flag string, d time.Duration) error {
	if d < console.MinProgressEvery {
		return fmt.Errorf("%s %v: want at least %v", flag, d, console.MinProgressEvery)
	}
	return nil
}

// sinkFlags are the sink's settings (generator/sink) with the run's outputs: --report,
// --metrics-addr and --metrics-linger.
type sinkFlags struct {
	sink.Settings
	fs            *pflag.FlagSet
	verb          string
	report        string
	metricsAddr   string
	metricsLinger time.Duration
	follow        *followFlags
	verdict       *verdictFlags // nil on a verb without --threshold and --warmup
}

func addSinkFlags(fs *pflag.FlagSet) *sinkFlags {
	sf := &sinkFlags{verb: fs.Name()}
	sf.addSettingFlags(fs)
	fs.StringVar(&sf.report, "report", "", "write the final report as JSON to `FILE`")
	addMetricsAddrFlag(fs, &sf.metricsAddr)
	sf.follow = addFollowFlags(fs)
	fs.DurationVar(&sf.metricsLinger, "metrics-linger", 0, "after the run, keep serving --metrics-addr until one scrape has read the final values, for at most `DURATION` (longer than the scrape interval: a run shorter than one still leaves samples); a signal ends the wait")
	return sf
}

// resolve applies the environment fallbacks and checks the combination (resolveSettings).
func (sf *sinkFlags) resolve() error { return sf.check(sf.resolveSettings(os.LookupEnv)) }

// check makes err, the settings' verdict, a usage error, then checks the report before
// anything is sent: an unwritable report must not be found only after a day was sent (a
// scheduler then retries and duplicates the run). Whether it is also the data file or an
// input is checkPaths' to say, with the run's other files.
func (sf *sinkFlags) check(err error) error {
	if err != nil {
		return usagef(sf.verb, "%v", err)
	}
	if sf.report != "" {
		if err := reportfile.Check(sf.report); err != nil {
			return usagef(sf.verb, "--report %s: %v", sf.report, err)
		}
	}
	switch {
	case sf.metricsLinger < 0:
		return usagef(sf.verb, "--metrics-linger %v: want a duration ≥ 0", sf.metricsLinger)
	case sf.metricsLinger > 0 && sf.metricsAddr == "":
		return usagef(sf.verb, "--metrics-linger needs --metrics-addr: there is nothing to serve")
	}
	kind, _ := sf.Kind()
	if err := sf.follow.check(sf.verb, kind); err != nil {
		return err
	}
	return usage(sf.verb, checkMetricsAddr(sf.metricsAddr))
}

// renderWorkers is the number of render workers for --workers n: n itself when set,
// otherwise what suits the sink (all cores but one when a Kafka client needs one, see
// play.Workers). It is decided from the flags, before the sink is opened.
func renderWorkers(n int, kafka bool) int {
	if n > 0 {
		return n
	}
	return play.Workers(kafka)
}
