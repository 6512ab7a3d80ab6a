// Package testenv says which test tiers run, and is the one place that reads the switch that
// selects them (as Go's own internal/testenv is for the toolchain's tests).
//
// The default `go test ./...` is the quick tier: unit, golden, determinism and statistical
// tests, and Kafka tests against the in-process kfake broker. Every other tier needs a tool or
// a server (kcat, chDB, chromium, Apache Kafka, ClickHouse, a ClickHouse cluster) and runs only
// when the environment variable CLICKGEN_TIERS selects it: "all", or a comma-separated list of
// tier names ("kafka,clickhouse"). A selected tier is mandatory: when its tool is missing the
// test fails, saying what to install. .ci/run installs every tool and sets CLICKGEN_TIERS=all.
//
// A test asks for its tier with [Need]; a package whose tests do so runs them through [Main]
// from its TestMain, which prints one line naming the tiers that ran and those skipped, and
// why — without -v too, so that a quick run says what it left out.
package testenv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// Env is the switch: "all", or a comma-separated list of tier names.
const Env = "CLICKGEN_TIERS"

// Tier is one test tier beyond the quick one, named as CLICKGEN_TIERS names it.
type Tier string

// The tiers, in the order the product's test plan numbers them.
const (
	Kcat       Tier = "kcat"       // an independent client: kcat (librdkafka) reading a separate broker process
	ChDB       Tier = "chdb"       // a real ClickHouse engine in process: chDB's libchdb.so (ClickHouse 26.7)
	Kafka      Tier = "kafka"      // real Apache Kafka 4.3.1 nodes (Java and the fetched jars)
	Chromium   Tier = "chromium"   // headless chromium opening clickgen's pages
	ClickHouse Tier = "clickhouse" // Debian's clickhouse-server 18.16 on loopback
	Cluster    Tier = "cluster"    // ZooKeeper and several 18.16 servers as one cluster
	Docs       Tier = "docs"       // every command of the documentation, run as written
)

// Tiers lists every tier, in order.
var Tiers = []Tier{Kcat, ChDB, Kafka, Chromium, ClickHouse, Cluster, Docs}

// selection parses CLICKGEN_TIERS: the tiers it selects, and an error for a name that is no
// tier (a typo must not quietly run less than asked).
func selection() (map[Tier]bool, error) {
	v := strings.TrimSpace(os.Getenv(Env))
	sel := map[Tier]bool{}
	if v == "" {
		return sel, nil
	}
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
		case name == "all":
			for _, t := range Tiers {
				sel[t] = true
			}
		case slices.Contains(Tiers, Tier(name)):
			sel[Tier(name)] = true
		default:
			return nil, fmt.Errorf("%s=%q: %q is no tier (tiers: all, %s)", Env, v, name, joinTiers(Tiers))
		}
	}
	return sel, nil
}

func joinTiers(ts []Tier) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// Selected reports whether CLICKGEN_TIERS selects tier. A malformed switch selects nothing
// (and [Need] fails the test that asks, naming the mistake).
func Selected(tier Tier) bool {
	sel, err := selection()
	return err == nil && sel[tier]
}

// Need lets t go on only where tier runs: it skips t when CLICKGEN_TIERS does not select the
// tier, and fails it when the tier is selected but missing (what is absent, and how to install
// it; "" when the tier's tool is there) is not empty. Call it first in a test of the tier.
func Need(t testing.TB, tier Tier, missing string) {
	t.Helper()
	sel, err := selection()
	if err != nil {
		t.Fatal(err)
	}
	if !sel[tier] {
		record(tier, false, "not selected")
		t.Skipf("%s tier not selected: %s=%s (or all) runs it", tier, Env, tier)
	}
	if missing != "" {
		record(tier, false, "missing: "+missing)
		t.Fatalf("%s tier selected by %s but %s", tier, Env, missing)
	}
	t.Cleanup(func() {
		switch {
		case !t.Skipped():
			record(tier, true, "")
		case testing.Short():
			record(tier, false, "-short")
		default:
			record(tier, false, "skipped by the test")
		}
	})
}

// MustHaveCommand returns the path of the first of names found on PATH, or "" and what to
// install: for [Need] as its missing argument, with the tier's install hint.
func MustHaveCommand(install string, names ...string) (path, missing string) {
	for _, n := range names {
		if p, err := lookPath(n); err == nil {
			return p, ""
		}
	}
	return "", fmt.Sprintf("%s is not installed (%s)", strings.Join(names, " or "), install)
}

func lookPath(name string) (string, error) {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New(name + ": not on PATH")
}

