package profiles

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/world"
)

// envOf is a LookupEnv over m.
func envOf(m map[string]string) LookupEnv {
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
		{"flag beats env", map[string]string{SegmentEnv: "2/3"}, []string{"--segment", "0/3"}, world.Segment{I: 0, N: 3}, ""},
		{"env", map[string]string{SegmentEnv: "2/3"}, nil, world.Segment{I: 2, N: 3}, ""},
		{"indexed job", map[string]string{JobIndexEnv: "2"}, []string{"--segments", "3"}, world.Segment{I: 2, N: 3}, ""},
		{"both", nil, []string{"--segment", "0/2", "--segments", "2"}, world.Segment{}, "both --segment and --segments given: choose one"},
		{"no segments", nil, []string{"--segments", "0"}, world.Segment{}, "--segments 0: want at least 1"},
		{"no index", nil, []string{"--segments", "2"}, world.Segment{}, "--segments 2 needs env JOB_COMPLETION_INDEX (set by a Kubernetes Indexed Job)"},
		{"empty index is not an index", map[string]string{JobIndexEnv: ""}, []string{"--segments", "2"}, world.Segment{}, `env JOB_COMPLETION_INDEX="": want an index`},
		{"index too large", map[string]string{JobIndexEnv: "4"}, []string{"--segments", "4"}, world.Segment{}, `env JOB_COMPLETION_INDEX="4" with --segments 4: `},
		{"bad env", map[string]string{SegmentEnv: "x"}, nil, world.Segment{}, `environment variable CLICKGEN_SEGMENT="x": `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parsed(t, AddSegmentFlags, tc.args...).Resolve(envOf(tc.env))
			if !strings.HasPrefix(errText(err), tc.err) || (tc.err == "") != (err == nil) || got != tc.want {
				t.Errorf("Resolve() = %v, %v; want %v, %q", got, err, tc.want, tc.err)
			}
		})
	}
}

func TestDayFlagsResolve(t *testing.T) {
	add := func(fs *pflag.FlagSet) *DayFlags { return AddDayFlags(fs, "run days") }
	for _, tc := range []struct {
		name      string
		env       map[string]string
		args      []string
		day, days int
		err       string
	}{
		{"flags", nil, []string{"--day", "3", "--days", "2"}, 3, 2, ""},
		{"env", map[string]string{DayEnv: "4", DaysEnv: "5"}, nil, 4, 5, ""},
		{"required", nil, nil, 0, 1, "--day is required (there is no default model day)"},
		{"empty env is absent", map[string]string{DayEnv: ""}, nil, 0, 1, "--day is required (there is no default model day)"},
		{"negative", nil, []string{"--day", "-1"}, -1, 1, "--day -1: model days start at 0"},
		{"no days", nil, []string{"--day", "0", "--days", "0"}, 0, 0, "--days 0: want at least 1"},
		{"beyond the wire", nil, []string{"--day", "9223372036854775807"}, 9223372036854775807, 1, "--day/--days: "},
		{"bad env", map[string]string{DayEnv: "x"}, nil, 0, 1, `environment variable GENERATOR_DAY="x": `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			df := parsed(t, add, tc.args...)
			err := df.Resolve(envOf(tc.env))
			if !strings.HasPrefix(errText(err), tc.err) || (tc.err == "") != (err == nil) || df.Day != tc.day || df.Days != tc.days {
				t.Errorf("Resolve() = day %d days %d, %v; want %d %d, %q", df.Day, df.Days, err, tc.day, tc.days, tc.err)
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
		{"seed 0", nil, []string{"--seed", "0"}, "--seed 0: " + world.ErrZeroSeed.Error()},
		{"env seed 0", map[string]string{SeedEnv: "0"}, nil, "--seed 0: "},
		{"scale", nil, []string{"--scale", "-1"}, "--scale -1: want a positive factor"},
		{"catalog", map[string]string{CatalogEnv: "/nonexistent"}, nil, "--catalog: open /nonexistent: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parsed(t, AddWorldFlags, tc.args...).World(envOf(tc.env))
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("World() error = %v, want %q", err, tc.err)
			}
		})
	}
	w, err := parsed(t, AddWorldFlags, "--seed", "7").World(envOf(map[string]string{SeedEnv: "9"}))
	if err != nil || w.Seed() != 7 {
		t.Errorf("World(--seed 7, GENERATOR_SEED=9) = seed %v, %v; want 7 (the flag wins)", w.Seed(), err)
	}
	// NewWorld refuses what cannot fit before building, and builds what can.
	wf := parsed(t, AddWorldFlags, "--scale", "100", "--max-memory", "1GiB")
	if _, err := wf.NewWorld(envOf(nil), world.Garbage{}); err == nil || !strings.Contains(err.Error(), "more than --max-memory") {
		t.Errorf("NewWorld(--scale 100 --max-memory 1GiB) error = %v, want the memory refusal", err)
	}
	if w, err := parsed(t, AddWorldFlags, "--max-memory", "1GiB").NewWorld(envOf(nil), world.Garbage{}); err != nil || w.Scale() != 1 {
		t.Errorf("NewWorld(--max-memory 1GiB) = %v, %v; want the scale-1 world", w, err)
	}
}

