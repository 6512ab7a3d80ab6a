package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/sysmem"
	"github.com/clickgen/clickgen/generator/world"
	"github.com/clickgen/clickgen/profiles"
)

// A profile's sections as command-line flags. The stand's verbs (batch, live, snapshot,
// inventory, verify, inject) register the pieces they need, in the order their help lists
// them, and fall back to the stand's environment variables; batch, live, snapshot and
// inventory turn them into profiles.Overrides of their built-in profile (playFlags), as
// `clickgen run` turns the same flags into overrides of the profile it plays (runFlags). Every error is the caller's
// mistake, worded as the command line spells it (--seed), for the verb to report as a usage
// error. The environment is read only through the envLookup the verb passes (os.LookupEnv).

// The stand's environment variables the flags fall back to.
const (
	seedEnv     = "GENERATOR_SEED"
	catalogEnv  = "GENERATOR_CATALOG"
	dayEnv      = "GENERATOR_DAY"
	daysEnv     = "GENERATOR_DAYS"
	segmentEnv  = "CLICKGEN_SEGMENT"
	jobIndexEnv = "JOB_COMPLETION_INDEX" // set in each pod of a Kubernetes Indexed Job: 0 … completions−1
)

// worldFlags choose the world: --seed, --scale, --max-memory and --catalog.
type worldFlags struct {
	seed      uint64
	scale     float64
	maxMemory profiles.Bytes // 0: only the cgroup's limit and the available memory apply
	catalog   string         // a catalog CSV file; "" is the embedded catalog
	// workers is the number of render workers the run will use (0: GOMAXPROCS), counted in the
	// memory check; the verb sets it from its --workers before newWorld.
	workers int
	fs      *pflag.FlagSet
}

// addWorldFlags registers the world's flags on fs: the canonical seed and scale 1 by default.
func addWorldFlags(fs *pflag.FlagSet) *worldFlags {
	wf := &worldFlags{fs: fs}
	fs.Uint64Var(&wf.seed, "seed", world.CanonicalSeed, "world seed (env "+seedEnv+")")
	fs.Float64Var(&wf.scale, "scale", 1, "multiply the inflow of new visitors (and events per day) by this factor")
	fs.Var(&wf.maxMemory, "max-memory", "refuse the run if its estimated memory exceeds this `SIZE` (e.g. 4GiB); the cgroup limit and available memory always apply")
	fs.StringVar(&wf.catalog, "catalog", "", "catalog CSV `FILE` (sku,name,category,brand,price[,demand]) instead of the embedded one (env "+catalogEnv+")")
	return wf
}

// resolveEnv applies the fallbacks GENERATOR_SEED and GENERATOR_CATALOG; a verb that plays a
// profile has the values checked as overrides (profiles.Profile.Apply).
func (wf *worldFlags) resolveEnv(env envLookup) error {
	if err := setFromEnv(wf.fs, env, "seed", seedEnv); err != nil {
		return err
	}
	return setFromEnv(wf.fs, env, "catalog", catalogEnv)
}

// newWorld builds the world the flags choose for a verb that reads or injects rather than
// plays (verify, inject), with garbage g, on the road every verb takes: the environment's
// fallbacks, the flags as overrides of the built-in profile profiles.Batch (Apply: the seed
// and the scale checked once, in one wording), then newWorld, the one constructor (scale,
// memory, catalog, soft limit). Every refusal is a usage error of verb, naming the flags.
func (wf *worldFlags) newWorld(ctx context.Context, verb string, env envLookup, g world.Garbage) (*world.World, error) {
	if err := wf.resolveEnv(env); err != nil {
		return nil, usage(verb, err)
	}
	p, err := profiles.Batch().Apply(profiles.Overrides{Seed: &wf.seed, Scale: &wf.scale, Catalog: &wf.catalog})
	if err != nil {
		return nil, usage(verb, flagNamed(err))
	}
	p.Garbage = g
	return newWorld(ctx, verb, p, wf.maxMemory, wf.workers, "--catalog")
}

// dayFlags are --day and --days: the first model day and how many run days.
type dayFlags struct {
	day  int
	days int // 1 unless --days is registered and given
	fs   *pflag.FlagSet
}

// addDayFlags registers --day and, unless daysHelp is empty (live plays one day), --days
// with daysHelp as its help.
func addDayFlags(fs *pflag.FlagSet, daysHelp string) *dayFlags {
	df := &dayFlags{fs: fs, days: 1}
	fs.IntVar(&df.day, "day", 0, "first model day D (0 = Monday 2026-06-01); required (env "+dayEnv+")")
	if daysHelp != "" {
		fs.IntVar(&df.days, "days", 1, daysHelp+" (env "+daysEnv+")")
	}
	return df
}

