package profiles

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/pace"
	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/world"
)

// RunFlags are the flags of `clickgen run`: which profile (a name as the one argument, or
// --profile-file), and a flag for every field a user overrides, named after it in its help
// (--seed is world.seed). [RunFlags.Profile] loads the profile and applies the flags that were
// given as [Overrides].
type RunFlags struct {
	ProfileFile string
	World       *WorldFlags
	Days        *DayFlags
	Send        string
	Pace        string
	Speed       float64
	Rate        pace.Shape
	MaxRate     pace.Rate
	Duration    time.Duration
	Messages    int64
	Interval    time.Duration // how often a paced run prints a progress line
	Workers     int           // render workers; 0 lets the caller choose
	Garbage     *GarbageFlags
	Segment     *SegmentFlags
	fs          *pflag.FlagSet
}

// AddRunFlags registers run's flags on fs. more registers the caller's own flags (the sink's)
// after the garbage flags and before the segment flags, where run's help lists them.
func AddRunFlags(fs *pflag.FlagSet, more func(*pflag.FlagSet)) *RunFlags {
	rf := &RunFlags{fs: fs}
	fs.StringVar(&rf.ProfileFile, "profile-file", "", "play the profile in this YAML `FILE` instead of an embedded one (format: 'clickgen profiles show fill')")
	rf.World = AddWorldFlags(fs)
	rf.Days = AddDayFlags(fs, "number of run days (play.days; ends play.endless)")
	fs.StringVar(&rf.Send, "send", "", "what to send (play.send): hits, snapshots or hits+snapshots")
	fs.StringVar(&rf.Pace, "pace", "", "pacing mode (pacing.mode): none, replay or rate; --speed implies replay, --rate implies rate")
	fs.Float64Var(&rf.Speed, "speed", 0, "replay speed in model seconds per real second (pacing.speed; 60 plays a day in 24 min)")
	fs.Var(&rf.Rate, "rate", "rate `SHAPE` (pacing.rate), e.g. 20000/s or ramp:1000/s-20000/s:30s, see above")
	AddMaxRateFlag(fs, &rf.MaxRate, "a ceiling on the hits' rate on top of any pacing, e.g. 50000/s (pacing.max_rate)")
	fs.DurationVar(&rf.Duration, "duration", 0, "stop sending after this long, e.g. 30s (stop.duration)")
	fs.Int64Var(&rf.Messages, "messages", 0, "stop after this many hit messages (stop.messages)")
	fs.DurationVar(&rf.Interval, "interval", 5*time.Second, "how often a paced run prints a progress line (at least 100ms)")
	fs.IntVar(&rf.Workers, "workers", 0, "days are generated on this many cores; 0 means all")
	rf.Garbage = AddGarbageFlags(fs)
	if more != nil {
		more(fs)
	}
	rf.Segment = AddSegmentFlags(fs)
	// The shared flags speak of the stand's environment variables; run reads only
	// GENERATOR_CATALOG (see Profile).
	for name, u := range map[string]string{
		"seed":    "world seed (world.seed)",
		"scale":   "multiply the inflow of new visitors (and events per day) by this factor (world.scale)",
		"catalog": "catalog CSV `FILE` (sku,name,category,brand,price[,demand]) instead of the embedded one (world.catalog; env " + CatalogEnv + ")",
		"day":     "first model day D, 0 = Monday 2026-06-01 (play.day)",
		"days":    "number of run days (play.days; ends play.endless)",
	} {
		fs.Lookup(name).Usage = u
	}
	return rf
}

// AddMaxRateFlag registers --max-rate, a ceiling on the rate; zero (the default) means none.
func AddMaxRateFlag(fs *pflag.FlagSet, r *pace.Rate, usage string) {
	fs.Var(r, "max-rate", usage)
	// No ceiling is the zero Rate, whose String is "0/s"; the help should not offer it as a
	// default rate.
	fs.Lookup("max-rate").DefValue = ""
}

// Profile loads the profile the arguments name (the default one if none) or --profile-file,
// applies the flags that were given, fills in the defaults and checks the days. It returns
// the segment to play too. GENERATOR_CATALOG is the one stand variable run reads: an image
// with a baked catalog plays it in every verb.
func (rf *RunFlags) Profile(env LookupEnv) (Profile, world.Segment, error) {
	fs := rf.fs
	var p Profile
	var seg world.Segment
	var err error
	switch {
	case fs.NArg() > 1:
		return p, seg, fmt.Errorf("unexpected argument %q: one profile at most", fs.Arg(1))
	case fs.NArg() == 1 && rf.ProfileFile != "":
		return p, seg, fmt.Errorf("both profile %s and --profile-file given: choose one", fs.Arg(0))
	case rf.ProfileFile != "":
		p, err = LoadFile(rf.ProfileFile)
	default:
		name := Default
		if fs.NArg() == 1 {
			name = fs.Arg(0)
		}
		p, err = Load(name)
	}
	if err != nil {
		return p, seg, err
	}
	what := "profile " + p.Name
	if rf.ProfileFile != "" {
		what = rf.ProfileFile
	}
	if err := SetFromEnv(fs, env, "catalog", CatalogEnv); err != nil {
		return p, seg, err
	}
	p, err = p.Apply(rf.overrides())
	var invalid *InvalidError
	switch {
	case errors.As(err, &invalid):
		return p, seg, fmt.Errorf("%s: %w", what, err)
	case err != nil:
		return p, seg, err
	case rf.Interval < play.MinProgressEvery:
		return p, seg, fmt.Errorf("--interval %v: want at least %v", rf.Interval, play.MinProgressEvery)
	}
	if seg, err = rf.Segment.Resolve(env); err != nil {
		return p, seg, err
	}
	p = p.WithDefaults()
	days := p.Play.Days
	if p.Play.Endless {
		days = 1 // the first day; an endless run stops by a condition
	}
	return p, seg, CheckDays(p.Play.Day, days)
}

