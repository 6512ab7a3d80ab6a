package docsrun_test

// TestDocsCommands runs every ```sh block of README.md and docs/*.md, each document's blocks
// in order as one bash script, as a newcomer would type them in a clone of the repository
// (issue 31: "every command in README and docs is one that works as written, in sequence").
// The marks a block may carry (skip: REASON, needs kafka|clickhouse, starts kafka|clickhouse)
// are described in the package comment (recipes_test.go). The test lives in a package of its
// own so that its minutes
// count against a timeout of their own, not against cmd/clickgen's.

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/docsrun"
	"github.com/clickgen/clickgen/internal/testenv"
	"github.com/clickgen/clickgen/internal/tier/loopback"
	"github.com/clickgen/clickgen/internal/tier/realclickhouse"
	"github.com/clickgen/clickgen/internal/tier/realkafka"
)

// scriptBound bounds the wait for one document's script to end: generous, since a recipe may
// play a stress run of minutes; a script still running after it is a hang, and fails.
const scriptBound = 10 * time.Minute

// TestDocsCommands runs each document's blocks as a subtest named by the document's path.
func TestDocsCommands(t *testing.T) {
	testenv.Need(t, testenv.Docs, "")
	if testing.Short() {
		t.Skip("runs every command of the docs: minutes")
	}
	root := repoRoot(t)
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "clickgen"), "./cmd/clickgen")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, doc := range docs {
		name, _ := filepath.Rel(root, doc)
		t.Run(name, func(t *testing.T) {
			// Documents run side by side (each script has its own ports, servers and folder;
			// most of their time is waiting on servers and paced runs), each with its own copy
			// of the command: the README's `go install` replaces the one on its PATH.
			t.Parallel()
			own := t.TempDir()
			copyFile(t, filepath.Join(bin, "clickgen"), filepath.Join(own, "clickgen"))
			runDoc(t, root, own, name)
		})
	}
}

// copyFile copies the executable from to the new file to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// repoRoot is the folder above the working directory that holds go.mod.
func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = filepath.Dir(dir)
	}
}

