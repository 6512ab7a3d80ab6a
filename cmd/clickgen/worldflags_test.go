package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fmt"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/session"
	"github.com/clickgen/clickgen/profiles"
)

// The flags of a profile's sections, through the binder: the world, the days, the garbage
// and the segment, on the verbs that take them, with their variables.

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
		{"both", nil, []string{"--segment", "0/2", "--segments", "2"}, world.Segment{}, "inventory: both --segment and --segments given: choose one"},
		{"env and segments", map[string]string{segmentEnv: "1/2"}, []string{"--segments", "2"}, world.Segment{}, `inventory: both env CLICKGEN_SEGMENT="1/2" and --segments 2 given: choose one`},
		{"no segments", nil, []string{"--segments", "0"}, world.Segment{}, "--segments 0: want at least 1"},
		{"no index", nil, []string{"--segments", "2"}, world.Segment{}, "--segments 2 needs env JOB_COMPLETION_INDEX (set by a Kubernetes Indexed Job)"},
		{"empty index is not an index", map[string]string{jobIndexEnv: ""}, []string{"--segments", "2"}, world.Segment{}, `env JOB_COMPLETION_INDEX="": want an index`},
		{"index not decimal", map[string]string{jobIndexEnv: "+1"}, []string{"--segments", "2"}, world.Segment{I: 1, N: 2}, ""},
		{"index with a space", map[string]string{jobIndexEnv: " 1"}, []string{"--segments", "2"}, world.Segment{}, `env JOB_COMPLETION_INDEX=" 1": want an index`},
		{"index too large", map[string]string{jobIndexEnv: "4"}, []string{"--segments", "4"}, world.Segment{}, `env JOB_COMPLETION_INDEX="4" with --segments 4: `},
		{"bad env", map[string]string{segmentEnv: "x"}, nil, world.Segment{}, `inventory: environment variable CLICKGEN_SEGMENT="x": `},
		// Issue 29 N15: a segment is read as a day is: " 0/2" was accepted, " 5" refused.
		{"space", nil, []string{"--segment", " 0/2"}, world.Segment{}, `inventory: invalid argument " 0/2" for "--segment" flag: segment " 0/2": want I/N in decimal digits`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := bound(t, "inventory", tc.env, append([]string{"--day", "0"}, tc.args...)...)
			var got world.Segment
			if err == nil {
				got, err = b.resolveSegment()
			}
			if !strings.HasPrefix(errText(err), tc.err) || (tc.err == "") != (err == nil) || got != tc.want {
				t.Errorf("segment = %v, %v; want %v, %q", got, err, tc.want, tc.err)
			}
		})
	}
}

