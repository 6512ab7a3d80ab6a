package profiles

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/world"
)

// A profile's sections as command-line flags. The verbs that play without a profile (batch,
// live, snapshot, inventory, verify, inject) register the pieces they need, in the order
// their help lists them, and fall back to the stand's environment variables; `clickgen run`
// turns the same flags into [Overrides] ([RunFlags]). Every error is the caller's mistake,
// worded as the command line spells it (--seed), for the caller to report as a usage error.
// The environment is read only through the LookupEnv the caller passes (os.LookupEnv); an
// empty value counts as unset, so a scheduler template that renders an unset variable as ""
// does not make GENERATOR_DAY= mean day 0.

// LookupEnv is how the flags read the environment: os.LookupEnv, or a test's map.
type LookupEnv func(name string) (string, bool)

// The stand's environment variables the flags fall back to.
const (
	SeedEnv     = "GENERATOR_SEED"
	CatalogEnv  = "GENERATOR_CATALOG"
	DayEnv      = "GENERATOR_DAY"
	DaysEnv     = "GENERATOR_DAYS"
	SegmentEnv  = "CLICKGEN_SEGMENT"
	JobIndexEnv = "JOB_COMPLETION_INDEX" // set in each pod of a Kubernetes Indexed Job: 0 … completions−1
)

// WorldFlags choose the world: --seed, --scale, --max-memory and --catalog.
type WorldFlags struct {
	Seed      uint64
	Scale     float64
	MaxMemory play.Bytes // 0: only the cgroup's limit and the available memory apply
	Catalog   string     // a catalog CSV file; "" is the embedded catalog
	// Workers is the number of render workers the run will use (0: GOMAXPROCS), counted in the
	// memory check; the verb sets it from its --workers before NewWorld.
	Workers int
	fs      *pflag.FlagSet
}

// AddWorldFlags registers the world's flags on fs: the canonical seed and scale 1 by default.
func AddWorldFlags(fs *pflag.FlagSet) *WorldFlags {
	wf := &WorldFlags{fs: fs}
	fs.Uint64Var(&wf.Seed, "seed", world.CanonicalSeed, "world seed (env "+SeedEnv+")")
	fs.Float64Var(&wf.Scale, "scale", 1, "multiply the inflow of new visitors (and events per day) by this factor")
	fs.Var(&wf.MaxMemory, "max-memory", "refuse the run if its estimated memory exceeds this `SIZE` (e.g. 4GiB); the cgroup limit and available memory always apply")
	fs.StringVar(&wf.Catalog, "catalog", "", "catalog CSV `FILE` (sku,name,category,brand,price[,demand]) instead of the embedded one (env "+CatalogEnv+")")
	return wf
}

// World builds the world the flags choose, after the fallbacks GENERATOR_SEED and
// GENERATOR_CATALOG: a zero seed, a scale that is not positive or a catalog that cannot be
// read or parsed is an error (naming the line and column of a bad file).
func (wf *WorldFlags) World(env LookupEnv) (*world.World, error) {
	return wf.world(env, nil)
}

// world is World, calling check (if not nil) with the run's footprint once the catalog is
// parsed and before the world is built.
func (wf *WorldFlags) world(env LookupEnv, check func(world.Footprint) error) (*world.World, error) {
	if err := SetFromEnv(wf.fs, env, "seed", SeedEnv); err != nil {
		return nil, err
	}
	if err := SetFromEnv(wf.fs, env, "catalog", CatalogEnv); err != nil {
		return nil, err
	}
	if wf.Seed == 0 {
		return nil, fmt.Errorf("--seed 0: %w", world.ErrZeroSeed)
	}
	if wf.Scale <= 0 {
		return nil, fmt.Errorf("--scale %v: want a positive factor", wf.Scale)
	}
	c, size, err := loadCatalog("--catalog", wf.Catalog)
	if err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(catalogFootprint(world.Footprint{Scale: wf.Scale, Workers: wf.Workers}, c, size)); err != nil {
			return nil, err
		}
	}
	return world.NewWorld(world.Params{Seed: wf.Seed, Scale: wf.Scale, Catalog: c})
}

