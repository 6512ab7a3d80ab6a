package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Issue 24: absurd and ambiguous input is refused (exit 2, nothing sent), naming the value
// and its bound, or read the one way a user means it.

// TestIntegersAreDecimal is issue 24 Medium 2: every integer a user types is decimal. pflag
// parses integer flags with base 0, so --day 010 and GENERATOR_DAY=010 played day 8, --day
// 0x10 day 16, --seed 010 seed 8 and GENERATOR_LIMIT=010 stopped after 8 messages. Leading
// zeros are read as decimal; a base prefix or an underscore is refused.
func TestIntegersAreDecimal(t *testing.T) {
	small := []string{"--scale", "0.02"}
	for _, tc := range []struct {
		name      string
		env       map[string]string
		args      []string
		day, days int
		seed      uint64
	}{
		{"--day 010", nil, []string{"--day", "010"}, 10, 1, 20260601},
		{"--day 08", nil, []string{"--day", "08"}, 8, 1, 20260601},
		{"GENERATOR_DAY=010", map[string]string{"GENERATOR_DAY": "010"}, nil, 10, 1, 20260601},
		{"--days 010", nil, []string{"--day", "0", "--days", "010"}, 0, 10, 20260601},
		{"GENERATOR_DAYS=010", map[string]string{"GENERATOR_DAYS": "010"}, []string{"--day", "0"}, 0, 10, 20260601},
		{"--seed 010", nil, []string{"--day", "0", "--seed", "010"}, 0, 1, 10},
		{"GENERATOR_SEED=010", map[string]string{"GENERATOR_SEED": "010"}, []string{"--day", "0"}, 0, 1, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			inv := inventoryOf(t, append(tc.args, small...)...)
			if len(inv.Days) != tc.days || inv.Days[0].Day != tc.day || inv.Seed != tc.seed {
				t.Errorf("%d days from day %d, seed %d; want %d from day %d, seed %d", len(inv.Days), inv.Days[0].Day, inv.Seed, tc.days, tc.day, tc.seed)
			}
		})
	}
	t.Run("GENERATOR_LIMIT=010", func(t *testing.T) {
		t.Setenv("GENERATOR_LIMIT", "010")
		out, errs, code := clickgen(t, "batch", "--day", "0", "--scale", "0.02", "--file", "-")
		if n := strings.Count(out, "\n"); code != 0 || n != 10 {
			t.Errorf("exit %d, %d lines, stderr %q; want exit 0 and 10 lines", code, n, errs)
		}
	})
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"inventory", "--day", "0x10"}, `invalid argument "0x10" for "--day" flag: must be a decimal integer`},
		{nil, []string{"inventory", "--day", "0o10"}, `invalid argument "0o10" for "--day" flag: must be a decimal integer`},
		{nil, []string{"inventory", "--day", "1_0"}, `invalid argument "1_0" for "--day" flag: must be a decimal integer`},
		{nil, []string{"inventory", "--day", "0", "--seed", "0x10"}, `invalid argument "0x10" for "--seed" flag: must be a decimal integer`},
		{map[string]string{"GENERATOR_DAY": "0x10"}, []string{"inventory"}, `environment variable GENERATOR_DAY="0x10": invalid argument "0x10" for "--day" flag: must be a decimal integer`},
		{map[string]string{"GENERATOR_LIMIT": "0b1"}, []string{"batch", "--day", "0", "--file", filepath.Join(t.TempDir(), "x")}, `environment variable GENERATOR_LIMIT="0b1": invalid argument "0b1" for "--limit" flag: must be a decimal integer`},
		{nil, []string{"run", "--messages", "0x10"}, `invalid argument "0x10" for "--messages" flag: must be a decimal integer`},
		{nil, []string{"verify", "--day", "0", "--hits-partitions", "0x2"}, `invalid argument "0x2" for "--hits-partitions" flag: must be a decimal integer`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, errs, code := clickgen(t, tc.args...)
			if code != 2 || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errs, tc.want)
			}
		})
	}
}