func TestDayFlags(t *testing.T) {
	for _, tc := range []struct {
		name      string
		env       map[string]string
		args      []string
		day, days int
		err       string
	}{
		{"flags", nil, []string{"--day", "3", "--days", "2"}, 3, 2, ""},
		{"env", map[string]string{dayEnv: "4", daysEnv: "5"}, nil, 4, 5, ""},
		{"required", nil, nil, 0, 1, "inventory: --day is required (there is no default model day)"},
		{"empty env is absent", map[string]string{dayEnv: ""}, nil, 0, 1, "inventory: --day is required (there is no default model day)"},
		{"negative", nil, []string{"--day", "-1"}, -1, 1, "inventory: --day -1: model days start at 0"},
		{"no days", nil, []string{"--day", "0", "--days", "0"}, 0, 0, "inventory: --days 0: want at least 1"},
		{"beyond the wire", nil, []string{"--day", "9223372036854775807"}, 0, 0, "inventory: --day: day 9223372036854775807: the last model day is 29104"},
		{"bad env", map[string]string{dayEnv: "x"}, nil, 0, 1, `inventory: environment variable GENERATOR_DAY="x": `},
		// Issue 29 N15: one reading of an integer, in one wording.
		{"space", nil, []string{"--day", " 5"}, 0, 0, `inventory: invalid argument " 5" for "--day" flag: must be a decimal integer`},
		{"exponent", nil, []string{"--day", "1e3"}, 0, 0, `inventory: invalid argument "1e3" for "--day" flag: must be a decimal integer`},
		{"fraction", nil, []string{"--day", "1.5"}, 0, 0, `inventory: invalid argument "1.5" for "--day" flag: is not a whole number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := bound(t, "inventory", tc.env, tc.args...)
			var p profiles.Profile
			if err == nil {
				p, err = b.playProfile(profiles.Batch())
			}
			if !strings.HasPrefix(errText(err), tc.err) || (tc.err == "") != (err == nil) || err == nil && (p.Play.Day != tc.day || p.Play.Days != tc.days) {
				t.Errorf("days %d+%d, %v; want %d+%d, %q", p.Play.Day, p.Play.Days, err, tc.day, tc.days, tc.err)
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
		{"seed 0", nil, []string{"--seed", "0"}, "verify: --seed 0: " + world.ErrZeroSeed.Error()},
		{"env seed 0", map[string]string{seedEnv: "0"}, nil, "verify: --seed 0: "},
		{"seed 1e3", nil, []string{"--seed", "1e3"}, `verify: invalid argument "1e3" for "--seed" flag: must be a decimal integer`},
		{"scale", nil, []string{"--scale", "-1"}, "verify: --scale -1: want a factor in (0, 1000]"},
		{"scale step", nil, []string{"--scale", "0.0001"}, "verify: --scale 0.0001: smaller than the smallest step 0.001"},
		{"catalog", map[string]string{catalogEnv: "/nonexistent"}, nil, "verify: --catalog: open /nonexistent: "},
		{"memory", nil, []string{"--scale", "100", "--max-memory", "1GiB"}, "verify: --scale 100 needs about "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := verifyWorld(t, tc.env, tc.args...)
			var ue *usageError
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) || !errors.As(err, &ue) {
				t.Errorf("verify's world: %v, want a usage error %q", err, tc.err)
			}
		})
	}
	// The refusals still wrap what the libraries returned.
	if err := verifyWorld(t, map[string]string{catalogEnv: "/nonexistent"}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("GENERATOR_CATALOG=/nonexistent: %v, want fs.ErrNotExist wrapped", err)
	}
	if err := verifyWorld(t, nil, "--seed", "0"); !errors.Is(err, world.ErrZeroSeed) {
		t.Errorf("--seed 0: %v, want world.ErrZeroSeed wrapped", err)
	}
	var fe *profiles.FootprintError
	if err := verifyWorld(t, nil, "--scale", "100", "--max-memory", "1GiB"); !errors.As(err, &fe) || !strings.Contains(err.Error(), "more than --max-memory") {
		t.Errorf("--scale 100 --max-memory 1GiB: %v, want the memory refusal", err)
	}
	b, err := bound(t, "verify", map[string]string{seedEnv: "9"}, "--day", "0", "--seed", "7", "--brokers", "k:9")
	if err != nil {
		t.Fatal(err)
	}
	if p, err := b.playProfile(profiles.Batch()); err != nil || p.World.Seed != 7 {
		t.Errorf("--seed 7 with GENERATOR_SEED=9: seed %d, %v; want 7 (the flag wins)", p.World.Seed, err)
	}
}

// verifyWorld builds verify's world from args (after --day 0 --brokers k:9) with env, as the
// verify library does (profiles.Profile.NewWorld within the memory the command measured), its
// refusal in the flags' words.
func verifyWorld(t *testing.T, env map[string]string, args ...string) error {
	t.Helper()
	b, err := bound(t, "verify", env, append([]string{"--day", "0", "--brokers", "k:9"}, args...)...)
	if err != nil {
		return err
	}
	p, err := b.playProfile(profiles.Batch())
	if err != nil {
		return err
	}
	_, err = p.NewWorld(t.Context(), b.memory(), 1)
	return b.words(field.Refuse(err))
}

func TestRunFlagsProfile(t *testing.T) {
	run := func(env map[string]string, args ...string) (profiles.Profile, world.Segment, error) {
		b, err := bound(t, "run", env, args...)
		if err != nil {
			return profiles.Profile{}, world.Segment{}, err
		}
		return b.runProfile(t.Context())
	}
	p, seg, err := run(nil, "smoke", "--seed", "5", "--days", "2", "--segment", "1/2")
	if err != nil || p.Name != "smoke" || p.World.Seed != 5 || p.Play.Days != 2 || seg != (world.Segment{I: 1, N: 2}) {
		t.Errorf("run = %s seed %d days %d segment %v, %v; want smoke, 5, 2, 1/2", p.Name, p.World.Seed, p.Play.Days, seg, err)
	}
	if p.Expect.Set() {
		t.Errorf("run kept smoke's expected counts after --days changed what is played")
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
		{"two profiles", nil, []string{"a", "b"}, `run: unexpected argument "b": one profile at most`},
		{"name and file", nil, []string{"smoke", "--profile-file", file}, "run: both profile smoke and --profile-file given: choose one"},
		{"unknown", nil, []string{"nope"}, `run: unknown profile "nope": want one of fill, garbage, live, smoke, stress, or --profile-file FILE`},
		{"invalid file names the file", nil, []string{"--profile-file", file}, "run: --profile-file " + file + `: play.send "nothing"`},
		{"the file's fields are its own", nil, []string{"--profile-file", file, "--send", "hits"}, "run: --profile-file " + file + `: play.send "nothing"`},
		{"missing file", nil, []string{"--profile-file", filepath.Join(dir, "none.yaml")}, "run: --profile-file: open "},
		{"override", nil, []string{"--seed", "0"}, "run: --seed 0: "},
		{"scale", nil, []string{"--scale", "-2"}, "run: --scale -2: want a factor in (0, 1000]"},
		{"scale 0", nil, []string{"--scale", "0"}, "run: --scale 0: want a factor in (0, 1000]"},
		{"days", nil, []string{"--days", "0"}, "run: --days 0: want at least 1"},
		{"speed", nil, []string{"--speed", "1e-9"}, "run: --speed: replay speed 1e-09"},
		{"speed and rate", nil, []string{"--speed", "60", "--rate", "5/s"}, "run: --speed (replay) and --rate (a rate shape) exclude each other"},
		{"mix", nil, []string{"--garbage-mix", "not_an_object=1"}, "run: --garbage-mix without --garbage: the mix weighs garbage that is not being made"},
		{"interval", nil, []string{"--interval", "0"}, "run: --interval 0s: want at least 100ms"},
		{"days beyond the wire", nil, []string{"--day", "9223372036854775807"}, "run: --day: day 9223372036854775807: the last model day"},
		{"profile's send", nil, []string{"stress", "--send", "snapshots"}, `run: play.endless plays hits only, not --send "snapshots"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := run(tc.env, tc.args...); !strings.HasPrefix(errText(err), tc.err) {
				t.Errorf("run error = %v, want one starting %q", err, tc.err)
			}
		})
	}
	if p, _, err := run(map[string]string{catalogEnv: "/nonexistent"}); err != nil || p.World.Catalog != "/nonexistent" {
		t.Errorf("run catalog = %q, %v; want GENERATOR_CATALOG's", p.World.Catalog, err)
	}
	if _, _, err := run(nil, "--seed", "0"); !errors.Is(err, world.ErrZeroSeed) {
		t.Errorf("run --seed 0 = %v, want world.ErrZeroSeed wrapped", err)
	}
	if _, _, err := run(nil, "--profile-file", filepath.Join(dir, "none.yaml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("run with a missing file = %v, want fs.ErrNotExist wrapped", err)
	}
}

