package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/sysmem"
	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/world"
	"github.com/clickgen/clickgen/profiles"
)

// envOf is an envLookup over m.
func envOf(m map[string]string) envLookup {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// parsed returns a flag set with add's flags, parsed from args.
func parsed[T any](t *testing.T, add func(*pflag.FlagSet) T, args ...string) T {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	v := add(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("Parse(%q): %v", args, err)
	}
	return v
}

// errText is err's text, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestSegmentFlagsResolve(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want world.Segment
		err  string
	}{
		{"whole run", nil, nil, world.Segment{}, ""},
		{"flag", nil, []string{"--segment", "1/3"}, world.Segment{I: 1, N: 3}, ""},
		{"flag beats env", map[string]string{segmentEnv: "2/3"}, []string{"--segment", "0/3"}, world.Segment{I: 0, N: 3}, ""},
		{"env", map[string]string{segmentEnv: "2/3"}, nil, world.Segment{I: 2, N: 3}, ""},
		{"indexed job", map[string]string{jobIndexEnv: "2"}, []string{"--segments", "3"}, world.Segment{I: 2, N: 3}, ""},
		{"both", nil, []string{"--segment", "0/2", "--segments", "2"}, world.Segment{}, "both --segment and --segments given: choose one"},
		{"no segments", nil, []string{"--segments", "0"}, world.Segment{}, "--segments 0: want at least 1"},
		{"no index", nil, []string{"--segments", "2"}, world.Segment{}, "--segments 2 needs env JOB_COMPLETION_INDEX (set by a Kubernetes Indexed Job)"},
		{"empty index is not an index", map[string]string{jobIndexEnv: ""}, []string{"--segments", "2"}, world.Segment{}, `env JOB_COMPLETION_INDEX="": want an index`},
		{"index too large", map[string]string{jobIndexEnv: "4"}, []string{"--segments", "4"}, world.Segment{}, `env JOB_COMPLETION_INDEX="4" with --segments 4: `},
		{"bad env", map[string]string{segmentEnv: "x"}, nil, world.Segment{}, `environment variable CLICKGEN_SEGMENT="x": `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parsed(t, addSegmentFlags, tc.args...).resolve(envOf(tc.env))
			if !strings.HasPrefix(errText(err), tc.err) || (tc.err == "") != (err == nil) || got != tc.want {
				t.Errorf("resolve() = %v, %v; want %v, %q", got, err, tc.want, tc.err)
			}
		})
	}
}

func TestDayFlagsResolve(t *testing.T) {
	add := func(fs *pflag.FlagSet) *dayFlags { return addDayFlags(fs, "run days") }
	for _, tc := range []struct {
		name      string
		env       map[string]string
		args      []string
		day, days int
		err       string
	}{
		{"flags", nil, []string{"--day", "3", "--days", "2"}, 3, 2, ""},
		{"env", map[string]string{dayEnv: "4", daysEnv: "5"}, nil, 4, 5, ""},
		{"required", nil, nil, 0, 1, "--day is required (there is no default model day)"},
		{"empty env is absent", map[string]string{dayEnv: ""}, nil, 0, 1, "--day is required (there is no default model day)"},
		{"negative", nil, []string{"--day", "-1"}, -1, 1, "--day -1: model days start at 0"},
		{"no days", nil, []string{"--day", "0", "--days", "0"}, 0, 0, "--days 0: want at least 1"},
		{"beyond the wire", nil, []string{"--day", "9223372036854775807"}, 9223372036854775807, 1, "--day/--days: "},
		{"bad env", map[string]string{dayEnv: "x"}, nil, 0, 1, `environment variable GENERATOR_DAY="x": `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			df := parsed(t, add, tc.args...)
			err := df.resolve(envOf(tc.env))
			if err == nil {
				err = df.check()
			}
			if !strings.HasPrefix(errText(err), tc.err) || (tc.err == "") != (err == nil) || df.day != tc.day || df.days != tc.days {
				t.Errorf("resolve() = day %d days %d, %v; want %d %d, %q", df.day, df.days, err, tc.day, tc.days, tc.err)
			}
		})
	}
}

func TestWorldFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		err  string
	}{
		{"seed 0", nil, []string{"--seed", "0"}, "test: --seed 0: " + world.ErrZeroSeed.Error()},
		{"env seed 0", map[string]string{seedEnv: "0"}, nil, "test: --seed 0: "},
		{"scale", nil, []string{"--scale", "-1"}, "test: --scale -1: want a factor in (0, 1000]"},
		{"scale step", nil, []string{"--scale", "0.0001"}, "test: --scale 0.0001: smaller than the smallest step 0.001"},
		{"catalog", map[string]string{catalogEnv: "/nonexistent"}, nil, "test: --catalog: open /nonexistent: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parsed(t, addWorldFlags, tc.args...).newWorld(t.Context(), "test", envOf(tc.env), world.Garbage{})
			var ue *usageError
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) || !errors.As(err, &ue) {
				t.Errorf("newWorld() error = %v, want a usage error %q", err, tc.err)
			}
		})
	}
	// The catalog's error is wrapped, not flattened.
	if _, err := parsed(t, addWorldFlags).newWorld(t.Context(), "test", envOf(map[string]string{catalogEnv: "/nonexistent"}), world.Garbage{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("newWorld(GENERATOR_CATALOG=/nonexistent) = %v, want fs.ErrNotExist wrapped", err)
	}
	if _, err := parsed(t, addWorldFlags, "--seed", "0").newWorld(t.Context(), "test", envOf(nil), world.Garbage{}); !errors.Is(err, world.ErrZeroSeed) {
		t.Errorf("newWorld(--seed 0) = %v, want world.ErrZeroSeed wrapped", err)
	}
	w, err := parsed(t, addWorldFlags, "--seed", "7").newWorld(t.Context(), "test", envOf(map[string]string{seedEnv: "9"}), world.Garbage{})
	if err != nil || w.Seed() != 7 {
		t.Errorf("newWorld(--seed 7, GENERATOR_SEED=9) = %v, %v; want seed 7 (the flag wins)", w, err)
	}
	// newWorld refuses what cannot fit before building, and builds what can.
	wf := parsed(t, addWorldFlags, "--scale", "100", "--max-memory", "1GiB")
	if _, err := wf.newWorld(t.Context(), "test", envOf(nil), world.Garbage{}); err == nil || !strings.Contains(err.Error(), "more than --max-memory") {
		t.Errorf("newWorld(--scale 100 --max-memory 1GiB) error = %v, want the memory refusal", err)
	}
	if w, err := parsed(t, addWorldFlags, "--max-memory", "1GiB").newWorld(t.Context(), "test", envOf(nil), world.Garbage{}); err != nil || w.Scale() != 1 {
		t.Errorf("newWorld(--max-memory 1GiB) = %v, %v; want the scale-1 world", w, err)
	}
}

func TestGarbageFlagsResolve(t *testing.T) {
	if _, err := parsed(t, addGarbageFlags, "--garbage-mix", "not_an_object=1").resolve(); errText(err) != "--garbage-mix without --garbage: the mix weighs garbage that is not being made" ||
		!errors.Is(err, profiles.ErrMixWithoutRate) {
		t.Errorf("resolve(mix without rate) error = %v", err)
	}
	g, err := parsed(t, addGarbageFlags, "--garbage", "0.1", "--redeliver", "0.2").resolve()
	if err != nil || g.Rate != 0.1 || g.Redeliver != 0.2 {
		t.Errorf("resolve() = %+v, %v; want rate 0.1, redeliver 0.2", g, err)
	}
}

