package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command line's findings of issues 28, 29 and 31. These tests use nothing but the
// command line (clickgen, kfakeCluster, consume), so the same file run against the commit
// before shows each finding failing there.

// TestFollowFlagsRefusedWhereIgnored is issue 29 N5: verify and inject accepted
// --follow-group and the other follow flags and ignored them (exit 1 on the connection, not 2
// on usage). Every flag is checked against the verb it is given to.
func TestFollowFlagsRefusedWhereIgnored(t *testing.T) {
	for _, args := range [][]string{
		{"verify", "--day", "0", "--brokers", "127.0.0.1:1", "--follow-group", "g"},
		{"verify", "--day", "0", "--brokers", "127.0.0.1:1", "--follow-timeout", "1s"},
		{"inject", "--kind", "hits", "--class", "not_an_object", "--brokers", "127.0.0.1:1", "--topic", "hits", "--follow-group", "g"},
		{"inject", "--kind", "hits", "--class", "not_an_object", "--brokers", "127.0.0.1:1", "--topic", "hits", "--follow-every", "1s"},
		{"verify", "--day", "0", "--brokers", "127.0.0.1:1", "--linger", "1s"},
	} {
		_, errs, code := clickgen(t, args...)
		if flag := args[len(args)-2]; code != 2 || !strings.Contains(errs, flag+" does not apply to "+args[0]) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 saying %s does not apply", args, code, errs, flag)
		}
	}
}

// TestFollowEveryFloor is issue 29 N9: --follow-every 1ns polled the groups 4,922 times in
// 3 s; a period below the floor is a usage error before anything is sent.
func TestFollowEveryFloor(t *testing.T) {
	for _, every := range []string{"1ns", "9ms", "0s"} {
		_, errs, code := clickgen(t, "batch", "--day", "0", "--brokers", "127.0.0.1:1", "--topic", "hits", "--follow-group", "g", "--follow-every", every)
		if code != 2 || !strings.Contains(errs, "--follow-every "+every+": want at least 10ms") {
			t.Errorf("--follow-every %s: exit %d, stderr %q; want exit 2 naming the floor", every, code, errs)
		}
	}
}