// runDoc runs the blocks of the document name (relative to root) that are not marked skip.
func runDoc(t *testing.T, root, bin, name string) {
	text, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := docsrun.Parse(name, string(text))
	if err != nil {
		t.Fatal(err)
	}
	var run []docsrun.Block
	for _, b := range blocks {
		if b.Skip != "" {
			t.Logf("%s:%d skipped: %s", name, b.Line, b.Skip)
			continue
		}
		if err := b.Check(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		run = append(run, b)
	}
	if t.Failed() {
		return
	}
	if len(run) == 0 {
		t.Skipf("%s: no block runs (%d ```sh blocks, each marked skip)", name, len(blocks))
	}
	script := scriptOf(t, name, run)
	execute(t, name, strings.Split(string(text), "\n"), workDir(t, root), bin, script)
}

// scriptOf is the blocks as one script. Every loopback port the blocks name becomes a free
// port of the test's own (the same one in every block), so that two runs can go at once and
// nothing the user runs on 127.0.0.1:9092 is touched; a block that needs kafka or clickhouse
// gets the address of the server the test started instead. Only the text changes: the test
// exports no variable, so a command that forgets its --brokers fails here as for a reader.
func scriptOf(t *testing.T, name string, blocks []docsrun.Block) *docsrun.Script {
	var all []string
	for _, b := range blocks {
		all = append(all, b.Text)
	}
	// A script derives ports from the one it is given: a ClickHouse server's native and
	// interserver ports (N+1, N+2), a Kafka node's controller (N+100).
	ports := map[int]int{}
	for _, p := range docsrun.Ports(strings.Join(all, "\n")) {
		ports[p] = loopback.Base(t, 0, 1, 2, 100)
	}
	t.Logf("%s: loopback ports rewritten: %v", name, ports)
	for service, why := range map[string]func() string{"kafka": realkafka.Available, "clickhouse": realclickhouse.Available} {
		if slices.ContainsFunc(blocks, func(b docsrun.Block) bool { return b.StartsService(service) }) {
			requireTier(t, service, why())
		}
	}
	var kafka *realkafka.Cluster
	var ch *realclickhouse.Server
	if slices.ContainsFunc(blocks, func(b docsrun.Block) bool { return b.NeedsService("kafka") }) {
		kafka = realkafka.Start(t, 1)
		t.Logf("%s: 127.0.0.1:9092 is the Kafka node at %s in the blocks that need kafka", name, kafka.Bootstrap())
	}
	if slices.ContainsFunc(blocks, func(b docsrun.Block) bool { return b.NeedsService("clickhouse") }) {
		ch = realclickhouse.Start(t, realclickhouse.Options{})
		if kafka != nil {
			ch.ApplyDDL(kafka.Bootstrap(), realclickhouse.Topics{})
		}
		t.Logf("%s: 127.0.0.1:8123 is the ClickHouse server at %s in the blocks that need clickhouse", name, ch.Addr())
	}
	s := &docsrun.Script{}
	for _, b := range blocks {
		block := ports
		if b.NeedsService("kafka") {
			block = withPort(block, 9092, portOf(t, kafka.Bootstrap()))
		}
		if b.NeedsService("clickhouse") {
			block = withPort(block, 8123, portOf(t, ch.Addr()))
		}
		s.Add(b, docsrun.Rewrite(b.Text, block))
	}
	return s
}

// requireTier lets t go on only where the tier of a server a block starts runs (internal/testenv),
// why being what is missing for it ("" when nothing is).
func requireTier(t *testing.T, service, why string) {
	t.Helper()
	tier := map[string]testenv.Tier{"kafka": testenv.Kafka, "clickhouse": testenv.ClickHouse}[service]
	testenv.Need(t, tier, why)
}

// withPort is a copy of m with from mapped to to.
func withPort(m map[int]int, from, to int) map[int]int {
	c := make(map[int]int, len(m)+2)
	for k, v := range m {
		c[k] = v
	}
	c[from] = to
	return c
}

// portOf is the port of a host:port address.
func portOf(t *testing.T, addr string) int {
	_, p, err := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(p)
	if err != nil || n == 0 {
		t.Fatalf("address %q has no port (%v)", addr, err)
	}
	return n
}

// workDir is a fresh folder that looks like a clone of root to the commands (every entry of
// root but .git, as a symbolic link), so that `go install ./cmd/clickgen` and `.ci/...` run as
// written while what the commands write lands in the folder, not in the repository.
func workDir(t *testing.T, root string) string {
	dir := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// environ is the test's environment for a script: the built command first on PATH; GOBIN is
// that folder too, so the README's `go install ./cmd/clickgen` installs there and never into
// the user's GOPATH/bin; clickgen's own variables (KAFKA_*, GENERATOR_*, CLICKHOUSE_*,
// CLICKGEN_*) are dropped, so that nothing the user set points a recipe at their servers.
func environ(bin string) []string {
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "GOBIN=" + bin}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "PATH" || name == "GOBIN" || name == "JOB_COMPLETION_INDEX" || slices.ContainsFunc(
			[]string{"KAFKA_", "GENERATOR_", "CLICKHOUSE_", "CLICKGEN_"},
			func(p string) bool { return strings.HasPrefix(name, p) }) {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// execute runs the script with bash in dir, in a process group of its own that is killed
// when the script ends (whatever it left in the background goes with it) or the test binary
// dies, and fails t with
// the document line that failed (lines are the document's) and the end of the output when
// the script exits non-zero.
func execute(t *testing.T, name string, lines []string, dir, bin string, s *docsrun.Script) {
	out, err := os.Create(filepath.Join(t.TempDir(), "output"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ctx, cancel := context.WithTimeout(context.Background(), scriptBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", s.Text)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, environ(bin), out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	release := guardGroup(t, cmd.Process.Pid)
	err = cmd.Wait()
	took := time.Since(start).Round(time.Millisecond)
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	release()
	waitGone(t, cmd.Process.Pid)
	text, _ := os.ReadFile(out.Name())
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s: the script did not end within %v:\n%s", name, scriptBound, tail(string(text), 60))
	case err != nil:
		where := name + ": the script stopped at no line of the document"
		if line, ok := docsrun.Failed(string(text)); ok && s.DocLine(line) != 0 {
			n := s.DocLine(line)
			where = name + ":" + strconv.Itoa(n) + ": " + strings.TrimSpace(lines[n-1])
		}
		t.Fatalf("%s\n(%v, after %v); the output's end:\n%s", where, err, took, tail(string(text), 60))
	}
	t.Logf("%s: every block ran in %v", name, took)
}

// guardGroup starts a process in the process group pgid that kills the group when its
// standard input closes, which the kernel does when the test binary dies (go test's -timeout,
// a crash): Pdeathsig kills bash alone, not what the script left in the background. release
// ends the guard (call it once the group was killed).
func guardGroup(t *testing.T, pgid int) (release func()) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	guard := exec.Command("bash", "-c", "read -r _; kill -KILL -- -"+strconv.Itoa(pgid))
	guard.Stdin = r
	guard.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	if err := guard.Start(); err != nil {
		t.Fatalf("the guard of the script's process group: %v", err)
	}
	r.Close()
	return func() { w.Close(); guard.Wait() }
}

// waitGone waits (at most 10 s) until the killed process group pgid has no member left.
func waitGone(t *testing.T, pgid int) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("process group %d still has members 10 s after SIGKILL", pgid)
}

// tail is the last n lines of text.
func tail(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