func TestRunFlagsProfile(t *testing.T) {
	add := func(fs *pflag.FlagSet) *runFlags {
		return addRunFlags(fs, func(fs *pflag.FlagSet) {
			if fs.Lookup("redeliver") == nil || fs.Lookup("segment") != nil {
				t.Errorf("the caller's flags are added where the garbage flags are not yet, or the segment flags already are")
			}
		})
	}
	rf := parsed(t, add, "smoke", "--seed", "5", "--days", "2", "--segment", "1/2")
	p, seg, err := rf.profile(t.Context(), envOf(nil))
	if err != nil || p.Name != "smoke" || p.World.Seed != 5 || p.Play.Days != 2 || seg != (world.Segment{I: 1, N: 2}) {
		t.Errorf("profile() = %s seed %d days %d segment %v, %v; want smoke, 5, 2, 1/2", p.Name, p.World.Seed, p.Play.Days, seg, err)
	}
	if p.Expect.Set() {
		t.Errorf("profile() kept smoke's expected counts after --days changed what is played")
	}

	dir := t.TempDir()
	file := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(file, []byte("play:\n  send: nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		err  string
	}{
		{"two profiles", nil, []string{"a", "b"}, `unexpected argument "b": one profile at most`},
		{"name and file", nil, []string{"smoke", "--profile-file", file}, "both profile smoke and --profile-file given: choose one"},
		{"unknown", nil, []string{"nope"}, `unknown profile "nope": want one of fill, garbage, live, smoke, stress, or --profile-file FILE`},
		{"invalid file names the file", nil, []string{"--profile-file", file}, file + ": "},
		{"missing file", nil, []string{"--profile-file", filepath.Join(dir, "none.yaml")}, "--profile-file: open "},
		{"override", nil, []string{"--seed", "0"}, "--seed 0: "},
		{"scale", nil, []string{"--scale", "-2"}, "--scale -2: want a factor in (0, 1000]"},
		{"days", nil, []string{"--days", "0"}, "--days 0: want at least 1"},
		{"speed", nil, []string{"--speed", "1e-9"}, "--speed: replay speed 1e-09"},
		{"speed and rate", nil, []string{"--speed", "60", "--rate", "5/s"}, "--speed (replay) and --rate (a rate shape) exclude each other"},
		{"pace", nil, []string{"--pace", "none", "--speed", "60"}, "--pace none contradicts --speed or --rate"},
		{"mix", nil, []string{"--garbage-mix", "not_an_object=1"}, "--garbage-mix without --garbage: the mix weighs garbage that is not being made"},
		{"interval", nil, []string{"--interval", "0"}, "--interval 0s: want at least 100ms"},
		{"catalog env", map[string]string{catalogEnv: "/nonexistent"}, nil, ""},
		{"days beyond the wire", nil, []string{"--day", "9223372036854775807"}, "--day/--days: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _, err := parsed(t, add, tc.args...).profile(t.Context(), envOf(tc.env))
			if tc.name == "catalog env" {
				if err != nil || p.World.Catalog != "/nonexistent" {
					t.Errorf("profile() catalog = %q, %v; want GENERATOR_CATALOG's", p.World.Catalog, err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) && !strings.Contains(err.Error(), tc.err) {
				t.Errorf("profile() error = %v, want one with %q", err, tc.err)
			}
		})
	}
	if _, _, err := parsed(t, add, "--seed", "0").profile(t.Context(), envOf(nil)); !errors.Is(err, world.ErrZeroSeed) {
		t.Errorf("profile(--seed 0) = %v, want world.ErrZeroSeed wrapped", err)
	}
	if _, _, err := parsed(t, add, "--profile-file", filepath.Join(dir, "none.yaml")).profile(t.Context(), envOf(nil)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("profile(missing file) = %v, want fs.ErrNotExist wrapped", err)
	}
}

// TestSetFromEnv: the command line wins over the environment, an empty variable counts as
// unset, and a value that does not parse names the variable.
func TestSetFromEnv(t *testing.T) {
	for _, c := range []struct {
		name    string
		args    []string
		env     map[string]string
		want    int
		wantErr string
	}{
		{"unset", nil, nil, 7, ""},
		{"from env", nil, map[string]string{"N_ENV": "3"}, 3, ""},
		{"empty is unset", nil, map[string]string{"N_ENV": ""}, 7, ""},
		{"flag wins", []string{"--n", "5"}, map[string]string{"N_ENV": "3"}, 5, ""},
		{"bad value", nil, map[string]string{"N_ENV": "x"}, 7, `environment variable N_ENV="x": `},
	} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		n := fs.Int("n", 7, "")
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		err := setFromEnv(fs, envOf(c.env), "n", "N_ENV")
		if c.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), c.wantErr) {
				t.Errorf("%s: error %v, want one starting %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || *n != c.want {
			t.Errorf("%s: --n %d, error %v; want %d, nil", c.name, *n, err, c.want)
		}
	}
}

