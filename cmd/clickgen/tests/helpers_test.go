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

	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"sync"

	runreport "github.com/clickgen/clickgen/generator/measure/report"
	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/generator/produce/world"
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
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(2, "hits"), kfake.SeedTopics(1, "orders")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, strings.Join(c.ListenAddrs(), ",")
}

func consume(t *testing.T, addr, topic string) []broker.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	recs, err := broker.Consume(ctx, []string{addr}, topic)
	if err != nil {
		t.Fatalf("consume %s: %v", topic, err)
	}
	return recs
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

// lineWatch is a writer whose lines a test can wait for: an event, not a point in time.
type lineWatch struct {
	mu     sync.Mutex
	cond   *sync.Cond
	buf    bytes.Buffer
	lines  []string
	closed bool
}

func newLineWatch() *lineWatch {
	l := &lineWatch{}
	l.cond = sync.NewCond(&l.mu)
	return l
}

func (l *lineWatch) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	for {
		line, err := l.buf.ReadString('\n')
		if err != nil {
			l.buf.WriteString(line) // an incomplete line waits for the rest
			break
		}
		l.lines = append(l.lines, strings.TrimSuffix(line, "\n"))
	}
	l.cond.Broadcast()
	return len(p), nil
}

// close wakes the waiters for good: the writer will get no more lines.
func (l *lineWatch) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	l.cond.Broadcast()
}

// await waits for a line from index from on that ok accepts, and returns it and its index;
// -1 when the writer was closed first.
func (l *lineWatch) await(from int, ok func(string) bool) (string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		for i := from; i < len(l.lines); i++ {
			if ok(l.lines[i]) {
				return l.lines[i], i
			}
		}
		if l.closed {
			return "", -1
		}
		l.cond.Wait()
	}
}

func (l *lineWatch) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n") + "\n" + l.buf.String()
}

// stressDoc is the part of a stress report the tests read.
type stressDoc struct {
	Topics map[string]struct{ Sent, Acked, Failed int64 } `json:"topics"`
	Rate   struct {
		TargetPerS   float64 `json:"target_per_s"`
		AchievedPerS float64 `json:"achieved_per_s"`
	} `json:"rate"`
	LatencyMS map[string]float64 `json:"latency_ms"`
	Stress    struct {
		Shape     string               `json:"shape"`
		Released  uint64               `json:"released"`
		Stopped   string               `json:"stopped"`
		FirstDay  int                  `json:"first_day"`
		LastDay   int                  `json:"last_day"`
		Intervals []runreport.Interval `json:"intervals"`
	} `json:"stress"`
}

func readStress(t *testing.T, path string) stressDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d stressDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	return d
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

// awaitSending reads a run's standard error up to its first interval line that counts
// acknowledged records (on a loaded machine the first lines may count none yet) and returns
// the lines read: the run is sending. It returns at the stream's end too.
func awaitSending(sc *bufio.Scanner) []string {
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if m := intervalTotal.FindStringSubmatch(sc.Text()); m != nil && m[1] != "0" {
			break
		}
	}
	return lines
}