// TestProfileSeedNotCoerced is issue 24 Medium 3: world.seed 18446744073709551616 ran seed
// 9223372036854775808 and seed 1.5 ran seed 1, while --seed 1.5 was refused. Both are usage
// errors before anything is sent (run would otherwise start its embedded broker).
func TestProfileSeedNotCoerced(t *testing.T) {
	for seed, want := range map[string]string{
		"18446744073709551616": "world.seed: 18446744073709551616 is out of range: want 0 to 18446744073709551615 (line 2)",
		"1.5":                  `world.seed: "1.5" is not a whole number (line 2)`,
		"0x10":                 `world.seed: "0x10" must be a decimal integer`,
	} {
		file := filepath.Join(t.TempDir(), "p.yaml")
		if err := os.WriteFile(file, []byte("world:\n  seed: "+seed+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"run", "--profile-file", file}, {"profiles", "show", "--profile-file", file}} {
			_, errs, code := clickgen(t, args...)
			if code != 2 || !strings.Contains(errs, want) || strings.Contains(errs, "embedded broker") {
				t.Errorf("seed %s, %s: exit %d, stderr %q; want exit 2 and %q", seed, args[0], code, errs, want)
			}
		}
	}
}

// TestSegmentSourcesRefused is issue 24 Low 1 and 2: CLICKGEN_SEGMENT=0/2 with --segments 4
// and JOB_COMPLETION_INDEX=2 played 2/4 silently, and --segment 0/0 (or CLICKGEN_SEGMENT=0/0)
// played the whole world. Both are usage errors before anything is sent.
func TestSegmentSourcesRefused(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"CLICKGEN_SEGMENT": "0/2", "JOB_COMPLETION_INDEX": "2"}, []string{"--segments", "4"}, `both env CLICKGEN_SEGMENT="0/2" and --segments 4 given: choose one`},
		{nil, []string{"--segment", "0/0"}, `invalid argument "0/0" for "--segment" flag: segment 0/0: want I/N with 0 ≤ I < N`},
		{map[string]string{"CLICKGEN_SEGMENT": "0/0"}, nil, `environment variable CLICKGEN_SEGMENT="0/0": invalid argument "0/0" for "--segment" flag: segment 0/0: want I/N with 0 ≤ I < N`},
		{nil, []string{"--segment", "1/0"}, `segment 1/0: want I/N with 0 ≤ I < N`},
	} {
		for _, verb := range []string{"batch", "run"} {
			file := filepath.Join(t.TempDir(), "out")
			args := []string{verb, "--day", "0", "--scale", "0.02"}
			if verb == "batch" {
				args = append(args, "--file", file)
			}
			t.Run(verb+" "+strings.Join(tc.args, " "), func(t *testing.T) {
				for k, v := range tc.env {
					t.Setenv(k, v)
				}
				_, errs, code := clickgen(t, append(args, tc.args...)...)
				if code != 2 || !strings.Contains(errs, tc.want) {
					t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errs, tc.want)
				}
				if _, err := os.Stat(file); err == nil {
					t.Errorf("%s was written: something was sent", file)
				}
			})
		}
	}
}