// TestPlayFlagsParse: --day is checked first, then the verb's own check, then the segment
// and the garbage, then the profile's values as overrides of the built-in profile; what they
// resolve to is kept, and the world is refused when it cannot fit in memory before it is
// built.
func TestPlayFlagsParse(t *testing.T) {
	errCheck := errors.New("the verb's own check")
	for _, c := range []struct {
		args    []string
		check   error
		wantErr string
	}{
		{[]string{"--segments", "2", "--garbage", "-1"}, errCheck, "--day is required"},
		{[]string{"--day", "0", "--segments", "2"}, errCheck, errCheck.Error()},
		{[]string{"--day", "0", "--segments", "2", "--garbage", "-1"}, nil, "--segments 2 needs env"},
		{[]string{"--day", "0", "--garbage-mix", "not_an_object=1"}, nil, "--garbage-mix without --garbage"},
		{[]string{"--day", "-1", "--seed", "0"}, nil, "--seed 0: "},
		{[]string{"--day", "-1"}, nil, "--day -1: model days start at 0"},
		{[]string{"--day", "0", "--days", "0"}, nil, "--days 0: want at least 1"},
		{[]string{"--day", "0", "--scale", "0"}, nil, "--scale 0: want a factor in (0, 1000]"},
		{[]string{"--day", "2", "--days", "3", "--segment", "1/2", "--garbage", "0.5", "--scale", "0.01"}, nil, ""},
	} {
		fs := newFlags("test", "test", "")
		pf := addPlayFlags(fs, "days", false)
		var plan play.Plan
		p, seg, err := pf.parseEnv(profiles.Batch(), c.args, nil, envOf(nil), func(envLookup, *profiles.Overrides) error { return c.check })
		if err == nil {
			plan, err = pf.plan(t.Context(), p, seg, profiles.PlanOptions{})
		}
		if got := errText(err); !strings.Contains(got, c.wantErr) || (c.wantErr == "") != (err == nil) {
			t.Errorf("%q: parse error %q, want one containing %q", c.args, got, c.wantErr)
		}
		if err == nil && (plan.Segment != world.Segment{I: 1, N: 2} || plan.Garbage.Rate != 0.5 || plan.From != 2 || plan.Days != 3 || plan.World.Scale() != 0.01 || plan.Hits != "hits" || plan.Orders != "") {
			t.Errorf("%q: segment %v, garbage %v, days %d+%d, scale %v, topics %q %q", c.args, plan.Segment, plan.Garbage.Rate, plan.From, plan.Days, plan.World.Scale(), plan.Hits, plan.Orders)
		}
	}
	fs := newFlags("test", "test", "")
	pf := addPlayFlags(fs, "", false)
	p, seg, err := pf.parseEnv(profiles.Live(), []string{"--day", "0", "--scale", "0.01", "--max-memory", "1KiB"}, nil, envOf(nil), nil)
	if err == nil {
		_, err = pf.plan(t.Context(), p, seg, profiles.PlanOptions{})
	}
	if err == nil || !strings.Contains(err.Error(), "--max-memory") {
		t.Errorf("parse under --max-memory 1KiB: %v, want refused naming --max-memory", err)
	}
}

// maxMemory is the memory limit --max-memory b sets when it is the smallest (newWorld).
func maxMemory(b profiles.Bytes) profiles.MemoryLimit {
	return profiles.MemoryLimit{Bytes: b, Source: sysmem.Explicit}
}

// TestFlagNamed: package profiles' refusals, named by field, are worded as the flags that
// carried them, and a memory refusal names the flags that set each part of the footprint.
func TestFlagNamed(t *testing.T) {
	big := world.Footprint{Scale: 1, Products: 1_000_000, CatalogBytes: 100 << 20}
	err := flagNamed(profiles.CheckFootprint(big, maxMemory(256<<20)))
	if err == nil || !strings.Contains(err.Error(), "--scale 1 with a catalog of 1000000 products (104857600 bytes) needs about") ||
		!strings.Contains(err.Error(), "more than --max-memory (256 MiB)") ||
		!strings.Contains(err.Error(), "lower --scale, --garbage or the catalog, or raise --max-memory") {
		t.Errorf("CheckFootprint(1 000 000 rows, 256 MiB) named = %v", err)
	}
	var fe *profiles.FootprintError
	if !errors.As(err, &fe) {
		t.Errorf("the named memory refusal %v does not wrap the *profiles.FootprintError", err)
	}
	err = flagNamed(profiles.CheckFootprint(world.Footprint{Scale: 100, Workers: 1024, Garbage: world.Garbage{Rate: 0.5}}, maxMemory(1<<30)))
	if err == nil || !strings.HasPrefix(err.Error(), "--scale 100 with --garbage 0.5 --redeliver 0 with --workers 1024 needs about") ||
		!strings.HasSuffix(err.Error(), ": lower --scale, --garbage or --workers, or raise --max-memory") {
		t.Errorf("CheckFootprint(scale 100, garbage, 1024 workers) named = %v", err)
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{profiles.CheckSeed(0), "--seed 0: the seed must be positive"},
		{profiles.CheckScale(0), "--scale 0: want a factor in (0, 1000]"},
		{profiles.CheckDays(29105, 1), "--day/--days: day 29105: the last model day is 29104"},
		{&profiles.UnknownError{Name: "x"}, `unknown profile "x": want one of fill, garbage, live, smoke, stress, or --profile-file FILE`},
		{errors.New("other"), "other"},
	} {
		if got := errText(flagNamed(tc.err)); !strings.HasPrefix(got, tc.want) {
			t.Errorf("flagNamed(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
	if flagNamed(nil) != nil {
		t.Errorf("flagNamed(nil) is not nil")
	}
}