// catalogFootprint is f with catalog c (nil: the embedded one) read from a file of size bytes.
func catalogFootprint(f world.Footprint, c *world.Catalog, size int) world.Footprint {
	if c != nil {
		f.Products, f.CatalogBytes = len(c.Products), size
	}
	return f
}

// LoadCatalog reads and parses the catalog file at path (nil for ""); an error names what
// (the flag or profile field) and, for a bad file, the path, line and column.
func LoadCatalog(what, path string) (*world.Catalog, error) {
	c, _, err := loadCatalog(what, path)
	return c, err
}

// loadCatalog is LoadCatalog, returning the file's size too. A file larger than
// world.MaxCatalogBytes is refused before it is read.
func loadCatalog(what, path string) (*world.Catalog, int, error) {
	if path == "" {
		return nil, 0, nil
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Size() > world.MaxCatalogBytes {
		return nil, 0, fmt.Errorf("%s %s: %d bytes, want at most %d (256 MiB)", what, path, fi.Size(), world.MaxCatalogBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %v", what, err)
	}
	c, err := world.ParseCatalog(data)
	if err != nil {
		return nil, 0, fmt.Errorf("%s %s: %v", what, path, err)
	}
	return c, len(data), nil
}

// CheckMemory refuses, before anything is built or sent, a run at scale with garbage g whose
// estimated memory ([world.MemoryNeeded]) does not fit under max (--max-memory), the cgroup's
// limit, the address-space limit or the system's available memory ([play.CheckMemory]).
// --scale 1000 used to draw 24 GB and set off the OOM killer.
func CheckMemory(scale float64, g world.Garbage, max play.Bytes) error {
	return CheckFootprint(world.Footprint{Scale: scale, Garbage: g}, max)
}

// CheckFootprint is [CheckMemory] for the whole footprint of a run ([world.Footprint.Need]):
// its scale and garbage, its render workers and its catalog, each named in the refusal when
// it adds memory.
func CheckFootprint(f world.Footprint, max play.Bytes) error {
	var me *play.MemoryError
	if err := play.CheckMemory(f.Need(), max); errors.As(err, &me) {
		if me.Source == "the explicit limit" {
			me.Source = "--max-memory"
		}
		note, lower := "", []string{"--scale", "--garbage"}
		if g := f.Garbage; g.Rate != 0 || g.Redeliver != 0 {
			note = fmt.Sprintf(" with --garbage %v --redeliver %v", g.Rate, g.Redeliver)
		}
		if (world.Footprint{Scale: f.Scale, Workers: f.Workers}).Need() > world.MemoryNeeded(f.Scale, world.Garbage{}) {
			note += fmt.Sprintf(" with --workers %d", f.Workers)
			lower = append(lower, "--workers")
		}
		if f.Products > 0 {
			note += fmt.Sprintf(" with a catalog of %d products (%d bytes)", f.Products, f.CatalogBytes)
			lower = append(lower, "the catalog")
		}
		last := len(lower) - 1
		return fmt.Errorf("--scale %v%s %v: lower %s or %s, or raise --max-memory", f.Scale, note, err, strings.Join(lower[:last], ", "), lower[last])
	}
	return nil
}

// DayFlags are --day and --days: the first model day and how many run days.
type DayFlags struct {
	Day  int
	Days int // 1 unless --days is registered and given
	fs   *pflag.FlagSet
}

// AddDayFlags registers --day and, unless daysHelp is empty (live plays one day), --days
// with daysHelp as its help.
func AddDayFlags(fs *pflag.FlagSet, daysHelp string) *DayFlags {
	df := &DayFlags{fs: fs, Days: 1}
	fs.IntVar(&df.Day, "day", 0, "first model day D (0 = Monday 2026-06-01); required (env "+DayEnv+")")
	if daysHelp != "" {
		fs.IntVar(&df.Days, "days", 1, daysHelp+" (env "+DaysEnv+")")
	}
	return df
}

// Resolve applies GENERATOR_DAY and GENERATOR_DAYS and checks the days: --day is required
// (there is no default model day), and the range must be one the wire formats can carry.
func (df *DayFlags) Resolve(env LookupEnv) error {
	if err := SetFromEnv(df.fs, env, "day", DayEnv); err != nil {
		return err
	}
	if df.fs.Lookup("days") != nil {
		if err := SetFromEnv(df.fs, env, "days", DaysEnv); err != nil {
			return err
		}
	}
	switch {
	case !df.fs.Changed("day"):
		return errors.New("--day is required (there is no default model day)")
	case df.Day < 0:
		return fmt.Errorf("--day %d: model days start at 0", df.Day)
	case df.Days < 1:
		return fmt.Errorf("--days %d: want at least 1", df.Days)
	}
	return CheckDays(df.Day, df.Days)
}

// CheckDays refuses model days the wire formats cannot carry (see [world.MaxDay]):
// --day 9223372036854775807 used to exit 0 having sent nothing, and from day 29 105 on
// UTCEventTime wrapped to 1970.
func CheckDays(from, n int) error {
	if err := world.CheckDays(from, n); err != nil {
		return fmt.Errorf("--day/--days: %v", err)
	}
	return nil
}

// GarbageFlags add malformed messages and redeliveries to the clean streams: --garbage,
// --garbage-mix and --redeliver fill the garbage settings directly.
type GarbageFlags struct {
	Garbage world.Garbage
	fs      *pflag.FlagSet
}

// AddGarbageFlags registers the garbage flags on fs; by default there is no garbage.
func AddGarbageFlags(fs *pflag.FlagSet) *GarbageFlags {
	gf := &GarbageFlags{fs: fs}
	fs.Float64Var(&gf.Garbage.Rate, "garbage", 0, "add this many malformed messages per clean message (0.01 = one in a hundred)")
	fs.Var(&gf.Garbage.Mix, "garbage-mix", "weights of garbage classes, e.g. not_an_object=2,keyset_mismatch=1,field_invalid=1; classes: "+
		strings.Join(world.AllGarbageClasses(), ", ")+" (accepted_bad and vanishing only when named)")
	fs.Float64Var(&gf.Garbage.Redeliver, "redeliver", 0, "add this many byte-identical re-sends per clean message (at-least-once delivery)")
	return gf
}

// Resolve returns the garbage settings, validated; a mix without a rate is refused (it
// weighs garbage that is not being made).
func (gf *GarbageFlags) Resolve() (world.Garbage, error) {
	if gf.fs.Changed("garbage-mix") && gf.Garbage.Rate == 0 {
		return gf.Garbage, errors.New("--garbage-mix without --garbage: the mix weighs garbage that is not being made")
	}
	return gf.Garbage, gf.Garbage.Validate()
}

// SegmentFlags choose the share of the run a process plays: --segment I/N (env
// CLICKGEN_SEGMENT), or --segments N with I from JOB_COMPLETION_INDEX, as a Kubernetes
// Indexed Job of N completions runs it.
type SegmentFlags struct {
	segment  world.Segment
	segments int
	fs       *pflag.FlagSet
}

// AddSegmentFlags registers --segment and --segments on fs; by default a process plays the
// whole run.
func AddSegmentFlags(fs *pflag.FlagSet) *SegmentFlags {
	sf := &SegmentFlags{fs: fs}
	fs.Var(&sf.segment, "segment", "play segment `I/N` of the run: the messages whose key hashes to I of N, in the run's order; N processes with 0/N … N−1/N send the run exactly once (env "+SegmentEnv+")")
	fs.IntVar(&sf.segments, "segments", 0, "play segment I/`N` with I from env "+JobIndexEnv+", as a Kubernetes Indexed Job of N completions sets it")
	fs.Lookup("segment").DefValue = ""
	return sf
}

// Resolve returns the segment the flags and environment choose: --segment, then
// CLICKGEN_SEGMENT, then --segments with JOB_COMPLETION_INDEX. The zero Segment is the
// whole run.
func (sf *SegmentFlags) Resolve(env LookupEnv) (world.Segment, error) {
	if sf.fs.Changed("segment") && sf.fs.Changed("segments") {
		return world.Segment{}, errors.New("both --segment and --segments given: choose one")
	}
	if !sf.fs.Changed("segments") {
		if err := SetFromEnv(sf.fs, env, "segment", SegmentEnv); err != nil {
			return world.Segment{}, err
		}
		return sf.segment, nil
	}
	if v, ok := env(SegmentEnv); ok && v != "" {
		// Two sources of the segment: the environment used to lose silently.
		return world.Segment{}, fmt.Errorf("both env %s=%q and --segments %d given: choose one", SegmentEnv, v, sf.segments)
	}
	if sf.segments < 1 {
		return world.Segment{}, fmt.Errorf("--segments %d: want at least 1", sf.segments)
	}
	v, ok := env(JobIndexEnv)
	if !ok {
		return world.Segment{}, fmt.Errorf("--segments %d needs env %s (set by a Kubernetes Indexed Job)", sf.segments, JobIndexEnv)
	}
	i, err := strconv.Atoi(v)
	if err != nil {
		return world.Segment{}, fmt.Errorf("env %s=%q: want an index", JobIndexEnv, v)
	}
	s := world.Segment{I: i, N: sf.segments}
	if err := s.Validate(); err != nil {
		return world.Segment{}, fmt.Errorf("env %s=%q with --segments %d: %v", JobIndexEnv, v, sf.segments, err)
	}
	return s, nil
}

// PlayFlags are the flags of the verbs that play model days without a profile (batch, live,
// snapshot, inventory): the world, the days, garbage and the segment, registered in that
// order. [PlayFlags.Resolve] fills in Garbage and Segment.
type PlayFlags struct {
	World        *WorldFlags
	Days         *DayFlags
	GarbageFlags *GarbageFlags
	SegmentFlags *SegmentFlags
	Garbage      world.Garbage // the garbage settings, once resolved
	Segment      world.Segment // the share of the run to play, once resolved
}

// AddPlayFlags registers the world's, the days', the garbage and the segment flags on fs;
// daysHelp is --days' help, or "" for a verb that plays one day ([AddDayFlags]).
func AddPlayFlags(fs *pflag.FlagSet, daysHelp string) *PlayFlags {
	pf := &PlayFlags{World: AddWorldFlags(fs), Days: AddDayFlags(fs, daysHelp)}
	pf.GarbageFlags = AddGarbageFlags(fs)
	pf.SegmentFlags = AddSegmentFlags(fs)
	return pf
}

// Resolve applies the environment's fallbacks and checks the flags in the order the verbs
// report mistakes: the days, then check (the verb's own flags; nil for none), then the
// segment and the garbage. An error from check is returned as it is.
func (pf *PlayFlags) Resolve(env LookupEnv, check func() error) error {
	if err := pf.Days.Resolve(env); err != nil {
		return err
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	var err error
	if pf.Segment, err = pf.SegmentFlags.Resolve(env); err != nil {
		return err
	}
	pf.Garbage, err = pf.GarbageFlags.Resolve()
	return err
}

// NewWorld builds the world the flags choose ([WorldFlags.World]) for a run with the
// resolved garbage, refusing first a run whose memory cannot fit ([CheckMemory] with
// --max-memory).
func (pf *PlayFlags) NewWorld(env LookupEnv) (*world.World, error) {
	return pf.World.NewWorld(env, pf.Garbage)
}

// NewWorld builds the world the flags choose ([WorldFlags.World]) for a run with garbage g,
// refusing first a run whose memory cannot fit ([CheckMemory] with --max-memory): a verb that
// builds days (playing, verify, inject) calls it before it builds any.
func (wf *WorldFlags) NewWorld(env LookupEnv, g world.Garbage) (*world.World, error) {
	f := world.Footprint{Scale: wf.Scale, Garbage: g, Workers: wf.Workers}
	if err := CheckFootprint(f, wf.MaxMemory); err != nil {
		return nil, err // before the catalog is read: --scale alone may not fit
	}
	return wf.world(env, func(c world.Footprint) error {
		c.Garbage = g
		return CheckFootprint(c, wf.MaxMemory)
	})
}

// SetFromEnv sets flag on fs from the environment variable name when the command line did
// not set it and the variable is set to something (an empty value counts as unset). A value
// that does not parse is an error naming the variable and its value. The verbs use it for
// their own fallbacks (GENERATOR_SPEED, GENERATOR_LIMIT).
func SetFromEnv(fs *pflag.FlagSet, env LookupEnv, flag, name string) error {
	if fs.Changed(flag) {
		return nil
	}
	v, ok := env(name)
	if !ok || v == "" {
		return nil
	}
	if err := fs.Set(flag, v); err != nil {
		return fmt.Errorf("environment variable %s=%q: %v", name, v, err)
	}
	return nil
}