// overrides are the flags that were set, as changes to the profile.
func (rf *RunFlags) overrides() Overrides {
	fs, g := rf.fs, &rf.Garbage.Garbage
	return Overrides{
		Seed:        ifSet(fs, "seed", &rf.World.Seed),
		Scale:       ifSet(fs, "scale", &rf.World.Scale),
		Catalog:     ifSet(fs, "catalog", &rf.World.Catalog),
		Day:         ifSet(fs, "day", &rf.Days.Day),
		Days:        ifSet(fs, "days", &rf.Days.Days),
		Send:        ifSet(fs, "send", &rf.Send),
		Pace:        ifSet(fs, "pace", &rf.Pace),
		Speed:       ifSet(fs, "speed", &rf.Speed),
		Rate:        ifSet(fs, "rate", &rf.Rate),
		MaxRate:     ifSet(fs, "max-rate", &rf.MaxRate),
		GarbageRate: ifSet(fs, "garbage", &g.Rate),
		Mix:         ifSet(fs, "garbage-mix", &g.Mix),
		Redeliver:   ifSet(fs, "redeliver", &g.Redeliver),
		Duration:    ifSet(fs, "duration", &rf.Duration),
		Messages:    ifSet(fs, "messages", &rf.Messages),
	}
}

// ifSet returns v if flag was set on the command line, else nil.
func ifSet[T any](fs *pflag.FlagSet, flag string, v *T) *T {
	if fs.Changed(flag) {
		return v
	}
	return nil
}

// LoadFile reads and parses a user's profile file ([ParseFile]); errors name the file (as
// --profile-file) and the field. A file without a name is named after the file.
func LoadFile(path string) (Profile, error) {
	p, _, err := loadFile(path)
	return p, err
}

// SourceFile returns the text of the user's profile file at path as it is, comments
// included, once it has passed [LoadFile]'s checks and its world.catalog, if any, has been
// read and parsed as a run reads it (a missing catalog or a directory used to pass);
// errors are LoadFile's, or name --profile-file and world.catalog.
func SourceFile(path string) ([]byte, error) {
	p, data, err := loadFile(path)
	if err != nil {
		return nil, err
	}
	if _, err := LoadCatalog("world.catalog", p.World.Catalog); err != nil {
		return nil, fmt.Errorf("--profile-file %s: %w", path, err)
	}
	return data, nil
}

// loadFile is LoadFile, returning the file's text too.
func loadFile(path string) (Profile, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return Profile{}, nil, fmt.Errorf("--profile-file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return Profile{}, nil, fmt.Errorf("--profile-file: %w", err)
	}
	if len(data) > maxFileSize {
		return Profile{}, nil, fmt.Errorf("--profile-file %s: larger than 1 MiB: a profile is a few dozen lines", path)
	}
	p, err := ParseFile(data)
	if err != nil {
		return Profile{}, nil, fmt.Errorf("--profile-file %s: %w", path, err)
	}
	if p.Name == "" {
		base := path[strings.LastIndexAny(path, `/\`)+1:]
		p.Name = strings.TrimSuffix(strings.TrimSuffix(base, ".yaml"), ".yml")
	}
	return p, data, nil
}

// NewWorld builds p's world, refusing first a run whose memory cannot fit ([CheckFootprint]
// with max, for workers render workers and p's catalog) and a catalog that cannot be read
// (named as profile field catalog).
func (p Profile) NewWorld(max play.Bytes, workers int) (*world.World, error) {
	f := world.Footprint{Scale: p.World.Scale, Garbage: p.Garbage, Workers: workers}
	if err := CheckFootprint(f, max); err != nil {
		return nil, err
	}
	c, size, err := loadCatalog("catalog", p.World.Catalog)
	if err != nil {
		return nil, err
	}
	if err := CheckFootprint(catalogFootprint(f, c, size), max); err != nil {
		return nil, err
	}
	return world.NewWorld(world.Params{Seed: p.World.Seed, Scale: p.World.Scale, Catalog: c})
}

// WriteList writes the embedded profiles to w, one a line with its description, the default
// one marked, in columns.
func WriteList(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, name := range List() {
		p, err := Load(name)
		if err != nil {
			return err // an embedded profile is broken: a bug, caught by the tests
		}
		def := ""
		if name == Default {
			def = " (default)"
		}
		fmt.Fprintf(tw, "%s%s\t%s\n", name, def, p.Description)
	}
	return tw.Flush()
}