// TestEnvFallBack: the command line wins over the environment, an empty variable counts as
// unset, and a value that does not parse names the variable.
func TestEnvFallBack(t *testing.T) {
	for _, c := range []struct {
		name    string
		args    []string
		env     map[string]string
		want    int64
		wantErr string
	}{
		{"unset", nil, nil, 0, ""},
		{"from env", nil, map[string]string{limitEnv: "3"}, 3, ""},
		{"empty is unset", nil, map[string]string{limitEnv: ""}, 0, ""},
		{"flag wins", []string{"--limit", "5"}, map[string]string{limitEnv: "3"}, 5, ""},
		{"bad value", nil, map[string]string{limitEnv: "x"}, 0, `batch: environment variable GENERATOR_LIMIT="x": `},
	} {
		b, err := bound(t, "batch", c.env, append([]string{"--day", "0"}, c.args...)...)
		if c.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), c.wantErr) {
				t.Errorf("%s: error %v, want one starting %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || b.v.messages != c.want || b.set("limit") != (c.want != 0) {
			t.Errorf("%s: --limit %d (set %v), error %v; want %d", c.name, b.v.messages, b.set("limit"), err, c.want)
		}
	}
}

// TestStandProfile: a stand verb's flags are checked in order (the day, the workers, the
// segment, the sink, the profile's values), and what they resolve to is planned; the world is
// refused when it cannot fit in memory before it is built.
func TestStandProfile(t *testing.T) {
	for _, c := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"--segments", "2", "--garbage", "-1"}, "--day is required"},
		{[]string{"--day", "0", "--workers", "-1", "--segments", "2"}, "--workers -1"},
		{[]string{"--day", "0", "--segments", "2", "--garbage", "-1"}, "--segments 2 needs env"},
		{[]string{"--day", "0", "--garbage-mix", "not_an_object=1"}, "--garbage-mix without --garbage"},
		{[]string{"--day", "-1", "--seed", "0"}, "--seed 0: "},
		{[]string{"--day", "-1"}, "--day -1: model days start at 0"},
		{[]string{"--day", "0", "--days", "0"}, "--days 0: want at least 1"},
		{[]string{"--day", "0", "--scale", "0"}, "--scale 0: want a factor in (0, 1000]"},
		{[]string{"--day", "2", "--days", "3", "--segment", "1/2", "--garbage", "0.5", "--scale", "0.01"}, ""},
	} {
		b, err := bound(t, "inventory", nil, c.args...)
		var cfg session.Config
		if err == nil {
			cfg, err = b.standConfig(&stdio{out: io.Discard, err: io.Discard})
		}
		if got := errText(err); !strings.Contains(got, c.wantErr) || (c.wantErr == "") != (err == nil) {
			t.Errorf("%q: error %q, want one containing %q", c.args, got, c.wantErr)
		}
		p := cfg.Profile
		if err == nil && (cfg.Segment != world.Segment{I: 1, N: 2} || p.Garbage.Rate != 0.5 || p.Play.Day != 2 || p.Play.Days != 3 || p.World.Scale != 0.01 || p.Play.Send != profiles.SendHits) {
			t.Errorf("%q: segment %v, garbage %v, days %d+%d, scale %v, send %q", c.args, cfg.Segment, p.Garbage.Rate, p.Play.Day, p.Play.Days, p.World.Scale, p.Play.Send)
		}
	}
	sio := &stdio{out: io.Discard, err: io.Discard}
	b, err := bound(t, "live", nil, "--day", "0", "--scale", "0.01", "--max-memory", "1KiB", "--file", "-")
	if err == nil {
		var cfg session.Config
		if cfg, err = b.standConfig(sio); err == nil {
			err = b.words(session.Play(t.Context(), cfg))
		}
	}
	if err == nil || !strings.Contains(err.Error(), "--max-memory") {
		t.Errorf("live under --max-memory 1KiB: %v, want refused naming --max-memory", err)
	}
}