// TestInventoryMergeRefusals: inventory --merge refuses what is not the N shares of one run,
// exit 2 naming the file (issue 24 Low 3: null and {} used to merge into an empty inventory
// with an empty generator_version, exit 0, though plot refuses the same file).
func TestInventoryMergeRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	share := func(name string, args ...string) string {
		t.Helper()
		out, errs, code := clickgen(t, append([]string{"inventory", "--day", "0", "--scale", "0.02"}, args...)...)
		if code != 0 {
			t.Fatalf("inventory %v: exit %d: %s", args, code, errs)
		}
		return write(name, out)
	}
	s0, s1 := share("s0.json", "--segment", "0/2"), share("s1.json", "--segment", "1/2")
	other := share("other.json", "--segment", "1/2", "--seed", "7")
	third := share("third.json", "--segment", "0/3")
	null, empty, array, broken := write("null.json", "null\n"), write("empty.json", "{}\n"), write("array.json", "[]\n"), write("broken.json", "{")
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{null}, "--merge " + null + `: not a clickgen inventory: no "generator_version" key`},
		{[]string{empty}, "--merge " + empty + `: not a clickgen inventory: no "generator_version" key`},
		{[]string{s0, null}, "--merge " + null + `: not a clickgen inventory: no "generator_version" key`},
		{[]string{array}, "--merge " + array + ": json: cannot unmarshal array"},
		{[]string{broken}, "--merge " + broken + ": unexpected end of JSON input"},
		{[]string{filepath.Join(dir, "none.json")}, "--merge: open " + filepath.Join(dir, "none.json")},
		{[]string{s0}, "merge: segment 0/2 among 1 inventories: want the 2 shares of one run"},
		{[]string{s0, s0}, "merge: segment 0/2 given twice"},
		{[]string{s0, other}, "merge: segment 1/2: another world (seed, generator version, catalog or scale)"},
		{[]string{s0, third}, "merge: segment 0/3 among 2 inventories: want the 3 shares of one run"},
	} {
		out, errs, code := clickgen(t, append([]string{"inventory", "--merge"}, tc.files...)...)
		if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("--merge %v: exit %d, stderr %q, %d bytes out; want exit 2, %q and nothing on stdout", tc.files, code, errs, len(out), tc.want)
		}
	}
	if _, errs, code := clickgen(t, "inventory", "--merge", s0, s1); code != 0 {
		t.Errorf("--merge of both shares: exit %d: %s", code, errs)
	}
}

// TestRunMixWithoutGarbage is issue 24 Low 4: run fill --garbage-mix not_an_object=1 ran
// without garbage, exit 0, while batch refuses the same flags. Both refuse it in one wording;
// a profile that makes garbage takes a mix alone.
func TestRunMixWithoutGarbage(t *testing.T) {
	const want = "--garbage-mix without --garbage: the mix weighs garbage that is not being made"
	for _, args := range [][]string{
		{"run", "fill", "--garbage-mix", "not_an_object=1"},
		{"run", "garbage", "--garbage", "0", "--garbage-mix", "not_an_object=1"},
		{"batch", "--day", "0", "--garbage-mix", "not_an_object=1", "--file", filepath.Join(t.TempDir(), "x")},
	} {
		_, errs, code := clickgen(t, args...)
		if code != 2 || !strings.Contains(errs, want) || strings.Contains(errs, "embedded broker") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", args, code, errs, want)
		}
	}
}

