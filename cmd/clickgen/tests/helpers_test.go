package tests

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"context"
	"encoding/json"
	"regexp"
	"slices"

	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/internal/cmdtest"
	"github.com/clickgen/clickgen/internal/tier/kafkatest"
	"github.com/twmb/franz-go/pkg/kfake"
)

// started is a clickgen process whose stderr is read line by line.
type started struct {
	cmd   *exec.Cmd
	lines chan string // stderr, closed at its end
	seen  []string
	done  chan error
}

// start runs bin with args (env added to the environment) in dir ("" for the test's).
func start(t *testing.T, bin, dir string, env []string, args ...string) *started {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &started{cmd: cmd, lines: make(chan string, 100), done: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
		s.done <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	return s
}

// await waits up to limit for a stderr line containing want, failing the test (and killing
// the process) if the process ends or the time passes first.
func (s *started) await(t *testing.T, want string, limit time.Duration) {
	t.Helper()
	timeout := time.After(limit)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				t.Fatalf("%v ended without saying %q:\n%s", s.cmd.Args[1:], want, strings.Join(s.seen, "\n"))
			}
			s.seen = append(s.seen, line)
			if strings.Contains(line, want) {
				return
			}
		case <-timeout:
			s.cmd.Process.Kill()
			t.Fatalf("%v: no %q within %v:\n%s", s.cmd.Args[1:], want, limit, strings.Join(s.seen, "\n"))
		}
	}
}

// exit waits up to limit for the process to end and returns its exit code and the rest of
// stderr; a process still running then is killed and fails the test.
func (s *started) exit(t *testing.T, limit time.Duration) (int, string) {
	t.Helper()
	timeout := time.After(limit)
	for {
		select {
		case line, ok := <-s.lines:
			if ok {
				s.seen = append(s.seen, line)
				continue
			}
			err := <-s.done
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return ee.ExitCode(), strings.Join(s.seen, "\n")
			}
			return 0, strings.Join(s.seen, "\n")
		case <-timeout:
			s.cmd.Process.Kill()
			t.Fatalf("%v: still running %v later (it needed SIGKILL):\n%s", s.cmd.Args[1:], limit, strings.Join(s.seen, "\n"))
		}
	}
}

// inputSites are the ways a run reads a file, each with path where the file goes: issue 29
// N1's list (--catalog, GENERATOR_CATALOG, --profile-file, plot REPORT, plot --inventory,
// inventory --merge, --tls-ca) and the profile's check (profiles show --profile-file).
func inputSites(path, report string) []struct {
	name string
	env  []string
	args []string
} {
	return []struct {
		name string
		env  []string
		args []string
	}{
		{"--catalog", nil, []string{"inventory", "--day", "0", "--catalog", path}},
		{"GENERATOR_CATALOG", []string{"GENERATOR_CATALOG=" + path}, []string{"batch", "--day", "0", "--file", os.DevNull}},
		{"--profile-file", nil, []string{"run", "--profile-file", path}},
		{"profiles show --profile-file", nil, []string{"profiles", "show", "--profile-file", path}},
		{"plot REPORT", nil, []string{"plot", path}},
		{"plot --inventory", nil, []string{"plot", report, "--inventory", path}},
		{"inventory --merge", nil, []string{"inventory", "--merge", path}},
		{"--tls-ca", nil, []string{"batch", "--day", "0", "--brokers", "127.0.0.1:1", "--topic", "hits", "--tls-ca", path}},
		{"verify --tls-ca", nil, []string{"verify", "--day", "0", "--brokers", "127.0.0.1:1", "--tls-ca", path}},
	}
}

// aReport writes a small run's report and returns its path.
func aReport(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	report := filepath.Join(dir, "r.json")
	if _, errs, code := clickgen(t, "batch", "--day", "0", "--scale", "0.01", "--limit", "10", "--file", filepath.Join(dir, "h.jsonl"), "--report", report); code != 0 {
		t.Fatalf("batch --report: exit %d, %s", code, errs)
	}
	return report
}

// allGarbage is every garbage class, opt-in ones included, at a rate high enough for each
// to occur in a small world, with redelivery.
var allGarbage = []string{"--garbage", "0.02", "--garbage-mix",
	"not_an_object=1,keyset_mismatch=1,key_field_unparsed=1,accepted_bad=1,vanishing=1,field_invalid=1", "--redeliver", "0.01"}

