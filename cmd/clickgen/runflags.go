package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/pace"
	"github.com/clickgen/clickgen/generator/world"
	"github.com/clickgen/clickgen/profiles"
)

// runFlags are the flags of `clickgen run`: which profile (a name as the one argument, or
// --profile-file), and a flag for every field a user overrides, named after it in its help
// (--seed is world.seed). runFlags.profile loads the profile and applies the flags that were
// given as profiles.Overrides.
type runFlags struct {
	profileFile string
	world       *worldFlags
	days        *dayFlags
	send        string
	pace        string
	speed       float64
	rate        pace.Shape
	maxRate     pace.Rate
	duration    time.Duration
	messages    int64
	interval    time.Duration // how often a paced run prints a progress line
	workers     int           // render workers; 0 lets the caller choose
	garbage     *garbageFlags
	segment     *segmentFlags
	fs          *pflag.FlagSet
}

// addRunFlags registers run's flags on fs. more registers the caller's own flags (the sink's)
// after the garbage flags and before the segment flags, where run's help lists them.
func addRunFlags(fs *pflag.FlagSet, more func(*pflag.FlagSet)) *runFlags {
	rf := &runFlags{fs: fs}
	fs.StringVar(&rf.profileFile, "profile-file", "", "play the profile in this YAML `FILE` instead of an embedded one (format: 'clickgen profiles show fill')")
	rf.world = addWorldFlags(fs)
	rf.days = addDayFlags(fs, "number of run days (play.days; ends play.endless)")
	fs.StringVar(&rf.send, "send", "", "what to send (play.send): hits, snapshots or hits+snapshots")
	fs.StringVar(&rf.pace, "pace", "", "pacing mode (pacing.mode): none, replay or rate; --speed implies replay, --rate implies rate")
	fs.Float64Var(&rf.speed, "speed", 0, "replay speed in model seconds per real second (pacing.speed; 60 plays a day in 24 min)")
	fs.Var(&rf.rate, "rate", "rate `SHAPE` (pacing.rate), e.g. 20000/s or ramp:1000/s-20000/s:30s, see above")
	addMaxRateFlag(fs, &rf.maxRate, "a ceiling on the hits' rate on top of any pacing, e.g. 50000/s (pacing.max_rate)")
	fs.DurationVar(&rf.duration, "duration", 0, "stop sending after this long, e.g. 30s (stop.duration)")
	fs.Int64Var(&rf.messages, "messages", 0, "stop after this many hit messages (stop.messages)")
	fs.DurationVar(&rf.interval, "interval", 5*time.Second, "how often a paced run prints a progress line (at least 100ms)")
	fs.IntVar(&rf.workers, "workers", 0, "days are generated on this many cores; 0 means all")
	rf.garbage = addGarbageFlags(fs)
	if more != nil {
		more(fs)
	}
	rf.segment = addSegmentFlags(fs)
	// The shared flags speak of the stand's environment variables; run reads only
	// GENERATOR_CATALOG (see profile).
	for name, u := range map[string]string{
		"seed":    "world seed (world.seed)",
		"scale":   "multiply the inflow of new visitors (and events per day) by this factor (world.scale)",
		"catalog": "catalog CSV `FILE` (sku,name,category,brand,price[,demand]) instead of the embedded one (world.catalog; env " + catalogEnv + ")",
		"day":     "first model day D, 0 = Monday 2026-06-01 (play.day)",
		"days":    "number of run days (play.days; ends play.endless)",
	} {
		fs.Lookup(name).Usage = u
	}
	return rf
}

// addMaxRateFlag registers --max-rate, a ceiling on the rate; zero (the default) means none.
func addMaxRateFlag(fs *pflag.FlagSet, r *pace.Rate, usage string) {
	fs.Var(r, "max-rate", usage)
	// No ceiling is the zero Rate, whose String is "0/s"; the help should not offer it as a
	// default rate.
	fs.Lookup("max-rate").DefValue = ""
}

// profile loads the profile the arguments name (the default one if none) or --profile-file,
// applies the flags that were given, fills in the defaults and checks the days. It returns
// the segment to play too. GENERATOR_CATALOG is the one stand variable run reads: an image
// with a baked catalog plays it in every verb. Errors name the flags.
func (rf *runFlags) profile(ctx context.Context, env envLookup) (profiles.Profile, world.Segment, error) {
	fs := rf.fs
	var p profiles.Profile
	var seg world.Segment
	var err error
	switch {
	case fs.NArg() > 1:
		return p, seg, fmt.Errorf("unexpected argument %q: one profile at most", fs.Arg(1))
	case fs.NArg() == 1 && rf.profileFile != "":
		return p, seg, fmt.Errorf("both profile %s and --profile-file given: choose one", fs.Arg(0))
	case rf.profileFile != "":
		p, err = profiles.LoadFile(ctx, rf.profileFile)
	default:
		name := profiles.Default
		if fs.NArg() == 1 {
			name = fs.Arg(0)
		}
		p, err = profiles.Load(name)
	}
	if err != nil {
		return p, seg, flagNamed(err)
	}
	what := "profile " + p.Name
	if rf.profileFile != "" {
		what = rf.profileFile
	}
	if err := setFromEnv(fs, env, "catalog", catalogEnv); err != nil {
		return p, seg, err
	}
	p, err = p.Apply(rf.overrides())
	var invalid *profiles.InvalidError
	switch {
	case errors.As(err, &invalid):
		return p, seg, fmt.Errorf("%s: %w", what, err)
	case err != nil:
		return p, seg, flagNamed(err)
	}
	if err := checkEvery("--interval", rf.interval); err != nil {
		return p, seg, err
	}
	if seg, err = rf.segment.resolve(env); err != nil {
		return p, seg, err
	}
	p = p.WithDefaults()
	days := p.Play.Days
	if p.Play.Endless {
		days = 1 // the first day; an endless run stops by a condition
	}
	return p, seg, flagNamed(profiles.CheckDays(p.Play.Day, days))
}

// overrides are the flags that were set, as changes to the profile.
func (rf *runFlags) overrides() profiles.Overrides {
	fs, g := rf.fs, &rf.garbage.garbage
	return profiles.Overrides{
		Seed:        ifSet(fs, "seed", &rf.world.seed),
		Scale:       ifSet(fs, "scale", &rf.world.scale),
		Catalog:     ifSet(fs, "catalog", &rf.world.catalog),
		Day:         ifSet(fs, "day", &rf.days.day),
		Days:        ifSet(fs, "days", &rf.days.days),
		Send:        ifSet(fs, "send", &rf.send),
		Pace:        ifSet(fs, "pace", &rf.pace),
		Speed:       ifSet(fs, "speed", &rf.speed),
		Rate:        ifSet(fs, "rate", &rf.rate),
		MaxRate:     ifSet(fs, "max-rate", &rf.maxRate),
		GarbageRate: ifSet(fs, "garbage", &g.Rate),
		Mix:         ifSet(fs, "garbage-mix", &g.Mix),
		Redeliver:   ifSet(fs, "redeliver", &g.Redeliver),
		Duration:    ifSet(fs, "duration", &rf.duration),
		Messages:    ifSet(fs, "messages", &rf.messages),
	}
}

// ifSet returns v if flag was set on the command line, else nil.
func ifSet[T any](fs *pflag.FlagSet, flag string, v *T) *T {
	if fs.Changed(flag) {
		return v
	}
	return nil
}