// TestProfilesShowChecksCatalog is issue 24 Low 14: profiles show --profile-file exited 0 for
// world.catalog: /nonexistent or a directory, though its help says it checks the file.
func TestProfilesShowChecksCatalog(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("sku,name\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for catalog, want := range map[string]string{
		"/nonexistent": "world.catalog: open /nonexistent: no such file or directory",
		dir:            "world.catalog: read " + dir + ": is a directory",
		bad:            "world.catalog " + bad + ":",
	} {
		file := filepath.Join(dir, "p.yaml")
		if err := os.WriteFile(file, []byte("play:\n  day: 0\nworld:\n  catalog: "+catalog+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errs, code := clickgen(t, "profiles", "show", "--profile-file", file)
		if code != 2 || !strings.Contains(errs, "--profile-file "+file+": "+want) || out != "" {
			t.Errorf("catalog %s: exit %d, stderr %q; want exit 2 and %q", catalog, code, errs, want)
		}
	}
}

// TestProgressIntervalFloor is issue 24 Low 9: --interval 1ns printed 135 655 lines in 2 s and
// live --progress-every 1ns 201 623. A progress period under 100ms is refused before
// anything is sent; 100ms itself is a line about every 100ms.
func TestProgressIntervalFloor(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "stress", "--interval", "1ns"}, "--interval 1ns: want at least 100ms"},
		{[]string{"run", "stress", "--interval", "99ms"}, "--interval 99ms: want at least 100ms"},
		{[]string{"live", "--day", "0", "--progress-every", "1ns", "--file", filepath.Join(t.TempDir(), "x")}, "--progress-every 1ns: want at least 100ms"},
	} {
		_, errs, code := clickgen(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Contains(errs, "embedded broker") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	// Each interval line is labelled with the run's elapsed time: a line per 100ms means
	// no more lines than the last label's tenths of a second (one more for its rounding);
	// a loaded machine stretches the final flush, and the run, by a few lines.
	_, errs, code := clickgen(t, "run", "stress", "--scale", "0.02", "--rate", "1000/s", "--duration", "1s", "--interval", "100ms")
	at := regexp.MustCompile(`clickgen: stress +([\d.]+)s: `).FindAllStringSubmatch(errs, -1)
	if code != 0 || len(at) < 5 {
		t.Fatalf("--interval 100ms over 1s: exit %d, %d interval lines; want exit 0 and a line each 100ms of the run:\n%s", code, len(at), errs)
	}
	last, err := strconv.ParseFloat(at[len(at)-1][1], 64)
	if err != nil || float64(len(at)) > last*10+1.5 {
		t.Errorf("--interval 100ms: %d interval lines, the last at %ss: more than one per 100ms\n%s", len(at), at[len(at)-1][1], errs)
	}
}

// TestEndlessStopsAtLastDay is issue 24 Medium 4: an endless stress run went on past the last
// model day (run stress --day 29104 sent days after it with UTCEventTime in 1970; from day 0
// at scale 0.001 it played 51 458 days, dates wrapping). It now stops cleanly after day
// 29 104, says so and exits 0, the report giving the stop reason.
func TestEndlessStopsAtLastDay(t *testing.T) {
	report := filepath.Join(t.TempDir(), "r.json")
	_, errs, code := clickgen(t, "run", "stress", "--day", "29103", "--scale", "0.02", "--rate", "500000/s", "--duration", "30s", "--report", report)
	const want = "clickgen: stopped at the last model day 29104 (2106-02-06), where UTCEventTime ends, after "
	if code != 0 || !strings.Contains(errs, want) || strings.Contains(errs, "day 29105") {
		t.Fatalf("exit %d, stderr:\n%s\nwant exit 0 and %q", code, errs, want)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"stopped": "last_day"`) {
		t.Errorf("report does not give the stop reason last_day:\n%.600s", data)
	}
}

// TestIntegersReadOneWay is issue 29 N15: --segment ' 0/2' was accepted while --day ' 5' was
// refused, and a profile's seed 1e3 was called "not a whole number". Every integer a user
// types is read by one reader, in one wording.
func TestIntegersReadOneWay(t *testing.T) {
	file := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"batch", "--day", "0", "--segment", " 0/2", "--file", file}, `invalid argument " 0/2" for "--segment" flag: segment " 0/2": want I/N in decimal digits`},
		{[]string{"batch", "--day", "0", "--segment", "0x0/2", "--file", file}, `for "--segment" flag: segment "0x0/2": want I/N in decimal digits`},
		{[]string{"batch", "--day", " 5", "--file", file}, `invalid argument " 5" for "--day" flag: must be a decimal integer`},
		{[]string{"batch", "--day", "0", "--seed", "1e3", "--file", file}, `invalid argument "1e3" for "--seed" flag: must be a decimal integer`},
		{[]string{"batch", "--day", "0", "--seed", "1.5", "--file", file}, `invalid argument "1.5" for "--seed" flag: is not a whole number`},
	} {
		_, errs, code := clickgen(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	for seed, want := range map[string]string{"1e3": `world.seed: "1e3" must be a decimal integer`, "1.5": `world.seed: "1.5" is not a whole number`} {
		p := filepath.Join(t.TempDir(), "p.yaml")
		if err := os.WriteFile(p, []byte("world:\n  seed: "+seed+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, errs, code := clickgen(t, "profiles", "show", "--profile-file", p); code != 2 || !strings.Contains(errs, want) {
			t.Errorf("profile seed %s: exit %d, stderr %q; want %q", seed, code, errs, want)
		}
	}
	if _, err := os.Stat(file); err == nil {
		t.Errorf("something was written")
	}
}
