package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/pace"
	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
)

// worldFlags choose the world: seed, scale and catalog.
type worldFlags struct {
	fs      *pflag.FlagSet
	seed    uint64
	scale   float64
	catalog string
	maxMem  play.Bytes
}

func addWorldFlags(fs *pflag.FlagSet) *worldFlags {
	wf := &worldFlags{fs: fs}
	fs.Uint64Var(&wf.seed, "seed", world.CanonicalSeed, "world seed (env GENERATOR_SEED)")
	fs.Float64Var(&wf.scale, "scale", 1, "multiply the inflow of new visitors (and events per day) by this factor")
	fs.Var(&wf.maxMem, "max-memory", "refuse the run if its estimated memory exceeds this `SIZE` (e.g. 4GiB); the cgroup limit and available memory always apply")
	fs.StringVar(&wf.catalog, "catalog", "", "catalog CSV `FILE` (sku,name,category,brand,price[,demand]) instead of the embedded one (env GENERATOR_CATALOG)")
	return wf
}

// world builds the world for a run with garbage g (it sets the soft memory limit they need);
// a bad value or catalog is a usage error (nothing was sent).
func (wf *worldFlags) world(g world.Garbage) (*world.World, error) {
	if err := envFallback(wf.fs, "seed", "GENERATOR_SEED", "catalog", "GENERATOR_CATALOG"); err != nil {
		return nil, err
	}
	p := world.Params{Seed: wf.seed, Scale: wf.scale}
	if wf.seed == 0 {
		return nil, usagef(wf.fs.Name(), "--seed 0: %v", world.ErrZeroSeed)
	}
	if wf.scale <= 0 {
		return nil, usagef(wf.fs.Name(), "--scale %v: want a positive factor", wf.scale)
	}
	c, err := loadCatalog(wf.fs.Name(), "--catalog", wf.catalog)
	if err != nil {
		return nil, err
	}
	p.Catalog = c
	w, err := world.NewWorld(p)
	if err != nil {
		return nil, usagef(wf.fs.Name(), "%v", err)
	}
	setMemoryLimit(wf.scale, g)
	return w, nil
}

// loadCatalog reads and parses the catalog file at path (nil for ""), as a usage error
// naming what (the flag or profile field) and, for a bad file, the line and column.
func loadCatalog(verb, what, path string) (*world.Catalog, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef(verb, "%s: %v", what, err)
	}
	c, err := world.ParseCatalog(data)
	if err != nil {
		return nil, usagef(verb, "%s %s: %v", what, path, err)
	}
	return c, nil
}

// setMemoryLimit sets the soft memory limit a run at scale with garbage g needs
// ([world.SoftMemoryLimit]); GOMEMLIMIT overrides it.
func setMemoryLimit(scale float64, g world.Garbage) {
	if envSet("GOMEMLIMIT") {
		return
	}
	debug.SetMemoryLimit(world.SoftMemoryLimit(scale, g))
}

// dayFlags are --day and --days with the stand's environment fallbacks.
type dayFlags struct {
	fs   *pflag.FlagSet
	day  int
	days int
}

// addDayFlags adds --day and, unless daysHelp is empty (live plays one day), --days.
func addDayFlags(fs *pflag.FlagSet, daysHelp string) *dayFlags {
	df := &dayFlags{fs: fs, days: 1}
	fs.IntVar(&df.day, "day", 0, "first model day D (0 = Monday 2026-06-01); required (env GENERATOR_DAY)")
	if daysHelp != "" {
		fs.IntVar(&df.days, "days", 1, daysHelp+" (env GENERATOR_DAYS)")
	}
	return df
}

func (df *dayFlags) resolve() error {
	fallbacks := []string{"day", "GENERATOR_DAY"}
	if df.fs.Lookup("days") != nil {
		fallbacks = append(fallbacks, "days", "GENERATOR_DAYS")
	}
	if err := envFallback(df.fs, fallbacks...); err != nil {
		return err
	}
	env := envSet("GENERATOR_DAY")
	if !df.fs.Changed("day") && !env {
		return usagef(df.fs.Name(), "--day is required (there is no default model day)")
	}
	if df.day < 0 {
		return usagef(df.fs.Name(), "--day %d: model days start at 0", df.day)
	}
	if df.days < 1 {
		return usagef(df.fs.Name(), "--days %d: want at least 1", df.days)
	}
	return checkDays(df.fs.Name(), df.day, df.days)
}

// playFlags are the flags every verb that plays into a sink shares (batch, live, snapshot):
// the world, the model days, garbage and the sink. inventory uses them without the sink.
type playFlags struct {
	fs      *pflag.FlagSet
	world   *worldFlags
	days    *dayFlags
	garbage *garbageFlags
	sink    *sinkFlags // nil without a sink
	seg     *segmentFlags
	// segment is the share of the run chosen by --segment or --segments (after parse).
	segment world.Segment
}

func addPlayFlags(fs *pflag.FlagSet, daysHelp string, withSink bool) *playFlags {
	pf := &playFlags{fs: fs, world: addWorldFlags(fs), days: addDayFlags(fs, daysHelp)}
	pf.garbage = addGarbageFlags(fs)
	pf.seg = addSegmentFlags(fs)
	if withSink {
		pf.sink = addSinkFlags(fs)
	}
	return pf
}