// resolve applies GENERATOR_DAY and GENERATOR_DAYS and checks that there is a day: --day is
// required (there is no default model day). The values are checked as a profile's
// (profiles.Profile.Apply, profiles.CheckDays), or by check.
func (df *dayFlags) resolve(env envLookup) error {
	if err := setFromEnv(df.fs, env, "day", dayEnv); err != nil {
		return err
	}
	if df.fs.Lookup("days") != nil {
		if err := setFromEnv(df.fs, env, "days", daysEnv); err != nil {
			return err
		}
	}
	if !df.fs.Changed("day") {
		return errors.New("--day is required (there is no default model day)")
	}
	return nil
}

// check refuses days no run plays, as a profile's overrides would (profiles.Profile.Apply,
// profiles.CheckDays), for a verb that plays no profile (verify).
func (df *dayFlags) check() error {
	o := profiles.Overrides{Day: &df.day}
	if df.fs.Lookup("days") != nil {
		o.Days = &df.days
	}
	if _, err := (profiles.Profile{}).Apply(o); err != nil {
		return flagNamed(err)
	}
	return flagNamed(profiles.CheckDays(df.day, df.days))
}

// garbageFlags add malformed messages and redeliveries to the clean streams: --garbage,
// --garbage-mix and --redeliver fill the garbage settings directly.
type garbageFlags struct {
	garbage world.Garbage
	fs      *pflag.FlagSet
}

// addGarbageFlags registers the garbage flags on fs; by default there is no garbage.
func addGarbageFlags(fs *pflag.FlagSet) *garbageFlags {
	gf := &garbageFlags{fs: fs}
	fs.Float64Var(&gf.garbage.Rate, "garbage", 0, "add this many malformed messages per clean message (0.01 = one in a hundred)")
	fs.Var(&gf.garbage.Mix, "garbage-mix", "weights of garbage classes, e.g. not_an_object=2,keyset_mismatch=1,field_invalid=1; classes: "+
		strings.Join(world.AllGarbageClasses(), ", ")+" (accepted_bad and vanishing only when named)")
	fs.Float64Var(&gf.garbage.Redeliver, "redeliver", 0, "add this many byte-identical re-sends per clean message (at-least-once delivery)")
	return gf
}

// resolve returns the garbage settings, validated; a mix without a rate is refused (it
// weighs garbage that is not being made), as run refuses it (profiles.ErrMixWithoutRate).
func (gf *garbageFlags) resolve() (world.Garbage, error) {
	if gf.fs.Changed("garbage-mix") && gf.garbage.Rate == 0 {
		return gf.garbage, flagNamed(profiles.ErrMixWithoutRate)
	}
	return gf.garbage, gf.garbage.Validate()
}

// segmentFlags choose the share of the run a process plays: --segment I/N (env
// CLICKGEN_SEGMENT), or --segments N with I from JOB_COMPLETION_INDEX, as a Kubernetes
// Indexed Job of N completions runs it.
type segmentFlags struct {
	segment  world.Segment
	segments int
	fs       *pflag.FlagSet
}

// addSegmentFlags registers --segment and --segments on fs; by default a process plays the
// whole run.
func addSegmentFlags(fs *pflag.FlagSet) *segmentFlags {
	sf := &segmentFlags{fs: fs}
	fs.Var(&sf.segment, "segment", "play segment `I/N` of the run: the messages whose key hashes to I of N, in the run's order; N processes with 0/N … N−1/N send the run exactly once (env "+segmentEnv+")")
	fs.IntVar(&sf.segments, "segments", 0, "play segment I/`N` with I from env "+jobIndexEnv+", as a Kubernetes Indexed Job of N completions sets it")
	fs.Lookup("segment").DefValue = ""
	return sf
}

// resolve returns the segment the flags and environment choose: --segment, then
// CLICKGEN_SEGMENT, then --segments with JOB_COMPLETION_INDEX. The zero Segment is the
// whole run.
func (sf *segmentFlags) resolve(env envLookup) (world.Segment, error) {
	if sf.fs.Changed("segment") && sf.fs.Changed("segments") {
		return world.Segment{}, errors.New("both --segment and --segments given: choose one")
	}
	if !sf.fs.Changed("segments") {
		if err := setFromEnv(sf.fs, env, "segment", segmentEnv); err != nil {
			return world.Segment{}, err
		}
		return sf.segment, nil
	}
	if v, ok := env(segmentEnv); ok && v != "" {
		// Two sources of the segment: the environment used to lose silently.
		return world.Segment{}, fmt.Errorf("both env %s=%q and --segments %d given: choose one", segmentEnv, v, sf.segments)
	}
	if sf.segments < 1 {
		return world.Segment{}, fmt.Errorf("--segments %d: want at least 1", sf.segments)
	}
	v, ok := env(jobIndexEnv)
	if !ok {
		return world.Segment{}, fmt.Errorf("--segments %d needs env %s (set by a Kubernetes Indexed Job)", sf.segments, jobIndexEnv)
	}
	i, err := strconv.Atoi(v)
	if err != nil {
		return world.Segment{}, fmt.Errorf("env %s=%q: want an index", jobIndexEnv, v)
	}
	s := world.Segment{I: i, N: sf.segments}
	if err := s.Validate(); err != nil {
		return world.Segment{}, fmt.Errorf("env %s=%q with --segments %d: %v", jobIndexEnv, v, sf.segments, err)
	}
	return s, nil
}