// TestWorkersBounded is issue 24 item 1: --workers 1000000000 grew to 23.4 GB (World.Play made
// a channel of 2 × workers and started that many goroutines). Every verb with --workers
// refuses more than world.MaxWorkers in one wording; the bound itself plays, and the memory
// check counts the workers' window of batches.
func TestWorkersBounded(t *testing.T) {
	file := filepath.Join(t.TempDir(), "h.jsonl")
	for _, n := range []string{"1025", "100000", "1000000000", "-1"} {
		for _, args := range [][]string{
			{"batch", "--day", "0", "--file", file},
			{"inventory", "--day", "0"},
			{"verify", "--day", "0", "--brokers", "127.0.0.1:1"},
			{"run", "smoke"},
		} {
			line := refused(t, file, "--workers "+n+": want 0 (all cores) to 1024", append(args, "--workers", n)...)
			if n == "1000000000" {
				t.Logf("%s: %s", args[0], line)
			}
		}
	}
	if _, errs, code := clickgen(t, "inventory", "--day", "0", "--scale", "0.01", "--workers", "1024"); code != 0 {
		t.Errorf("inventory --workers 1024: exit %d, %s", code, errs)
	}
	// At scale 100 a day is 1465 batches: 1024 workers hold 2048 in flight, 7 GB more than two.
	line := refused(t, file, "with --workers 1024 needs about", "batch", "--day", "0", "--scale", "100", "--workers", "1024", "--max-memory", "4GiB", "--file", file)
	t.Logf("memory: %s", line)
}