// parse reads args and checks every flag and environment fallback, with the verb's own
// checks (check, may be nil) after the days: any mistake is a usage error before anything
// is sent.
func (pf *playFlags) parse(args []string, out io.Writer, check func() error) (*world.World, world.Garbage, error) {
	var g world.Garbage
	if err := parseFlags(pf.fs, args, out); err != nil {
		return nil, g, err
	}
	if err := noArgs(pf.fs); err != nil {
		return nil, g, err
	}
	if err := pf.days.resolve(); err != nil {
		return nil, g, err
	}
	if check != nil {
		if err := check(); err != nil {
			return nil, g, err
		}
	}
	var err error
	if pf.segment, err = pf.seg.resolve(); err != nil {
		return nil, g, err
	}
	g, err = pf.garbage.resolve()
	if err != nil {
		return nil, g, err
	}
	if pf.sink != nil {
		if err := pf.sink.resolve(); err != nil {
			return nil, g, err
		}
	}
	if err := checkMemory(pf.fs.Name(), pf.world.scale, g, pf.world.maxMem); err != nil {
		return nil, g, err
	}
	w, err := pf.world.world(g)
	return w, g, err
}

// start opens the sink for topic kind (hits or orders: the default topic name and the
// partitions a created topic gets) and returns the player and the topic to send to.
func (pf *playFlags) start(ctx context.Context, sio *stdio, kind string) (*player, string, error) {
	topic := pf.sink.Topic
	if topic == "" {
		topic = kind
	}
	if err := checkTopicKind(pf.fs.Name(), topic, kind); err != nil {
		return nil, "", err
	}
	snk, err := pf.sink.open(ctx, sio, map[string]int32{pf.sink.Topic: sink.DefaultTopics()[kind]})
	if err != nil {
		return nil, "", err
	}
	return newPlayer(sio, snk, pf.sink.FlushTimeout, 0), topic, nil
}

// sinkFlags are the sink's settings (generator/sink) with the run's outputs: --report and
// --metrics-addr.
type sinkFlags struct {
	sink.Settings
	verb        string
	report      string
	metricsAddr string
}

func addSinkFlags(fs *pflag.FlagSet) *sinkFlags {
	sf := &sinkFlags{verb: fs.Name()}
	sf.AddFlags(fs)
	fs.StringVar(&sf.report, "report", "", "write the final report as JSON to `FILE`")
	addMetricsFlag(fs, &sf.metricsAddr)
	return sf
}

// resolve applies the environment fallbacks and checks the combination (sink.Settings.Resolve).
func (sf *sinkFlags) resolve() error { return sf.check(sf.Resolve(os.Getenv)) }

// check makes err, the settings' verdict, a usage error, then checks the outputs before
// anything is sent: the report must be writable and must not be the data file (--report X
// --file X overwrote the data with the report), and an unwritable report must not be found
// only after a day was sent (a scheduler then retries and duplicates the run).
func (sf *sinkFlags) check(err error) error {
	if err != nil {
		return usagef(sf.verb, "%v", err)
	}
	if err := checkReportPath(sf.verb, sf.report, sf.File); err != nil {
		return err
	}
	return checkMetricsAddr(sf.verb, sf.metricsAddr)
}

// workers is the number of render workers for --workers n: n itself when set, otherwise
// what suits the sink (all cores but one when a Kafka client needs one, see play.Workers).
// It is decided from the flags, not from the sink's type, so wrapping the sink (metrics)
// does not change it.
func (sf *sinkFlags) workers(n int) int {
	if n > 0 {
		return n
	}
	return play.Workers(sf.Kafka())
}

// open opens the sink, serving its metrics with --metrics-addr; Kafka checks (or with
// --create-topics creates) the topics of want. Warnings go to stderr, bad options are usage
// errors.
func (sf *sinkFlags) open(ctx context.Context, sio *stdio, want map[string]int32) (sink.Sink, error) {
	return withMetrics(sf.verb, sf.metricsAddr, sio.err, func(extra ...sink.Opt) (sink.Sink, error) {
		s, err := sf.Open(ctx, sio.out, want, func(w string) { fmt.Fprintf(sio.err, "clickgen: warning: %s\n", w) }, extra...)
		var ce *sink.ConfigError
		if errors.As(err, &ce) {
			return nil, usagef(sf.verb, "%v", ce.Err)
		}
		return s, err
	})
}

// garbageFlags add malformed messages and redeliveries to the clean streams. The flags fill
// the garbage settings directly; --garbage-mix is parsed when it is set.
type garbageFlags struct {
	fs *pflag.FlagSet
	g  world.Garbage
}

func addGarbageFlags(fs *pflag.FlagSet) *garbageFlags {
	gf := &garbageFlags{fs: fs}
	fs.Float64Var(&gf.g.Rate, "garbage", 0, "add this many malformed messages per clean message (0.01 = one in a hundred)")
	fs.Var(&gf.g.Mix, "garbage-mix", "weights of garbage classes, e.g. not_an_object=2,keyset_mismatch=1,field_invalid=1; classes: "+
		strings.Join(world.AllGarbageClasses(), ", ")+" (accepted_bad and vanishing only when named)")
	fs.Float64Var(&gf.g.Redeliver, "redeliver", 0, "add this many byte-identical re-sends per clean message (at-least-once delivery)")
	return gf
}

func (gf *garbageFlags) resolve() (world.Garbage, error) {
	if gf.fs.Changed("garbage-mix") && gf.g.Rate == 0 {
		return gf.g, usagef(gf.fs.Name(), "--garbage-mix without --garbage: the mix weighs garbage that is not being made")
	}
	if err := gf.g.Validate(); err != nil {
		return gf.g, usagef(gf.fs.Name(), "%v", err)
	}
	return gf.g, nil
}

// addMaxRateFlag adds --max-rate, a ceiling on the rate; zero (the default) means none.
func addMaxRateFlag(fs *pflag.FlagSet, r *pace.Rate, usage string) {
	fs.Var(r, "max-rate", usage)
	// No ceiling is the zero Rate, whose String is "0/s"; the help should not offer it as a
	// default rate.
	fs.Lookup("max-rate").DefValue = ""
}