// setFromEnv sets flag on fs from the environment variable name when the command line did
// not set it and the variable is set to something (an empty value counts as unset). A value
// that does not parse is an error naming the variable and its value. The verbs use it for
// their own fallbacks (GENERATOR_SPEED, GENERATOR_LIMIT).
func setFromEnv(fs *pflag.FlagSet, env envLookup, flag, name string) error {
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

// flagNames are the flags that carry the values package profiles names by their profile
// field (world.seed) or by what they are (a profile file). A profile's catalog keeps its name
// (it may come from --catalog, GENERATOR_CATALOG or world.catalog): newWorld is told it.
var flagNames = map[string]string{
	"world.seed":         "--seed",
	"world.scale":        "--scale",
	"play.days":          "--days",
	"play.day/play.days": "--day/--days",
	"garbage.mix":        "--garbage-mix",
	"pacing.speed":       "--speed",
	"play.day":           "--day",
	"stop.messages":      "--messages",
	"profile file":       "--profile-file",
	"inventory file":     "--merge",
}

// flagNamed words err, a refusal of package profiles returned as it is (not wrapped), as the
// command line spells it: world.seed 0 becomes --seed 0, a memory refusal names --scale,
// --garbage, --workers and --max-memory, an unknown profile offers --profile-file. The
// result still wraps what err wraps (world.ErrZeroSeed, fs.ErrNotExist). Other errors, and
// nil, are returned as they are.
func flagNamed(err error) error { return flagNamedAs(err, nil) }

// flagNamedAs is flagNamed for a verb whose own flags (names, by profile field) carry some
// fields under other names than flagNames says (batch's --limit is stop.messages).
func flagNamedAs(err error, names map[string]string) error {
	switch e := err.(type) {
	case *profiles.ValueError:
		if errors.Is(e.Err, profiles.ErrModeContradicts) {
			return &reworded{fmt.Sprintf("--pace %s contradicts --speed or --rate", e.Value), e}
		}
		flag, ok := names[e.Name]
		if !ok {
			flag, ok = flagNames[e.Name]
		}
		if ok {
			named := *e
			named.Name = flag
			return &named
		}
	case *profiles.FootprintError:
		return memoryRefusal(e)
	case *profiles.UnknownError:
		return fmt.Errorf("%w, or --profile-file FILE", e)
	}
	switch err {
	case profiles.ErrSpeedAndRate:
		return &reworded{"--speed (replay) and --rate (a rate shape) exclude each other", err}
	case profiles.ErrMixWithoutRate:
		return &reworded{"--garbage-mix without --garbage: the mix weighs garbage that is not being made", err}
	}
	return err
}

// memoryRefusal is a run that cannot fit in memory, naming the flags that set each part of
// its footprint that adds memory, and --max-memory when that is the limit.
func memoryRefusal(e *profiles.FootprintError) error {
	f, limit := e.Footprint, *e.Err
	if limit.Source == sysmem.Explicit {
		limit.Source = "--max-memory"
	}
	note, lower := "", []string{"--scale", "--garbage"}
	if e.GarbageAdds() {
		note = fmt.Sprintf(" with --garbage %v --redeliver %v", f.Garbage.Rate, f.Garbage.Redeliver)
	}
	if e.WorkersAdd() {
		note += fmt.Sprintf(" with --workers %d", f.Workers)
		lower = append(lower, "--workers")
	}
	if f.Products > 0 {
		note += fmt.Sprintf(" with a catalog of %d products (%d bytes)", f.Products, f.CatalogBytes)
		lower = append(lower, "the catalog")
	}
	last := len(lower) - 1
	return &reworded{fmt.Sprintf("--scale %v%s %v: lower %s or %s, or raise --max-memory",
		f.Scale, note, &limit, strings.Join(lower[:last], ", "), lower[last]), e}
}

// reworded is err said in the command's words: errors.Is and errors.As still find err.
type reworded struct {
	text string
	err  error
}

func (r *reworded) Error() string { return r.text }
func (r *reworded) Unwrap() error { return r.err }