func TestGarbageFlagsResolve(t *testing.T) {
	if _, err := parsed(t, AddGarbageFlags, "--garbage-mix", "not_an_object=1").Resolve(); errText(err) != "--garbage-mix without --garbage: the mix weighs garbage that is not being made" {
		t.Errorf("Resolve(mix without rate) error = %v", err)
	}
	g, err := parsed(t, AddGarbageFlags, "--garbage", "0.1", "--redeliver", "0.2").Resolve()
	if err != nil || g.Rate != 0.1 || g.Redeliver != 0.2 {
		t.Errorf("Resolve() = %+v, %v; want rate 0.1, redeliver 0.2", g, err)
	}
}

func TestRunFlagsProfile(t *testing.T) {
	add := func(fs *pflag.FlagSet) *RunFlags {
		return AddRunFlags(fs, func(fs *pflag.FlagSet) {
			if fs.Lookup("redeliver") == nil || fs.Lookup("segment") != nil {
				t.Errorf("the caller's flags are added where the garbage flags are not yet, or the segment flags already are")
			}
		})
	}
	rf := parsed(t, add, "smoke", "--seed", "5", "--days", "2", "--segment", "1/2")
	p, seg, err := rf.Profile(envOf(nil))
	if err != nil || p.Name != "smoke" || p.World.Seed != 5 || p.Play.Days != 2 || seg != (world.Segment{I: 1, N: 2}) {
		t.Errorf("Profile() = %s seed %d days %d segment %v, %v; want smoke, 5, 2, 1/2", p.Name, p.World.Seed, p.Play.Days, seg, err)
	}
	if p.Expect.Set() {
		t.Errorf("Profile() kept smoke's expected counts after --days changed what is played")
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
		{"unknown", nil, []string{"nope"}, "unknown profile"},
		{"invalid file names the file", nil, []string{"--profile-file", file}, file + ": "},
		{"missing file", nil, []string{"--profile-file", filepath.Join(dir, "none.yaml")}, "--profile-file: open "},
		{"override", nil, []string{"--seed", "0"}, "--seed 0: "},
		{"interval", nil, []string{"--interval", "0"}, "--interval 0s: want at least 100ms"},
		{"catalog env", map[string]string{CatalogEnv: "/nonexistent"}, nil, ""},
		{"days beyond the wire", nil, []string{"--day", "9223372036854775807"}, "--day/--days: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _, err := parsed(t, add, tc.args...).Profile(envOf(tc.env))
			if tc.name == "catalog env" {
				if err != nil || p.World.Catalog != "/nonexistent" {
					t.Errorf("Profile() catalog = %q, %v; want GENERATOR_CATALOG's", p.World.Catalog, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Profile() error = %v, want one with %q", err, tc.err)
			}
		})
	}
}

func TestLoadFileNamesTheProfile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "my-run.yml")
	if err := os.WriteFile(file, []byte("play:\n  day: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadFile(file)
	if err != nil || p.Name != "my-run" || p.Play.Day != 1 {
		t.Errorf("LoadFile(%s) = name %q day %d, %v; want my-run, 1", file, p.Name, p.Play.Day, err)
	}
}

// TestSourceFile: a profile file that parses comes back byte for byte, comments included; a
// broken one is refused naming the file and the field.
func TestSourceFile(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.yaml"), filepath.Join(dir, "bad.yaml")
	src := "# my run\nplay:\n  day: 1 # the second day\n"
	if err := os.WriteFile(good, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("play:\n  dya: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := SourceFile(good); err != nil || string(got) != src {
		t.Errorf("SourceFile(good) = %q, %v; want the file as it is", got, err)
	}
	if _, err := SourceFile(bad); err == nil || !strings.HasPrefix(err.Error(), "--profile-file "+bad+": ") || !strings.Contains(err.Error(), "dya") {
		t.Errorf("SourceFile(bad) = %v, want an error naming the file and the field", err)
	}
}

func TestWriteList(t *testing.T) {
	var b strings.Builder
	if err := WriteList(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != len(List()) || !strings.Contains(b.String(), Default+" (default)  ") {
		t.Errorf("WriteList wrote %q; want a line per profile, %s marked as the default", b.String(), Default)
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
		err := SetFromEnv(fs, envOf(c.env), "n", "N_ENV")
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

// TestPlayFlagsResolve: the days are checked first, then the verb's own check, then the
// segment and the garbage; what they resolve to is kept, and NewWorld refuses a world that
// cannot fit in memory before building it.
func TestPlayFlagsResolve(t *testing.T) {
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
		{[]string{"--day", "2", "--days", "3", "--segment", "1/2", "--garbage", "0.5"}, nil, ""},
	} {
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		pf := AddPlayFlags(fs, "days")
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		err := pf.Resolve(envOf(nil), func() error { return c.check })
		if got := errText(err); !strings.Contains(got, c.wantErr) || (c.wantErr == "") != (err == nil) {
			t.Errorf("%q: Resolve error %q, want one containing %q", c.args, got, c.wantErr)
		}
		if err == nil && (pf.Segment != world.Segment{I: 1, N: 2} || pf.Garbage.Rate != 0.5 || pf.Days.Day != 2 || pf.Days.Days != 3) {
			t.Errorf("%q: segment %v, garbage %v, days %d+%d", c.args, pf.Segment, pf.Garbage.Rate, pf.Days.Day, pf.Days.Days)
		}
	}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	pf := AddPlayFlags(fs, "")
	if err := fs.Parse([]string{"--day", "0", "--scale", "0.01", "--max-memory", "1KiB"}); err != nil {
		t.Fatal(err)
	}
	if err := pf.Resolve(envOf(nil), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := pf.NewWorld(envOf(nil)); err == nil || !strings.Contains(err.Error(), "--max-memory") {
		t.Errorf("NewWorld under --max-memory 1KiB: %v, want refused naming --max-memory", err)
	}
}

// TestFootprintCounted is issue 24 items 1 and 7 in the memory check: the render workers'
// window and the catalog's rows and file are counted, and the refusal names them.
func TestFootprintCounted(t *testing.T) {
	if need2, need1024 := (world.Footprint{Scale: 100, Workers: 2}).Need(), (world.Footprint{Scale: 100, Workers: 1024}).Need(); need1024-need2 < 6<<30 {
		t.Errorf("scale 100: 1024 workers need %d bytes, 2 need %d; want the window of 1465 batches (a day) counted", need1024, need2)
	}
	if a, b := (world.Footprint{Scale: 1, Workers: 2}).Need(), world.MemoryNeeded(1, world.Garbage{}); a != b {
		t.Errorf("two workers at scale 1 need %d, MemoryNeeded %d; want the measured default unchanged", a, b)
	}
	big := world.Footprint{Scale: 1, Products: 1_000_000, CatalogBytes: 100 << 20}
	if d := big.Need() - world.MemoryNeeded(1, world.Garbage{}); d < 500<<20 {
		t.Errorf("a 1 000 000-row catalog adds %d bytes; want its rows and file counted", d)
	}
	err := CheckFootprint(big, 256<<20)
	if err == nil || !strings.Contains(err.Error(), "--scale 1 with a catalog of 1000000 products (104857600 bytes) needs about") ||
		!strings.Contains(err.Error(), "lower --scale, --garbage or the catalog") {
		t.Errorf("CheckFootprint(1 000 000 rows, 256 MiB) = %v", err)
	}
	if big.SoftLimit() <= world.SoftMemoryLimit(1, world.Garbage{})+300<<20 {
		t.Errorf("soft limit %d with 1 000 000 products; want their rows above scale 1's", big.SoftLimit())
	}
}