// RepoRoot returns the checkout's root: the nearest directory at or above the working
// directory whose go.mod declares the clickgen module.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/clickgen/clickgen\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod of github.com/clickgen/clickgen above the working directory")
		}
		dir = parent
	}
}

// outcome is what the tests of one tier did in this test binary.
type outcome struct {
	ran     int
	skipped map[string]int // by reason
}

var tally struct {
	sync.Mutex
	by map[Tier]*outcome
}

func record(tier Tier, ran bool, reason string) {
	tally.Lock()
	defer tally.Unlock()
	if tally.by == nil {
		tally.by = map[Tier]*outcome{}
	}
	o := tally.by[tier]
	if o == nil {
		o = &outcome{skipped: map[string]int{}}
		tally.by[tier] = o
	}
	if ran {
		o.ran++
	} else {
		o.skipped[reason]++
	}
}

// Summary is the package's tier line: the tiers whose tests ran, and those skipped with why;
// "" when no test asked for a tier.
func Summary(pkg string) string {
	tally.Lock()
	defer tally.Unlock()
	var ran, skipped []string
	for _, tier := range Tiers {
		o := tally.by[tier]
		if o == nil {
			continue
		}
		if o.ran > 0 {
			ran = append(ran, fmt.Sprintf("%s (%d)", tier, o.ran))
		}
		reasons := make([]string, 0, len(o.skipped))
		for r, n := range o.skipped {
			reasons = append(reasons, fmt.Sprintf("%s ×%d", r, n))
		}
		slices.Sort(reasons)
		if len(reasons) > 0 {
			skipped = append(skipped, fmt.Sprintf("%s (%s)", tier, strings.Join(reasons, ", ")))
		}
	}
	if len(ran) == 0 && len(skipped) == 0 {
		return ""
	}
	line := "tiers of " + pkg + ":"
	if len(ran) > 0 {
		line += " ran " + strings.Join(ran, ", ")
		if len(skipped) > 0 {
			line += ";"
		}
	}
	if len(skipped) > 0 {
		line += " skipped " + strings.Join(skipped, ", ")
		if sel, _ := selection(); len(sel) == 0 {
			line += "; " + Env + "=all runs every tier"
		}
	}
	return line
}

// DefaultParallel makes n how many of the package's parallel tests run at once (-parallel)
// unless the command line says: for packages whose tests mostly wait on servers and processes
// of their own, where go test's default (GOMAXPROCS) leaves the waits one after another. It
// puts -test.parallel=n first among the test binary's arguments, so a -parallel that go test
// passes on comes later and wins. Call it from TestMain before [Main].
func DefaultParallel(n int) {
	os.Args = slices.Insert(os.Args, 1, "-test.parallel="+strconv.Itoa(n))
}

// Main runs the package's tests and prints its tier line. Use it as a package's TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
//
// With -v the line goes to standard output with the tests' own. Without -v `go test` shows a
// passing package's output to no one, so the line goes to the go command's standard error
// instead when that is a terminal or a pipe (never a regular file, which the go command may be
// writing at its own offset): a quick run says which tiers it left out.
func Main(m *testing.M) int {
	code := m.Run()
	line := Summary(packagePath())
	if line == "" {
		return code
	}
	if testing.Verbose() || code != 0 {
		fmt.Println(line)
		return code
	}
	if w := parentStderr(); w != nil {
		fmt.Fprintln(w, line)
		w.Close()
	}
	return code
}

// packagePath names the package under test by its folder in the checkout (go test runs a
// test binary in its package's folder).
func packagePath() string {
	wd, err := os.Getwd()
	if err != nil {
		return "this package"
	}
	if root, err := RepoRoot(); err == nil {
		if rel, err := filepath.Rel(root, wd); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(wd)
}

// parentStderr opens the standard error of the process that started this test binary (the go
// command) for appending, when it is a terminal or a pipe; nil otherwise.
func parentStderr() io.WriteCloser {
	path := "/proc/" + strconv.Itoa(os.Getppid()) + "/fd/2"
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return nil
	}
	if mode := st.Mode & syscall.S_IFMT; mode != syscall.S_IFCHR && mode != syscall.S_IFIFO {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil
	}
	return f
}

// SkipUnderRace skips t when the race detector is on. It is for tests whose cost is one
// goroutine's bytes or statistics: the detector can find nothing there, and it makes them five
// to ten times slower. watched names the tests that keep the concurrent paths such a test also
// passes through (workers, read-ahead) under the detector. Without -race the test runs as
// always; CI runs every test without -race in its every-tier job.
func SkipUnderRace(t testing.TB, watched string) {
	t.Helper()
	if Race {
		t.Skipf("not under -race: one goroutine's work, its concurrent paths are watched by %s", watched)
	}
}