// TestGroupNamesChecked is issue 29 N12: group names were printed raw (a newline in a name
// broke the lines) and 40,000-character names were accepted.
func TestGroupNamesChecked(t *testing.T) {
	for _, g := range []string{"a\nb", "tab\tbed", strings.Repeat("g", 40000), "\xff"} {
		_, errs, code := clickgen(t, "batch", "--day", "0", "--brokers", "127.0.0.1:1", "--topic", "hits", "--follow-group", g)
		if code != 2 || !strings.Contains(errs, "--follow-group: ") || strings.Count(errs, "\n") != 2 || len(errs) > 300 {
			t.Errorf("--follow-group %.40q: exit %d, stderr %.300q; want exit 2 in two short lines", g, code, errs)
		}
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

// TestRunHonoursBootstrapServers is issue 31 item 1: KAFKA_BOOTSTRAP_SERVERS=kafka:9092
// clickgen run ignored the variable the README says every verb honours, filled an embedded
// broker and printed OK; run --brokers ” ran embedded too. The embedded broker is for when
// neither the flag nor the variable is set, and the console says which.
func TestRunHonoursBootstrapServers(t *testing.T) {
	_, addr := kfakeCluster(t)
	t.Setenv("KAFKA_BOOTSTRAP_SERVERS", addr)
	out, errs, code := clickgen(t, "run", "smoke")
	if code != 0 || strings.Contains(errs, "embedded broker on") || !strings.Contains(errs, "(env KAFKA_BOOTSTRAP_SERVERS; --embedded plays into an embedded broker instead)") ||
		!strings.Contains(out, "expect hits: 2282 messages, profile smoke says 2282: ok") {
		t.Errorf("run smoke with KAFKA_BOOTSTRAP_SERVERS: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if n := len(consume(t, addr, "hits")); n != 2282 {
		t.Errorf("the variable's cluster holds %d hits, want 2282", n)
	}
	for _, args := range [][]string{{"run", "smoke", "--brokers", ""}, {"run", "smoke", "--brokers", " , "}} {
		if _, errs, code := clickgen(t, args...); code != 2 || !strings.Contains(errs, `for "--brokers" flag: no broker named`) {
			t.Errorf("%q: exit %d, stderr %q; want exit 2, an empty --brokers refused", args, code, errs)
		}
	}
	t.Setenv("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:1")
	if _, errs, code := clickgen(t, "run", "smoke", "--brokers", addr, "--send", "snapshots"); code != 0 || !strings.Contains(errs, "(--brokers)") {
		t.Errorf("--brokers beats the variable: exit %d, stderr %q", code, errs)
	}
	t.Setenv("KAFKA_BOOTSTRAP_SERVERS", "")
	if _, errs, code := clickgen(t, "run", "smoke", "--send", "snapshots"); code != 0 || !strings.Contains(errs, "embedded broker on 127.0.0.1:") {
		t.Errorf("neither: exit %d, stderr %q; want the embedded broker", code, errs)
	}
}

// TestTypos is issue 31: a typo of a verb, a profile or a flag gets a suggestion, exit 2.
func TestTypos(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rnu"}, "clickgen: unknown verb \"rnu\"; did you mean run?\n"},
		{[]string{"inv", "--day", "0"}, `clickgen: unknown verb "inv"; did you mean inventory?`},
		{[]string{"verfy"}, `clickgen: unknown verb "verfy"; did you mean verify?`},
		{[]string{"run", "fil"}, `clickgen: run: unknown profile "fil": want one of fill, garbage, live, smoke, stress, or --profile-file FILE; did you mean fill?`},
		{[]string{"profiles", "show", "stres"}, `unknown profile "stres": want one of fill, garbage, live, smoke, stress, or --profile-file FILE; did you mean stress?`},
		{[]string{"batch", "--day", "0", "--brokrs", "k:9"}, "clickgen: batch: unknown flag: --brokrs; did you mean --brokers?\n"},
		{[]string{"run", "--sede", "3"}, "unknown flag: --sede; did you mean --seed?\n"},
		{[]string{"xyzzy"}, "clickgen: unknown verb \"xyzzy\"\n"},
	} {
		_, errs, code := clickgen(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("clickgen %q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errs, tc.want)
		}
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

// TestHelpConsistent is issue 31: every verb's help fits in 100 columns (lines of 126 were
// found), names the exit codes the verb returns (some verbs did not), shows defaults as a
// user reads them (run --days (default 1) though fill plays 8; --max-memory (default 0
// bytes); 2m0s) and lists only the flags that apply (verify listed producer flags), verify's
// Kafka and ClickHouse flags in two labelled groups.
func TestHelpConsistent(t *testing.T) {
	for _, v := range []string{"run", "profiles", "batch", "live", "snapshot", "inventory", "verify", "plot", "inject", "catalog", "broker", "schema", "version"} {
		out, errs, code := clickgen(t, v, "--help")
		if code != 0 || errs != "" {
			t.Errorf("%s --help: exit %d, stderr %q", v, code, errs)
		}
		for i, line := range strings.Split(out, "\n") {
			if n := len([]rune(line)); n > 100 {
				t.Errorf("%s --help line %d is %d columns: %q", v, i+1, n, line)
			}
		}
		if !strings.Contains(out, "\nExit codes: 0 ") || !strings.Contains(out, ", 2 for usage errors") {
			t.Errorf("%s --help does not name its exit codes:\n%s", v, out)
		}
		for _, bad := range []string{"(default 0 bytes)", "m0s)", "h0m", "[=true|false]"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s --help shows %q", v, bad)
			}
		}
	}
	out, _, _ := clickgen(t, "run", "--help")
	if strings.Contains(out, "(default 1)") || strings.Contains(out, "(default 20260601)") || !strings.Contains(out, "env KAFKA_BOOTSTRAP_SERVERS") {
		t.Errorf("run --help shows a default its profile decides, or not the variable it reads:\n%s", out)
	}
	out, _, _ = clickgen(t, "verify", "--help")
	k := strings.Index(out, "\nKafka flags:\n")
	c := strings.Index(out, "\nClickHouse flags:\n")
	if k < 0 || c < k || !strings.Contains(out[k:c], "--brokers") || !strings.Contains(out[k:c], "--hits-partitions") ||
		!strings.Contains(out[c:], "--clickhouse URL") || !strings.Contains(out[c:], "--events-table") || !strings.Contains(out[c:], "--wait") {
		t.Errorf("verify --help: want the Kafka and the ClickHouse flags in two labelled groups:\n%s", out)
	}
	for _, producer := range []string{"--delivery-timeout", "--linger", "--compression", "--follow-", "--create-topics", "--flush-timeout", "--metrics-addr"} {
		if strings.Contains(out, producer) {
			t.Errorf("verify --help lists the producer flag %s", producer)
		}
	}
}

// TestFunctionsShort is issue 28 item 6: no function of cmd/clickgen (its packages included,
// tests excluded) is longer than 60 lines.
func TestFunctionsShort(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > 60 {
					t.Errorf("%s: %s is %d lines, want at most 60", fset.Position(fd.Pos()), fd.Name.Name, n)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