// smallWorld keeps the Kafka round trips short: a third of the canonical population.
var smallWorld = []string{"--scale", "0.3"}

func concatArgs(parts ...[]string) []string { return slices.Concat(parts...) }

// sentLine is what inject prints per message: the class and the partition it landed in.
var sentLine = regexp.MustCompile(`sent \d+ of \d+ to (\w+): (\w+) (\w+) \((\w+)\), key (\S+), partition (\d+)`)

// kfakeCluster starts an in-process broker with the stand's topics.
func kfakeCluster(t *testing.T, opts ...kfake.Opt) (*kfake.Cluster, string) {
	c, addrs := kafkatest.NewCluster(t, opts...)
	return c, strings.Join(addrs, ",")
}

func consume(t *testing.T, addr, topic string) []broker.Record {
	t.Helper()
	return kafkatest.ConsumeAll(t, []string{addr}, topic)
}

// inventoryOf runs `clickgen inventory` and decodes its output.
func inventoryOf(t *testing.T, args ...string) world.Inventory {
	t.Helper()
	out, errs, code := clickgen(t, append([]string{"inventory"}, args...)...)
	if code != 0 {
		t.Fatalf("inventory %v: exit %d: %s", args, code, errs)
	}
	var inv world.Inventory
	if err := json.Unmarshal([]byte(out), &inv); err != nil {
		t.Fatalf("inventory output is not JSON: %v\n%s", err, out)
	}
	return inv
}

// startBrokerProcess starts `clickgen broker` as a separate process on a free port and
// returns it with its address.
func startBrokerProcess(t *testing.T, ctx context.Context, bin string) (*exec.Cmd, string) {
	t.Helper()
	b := exec.CommandContext(ctx, bin, "broker", "--listen", "127.0.0.1:0")
	stdout, _ := b.StdoutPipe()
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Process.Kill(); b.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, "listening on ") {
		t.Fatalf("broker said %q (%v)", line, err)
	}
	go func() { // drain the rest of its banner
		s := bufio.NewScanner(stdout)
		for s.Scan() {
		}
	}()
	return b, strings.Fields(strings.SplitAfter(line, "listening on ")[1])[0]
}

// verdictLine matches the console's line of one verdict: expression, held or crossed, the
// figure and its value.
var verdictLine = regexp.MustCompile(`(?m)^clickgen: threshold (\S+) (held|crossed)(?: for (\S+))?: (\S+) (\S+)$`)

// verdicts are the console's verdict lines of stderr: expression (and group) → held.
func verdicts(errs string) map[string]bool {
	out := map[string]bool{}
	for _, m := range verdictLine.FindAllStringSubmatch(errs, -1) {
		key := m[1]
		if m[3] != "" {
			key += " for " + m[3]
		}
		out[key] = m[2] == "held"
	}
	return out
}

// intervalTotal reads the running total at the end of a stress interval line.
var intervalTotal = regexp.MustCompile(`^clickgen: stress .*, (\d+) total\)$`)

// startSendingStress starts the built command's `run stress` (scale 0.1, 5000/s for 60 s,
// intervals of 100 ms, its report into report; bounded by a minute), and reads its standard
// error up to its first interval line that counts acknowledged records (on a loaded machine
// the first lines may count none yet): the run is sending. It returns the command, the
// scanner of its standard error and the lines read.
func startSendingStress(t *testing.T, report string) (*exec.Cmd, *bufio.Scanner, []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, buildClickgen(t), "run", "stress", "--scale", "0.1", "--rate", "5000/s", "--duration", "60s",
		"--interval", "100ms", "--report", report)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if m := intervalTotal.FindStringSubmatch(sc.Text()); m != nil && m[1] != "0" {
			break
		}
	}
	return cmd, sc, lines
}

// lineWatch, stressDoc: the command's test packages share them (internal/cmdtest).
type (
	lineWatch = cmdtest.LineWatch
	stressDoc = cmdtest.StressDoc
)

var (
	newLineWatch = cmdtest.NewLineWatch
	readStress   = cmdtest.ReadStress
)