// TestGarbageWeightsBounded is issue 24 item 4 at the command line: a weight past the bound
// is refused as --garbage-mix before anything is sent (field_invalid=4294967296 panicked at
// the first snapshot after all hits were sent; not_an_object=4294967296 panicked inventory).
func TestGarbageWeightsBounded(t *testing.T) {
	file := filepath.Join(t.TempDir(), "h.jsonl")
	for _, tc := range [][]string{
		{"inventory", "--day", "0", "--garbage", "0.1", "--garbage-mix", "not_an_object=4294967296"},
		{"batch", "--day", "0", "--file", file, "--garbage", "0.1", "--garbage-mix", "not_an_object=9223372036854775807,keyset_mismatch=9223372036854775807"},
		{"run", "fill", "--garbage", "0.01", "--garbage-mix", "key_field_unparsed=1,field_invalid=4294967296"},
		{"verify", "--day", "0", "--brokers", "127.0.0.1:1", "--garbage", "0.01", "--garbage-mix", "field_invalid=1000001"},
	} {
		t.Logf("%s: %s", tc[0], refused(t, file, "weight", tc...))
		_, errs, _ := clickgen(t, tc...)
		if !strings.Contains(errs, "want at most 1000000") || !strings.Contains(errs, "garbage-mix") {
			t.Errorf("%v: stderr %q; want --garbage-mix named with the bound 1000000", tc, errs)
		}
	}
	// Within the bound weights still weigh: a mix scaled by 500 000 gives the same class
	// counts. (That the bytes of weights within the bound are unchanged is the garbage golden
	// files' test, generator/produce/world TestGarbageGolden.)
	a := inventoryOf(t, "--day", "0", "--scale", "0.05", "--garbage", "0.1", "--garbage-mix", "not_an_object=1,keyset_mismatch=2")
	b := inventoryOf(t, "--day", "0", "--scale", "0.05", "--garbage", "0.1", "--garbage-mix", "not_an_object=500000,keyset_mismatch=1000000")
	if fmt.Sprint(a.Days[0].Garbage) != fmt.Sprint(b.Days[0].Garbage) || len(a.Days[0].Garbage) == 0 {
		t.Errorf("garbage of weights 1:2 %v, of 500000:1000000 %v; want the same draws", a.Days[0].Garbage, b.Days[0].Garbage)
	}
}

// TestScaleZeroOneMeaning is issue 31 (and issue 28's two assemblies): --scale 0 was 1 on run
// and refused on batch. A value means one thing on every verb.
func TestScaleZeroOneMeaning(t *testing.T) {
	for _, args := range [][]string{
		{"batch", "--day", "0", "--file", "-"}, {"live", "--day", "0", "--file", "-"}, {"snapshot", "--day", "1", "--file", "-"},
		{"inventory", "--day", "0"}, {"verify", "--day", "0", "--brokers", "127.0.0.1:1"}, {"run"},
		{"inject", "--class", "not_an_object", "--kind", "hits", "--file", "-"},
	} {
		out, errs, code := clickgen(t, append(args, "--scale", "0")...)
		if code != 2 || out != "" || !strings.Contains(errs, ": --scale 0: want a factor in (0, 1000]\n") {
			t.Errorf("%s --scale 0: exit %d, %q; want 2 and the scale refused as batch refuses it", args[0], code, errs)
		}
	}
}

// TestDaysOutOfRange is issue 11 item 6: days the wire formats cannot carry are usage errors
// (exit 2) naming the last model day; the last day itself plays.
func TestDaysOutOfRange(t *testing.T) {
	for _, args := range [][]string{
		{"batch", "--day", "9223372036854775807"},
		{"batch", "--day", "29105"},
		{"batch", "--day", "29100", "--days", "9223372036854775807"},
		{"inventory", "--day", "29104", "--days", "2"},
		{"snapshot", "--day", "40000"},
	} {
		if args[0] != "inventory" {
			args = append(args, "--file", filepath.Join(t.TempDir(), "x.jsonl"))
		}
		_, errs, code := clickgen(t, args...)
		if code != 2 || !strings.Contains(errs, "the last model day is 29104 (2106-02-06)") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming the last model day", args, code, errs)
		}
	}
	out, errs, code := clickgen(t, "batch", "--day", "29104", "--limit", "3", "--file", "-")
	if code != 0 || !strings.Contains(out, `"UTCEventTime":"2106-02-05T20:`) {
		t.Errorf("day 29104: exit %d, stderr %q, out %.200q; want its events in 2106", code, errs, out)
	}
}
