// Package realkafka starts real Apache Kafka brokers (KRaft, from the jars .ci/kafka/pom.xml
// pins) for tests, as kfake starts a fake one: one node configured as the stand configures
// apache/kafka:4.3.1, or a three-node cluster of combined broker+controller voters with
// replication factor 3 and min.insync.replicas=2 by default. Brokers listen on loopback,
// belong to the test that starts them and are killed when it ends, failed or not (and by
// the kernel if the test binary dies first).
//
// The tier runs when CLICKGEN_TIERS selects it (internal/testenv); selected, a missing Java or
// missing jars fail the test with a message saying what to install.
package realkafka

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clickgen/clickgen/internal/testenv"
	"github.com/clickgen/clickgen/internal/tier/loopback"
)

// startTimeout bounds how long the nodes may take to open their client ports.
const startTimeout = 90 * time.Second

// Cluster is real Kafka nodes started for one test.
type Cluster struct {
	t      testing.TB
	script string
	dir    string
	ports  []int

	// configure, if set, edits the nodes' configuration after init and before their start
	// (StartSecure's listeners).
	configure func() error

	mu    sync.Mutex
	procs []*exec.Cmd     // by node index (0-based); nil once a node is stopped
	done  []chan struct{} // closed when the node's process has exited
}

// Script returns the path of .ci/kafka/kafka, found above the working directory, and
// whether its jars have been fetched.
func Script() (path string, fetched bool, err error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false, err
	}
	for {
		p := filepath.Join(dir, ".ci", "kafka", "kafka")
		if _, err := os.Stat(p); err == nil {
			_, ferr := os.Stat(filepath.Join(dir, ".ci", "kafka", "libs", "kafka_2.13-4.3.1.jar"))
			return p, ferr == nil, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false, errors.New("no .ci/kafka/kafka above the working directory")
		}
		dir = parent
	}
}

// Available says why the real-Kafka tier cannot run here, or "" when it can.
func Available() string {
	if _, err := exec.LookPath("java"); err != nil {
		return "java is not on PATH (apt-get install -y openjdk-17-jre-headless)"
	}
	_, fetched, err := Script()
	if err != nil {
		return err.Error()
	}
	if !fetched {
		return "the Kafka jars are not fetched (run .ci/kafka/kafka fetch)"
	}
	return ""
}

// Start starts nodes (1 or 3) real Kafka nodes and waits until every one has started;
// they are killed when t ends. Under -short it skips: a JVM broker is no short test.
func Start(t testing.TB, nodes int) *Cluster {
	t.Helper()
	if nodes != 1 && nodes != 3 {
		t.Fatalf("realkafka.Start: nodes %d, want 1 or 3", nodes)
	}
	testenv.Need(t, testenv.Kafka, Available())
	if testing.Short() {
		t.Skip("real Kafka tier: not under -short")
	}
	script, _, _ := Script()
	c := &Cluster{t: t, script: script}
	// A port found free may be taken by another process before the JVM binds it, seconds
	// later (other tests on the machine open ports all the time): the node then exits, and
	// the whole cluster is tried again in a new folder on new ports.
	for attempt := 1; ; attempt++ {
		err := c.start(nodes, pickBase(t, nodes))
		if err == nil {
			return c
		}
		c.close()
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			t.Fatalf("realkafka: %v", err)
		}
		t.Logf("realkafka: %v; trying other ports", err)
	}
}

// start initialises nodes nodes on ports from base in a new folder, launches them and waits
// until every one has started.
func (c *Cluster) start(nodes, base int) error {
	c.t.Helper()
	c.dir = c.t.TempDir()
	// The nodes are killed before their folder is removed: cleanups run last registered
	// first, and a node still running wrote into the folder while it was removed ("directory
	// not empty", which failed TestRealKafkaFaults after its subtests had passed).
	c.t.Cleanup(c.close)
	out, err := scriptCommand(context.Background(), c.script, "init", c.dir, strconv.Itoa(base), strconv.Itoa(nodes)).CombinedOutput()
	if err != nil {
		c.t.Fatalf("realkafka: init: %v\n%s", err, out)
	}
	c.ports = c.ports[:0]
	for i := range nodes {
		c.ports = append(c.ports, base+i)
	}
	if c.configure != nil {
		if err := c.configure(); err != nil {
			c.t.Fatalf("realkafka: configure: %v", err)
		}
	}
	c.mu.Lock()
	c.procs = make([]*exec.Cmd, nodes)
	c.done = make([]chan struct{}, nodes)
	c.mu.Unlock()
	// All nodes first, then the waits: a node of three opens its client port only once a
	// quorum of controllers has formed, which needs a second node running.
	for i := range nodes {
		c.launch(i)
	}
	for i := range nodes {
		if err := c.waitStarted(i, 0); err != nil {
			return err
		}
	}
	return nil
}

// pickBase finds nodes client ports and nodes controller ports (base+100…) free on
// loopback; a test of the retry replaces it.
var pickBase = freeBase

func freeBase(t testing.TB, nodes int) int {
	var offsets []int
	for i := range nodes {
		offsets = append(offsets, i, 100+i)
	}
	return loopback.Base(t, offsets...)
}

// Addrs are the nodes' client addresses.
func (c *Cluster) Addrs() []string {
	addrs := make([]string, len(c.ports))
	for i, p := range c.ports {
		addrs[i] = net.JoinHostPort("127.0.0.1", strconv.Itoa(p))
	}
	return addrs
}

// Bootstrap is Addrs joined with commas, as --brokers takes them.
func (c *Cluster) Bootstrap() string { return strings.Join(c.Addrs(), ",") }

// Dir is the folder holding the nodes' configuration, data and logs (nodeN/server.log).
func (c *Cluster) Dir() string { return c.dir }

// NodeID is the Kafka node.id of node index i (0-based): i+1.
func NodeID(i int) int32 { return int32(i + 1) }

// Restart starts node i (0-based) on its data and port and waits until it has started. The
// node must not be running.
func (c *Cluster) Restart(i int) {
	c.t.Helper()
	from := c.logSize(i)
	c.launch(i)
	if err := c.waitStarted(i, from); err != nil {
		c.t.Fatalf("realkafka: %v", err)
	}
}

// launch starts node i's process without waiting for it.
func (c *Cluster) launch(i int) {
	c.t.Helper()
	log, err := os.OpenFile(c.logPath(i), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		c.t.Fatal(err)
	}
	defer log.Close()
	cmd := scriptCommand(context.Background(), c.script, "serve", c.dir, strconv.Itoa(i+1))
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("realkafka: start node %d: %v", i+1, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	c.mu.Lock()
	c.procs[i], c.done[i] = cmd, exited
	c.mu.Unlock()
}

// errPortTaken is a node that could not listen on its ports.
var errPortTaken = errors.New("a port of the node was taken")

// started is the line a node logs once its listeners are bound and it serves
// (.ci/kafka/log4j2.properties lets it through).
const started = "Kafka Server started"

// waitStarted waits until node i has logged, after byte from of its log, that it started and
// accepts connections on its client port: a port that answers alone may be another
// process's. It fails when the node exits first or takes longer than startTimeout.
func (c *Cluster) waitStarted(i int, from int64) error {
	c.mu.Lock()
	exited := c.done[i]
	c.mu.Unlock()
	deadline := time.After(startTimeout)
	for {
		if c.logged(i, from, started) {
			conn, err := net.DialTimeout("tcp", c.Addrs()[i], time.Second)
			if err == nil {
				conn.Close()
				return nil
			}
		}
		select {
		case <-exited:
			tail := c.LogTail(i, 30)
			if strings.Contains(tail, "Address already in use") {
				return fmt.Errorf("%w (node %d, ports %d and %d):\n%s", errPortTaken, i+1, c.ports[i], c.ports[i]+100, tail)
			}
			return fmt.Errorf("node %d exited while starting:\n%s", i+1, tail)
		case <-deadline:
			return fmt.Errorf("node %d did not start within %v:\n%s", i+1, startTimeout, c.LogTail(i, 30))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// logPath is node i's log, which every start of the node appends to.
func (c *Cluster) logPath(i int) string {
	return filepath.Join(c.dir, fmt.Sprintf("node%d", i+1), "server.log")
}

// logSize is the length of node i's log so far.
func (c *Cluster) logSize(i int) int64 {
	fi, err := os.Stat(c.logPath(i))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// logged says whether node i's log holds line after byte from.
func (c *Cluster) logged(i int, from int64, line string) bool {
	b, _ := os.ReadFile(c.logPath(i))
	return int64(len(b)) > from && bytes.Contains(b[from:], []byte(line))
}

// signal sends sig to node i's process; with wait, it waits for the process to exit.
func (c *Cluster) signal(i int, sig syscall.Signal, wait bool) {
	c.mu.Lock()
	cmd, exited := c.procs[i], c.done[i]
	if wait {
		c.procs[i] = nil
	}
	c.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGCONT) // a paused node could not act on a TERM
	cmd.Process.Signal(sig)
	if wait {
		select {
		case <-exited:
		case <-time.After(startTimeout):
			cmd.Process.Kill() // a controlled shutdown that hangs (no quorum left) is cut short
			<-exited
		}
	}
}

// Kill kills node i with SIGKILL (as a crash would) and waits until it is gone.
func (c *Cluster) Kill(i int) { c.signal(i, syscall.SIGKILL, true) }

// Stop stops node i with SIGTERM (a controlled shutdown) and waits until it is gone.
func (c *Cluster) Stop(i int) { c.signal(i, syscall.SIGTERM, true) }

// Pause freezes node i (SIGSTOP); Resume continues it.
func (c *Cluster) Pause(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.procs[i]; p != nil {
		p.Process.Signal(syscall.SIGSTOP)
	}
}

// Resume continues a paused node i (SIGCONT).
func (c *Cluster) Resume(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.procs[i]; p != nil {
		p.Process.Signal(syscall.SIGCONT)
	}
}

// Pid is node i's process id, 0 when it is not running.
func (c *Cluster) Pid(i int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.procs[i]; p != nil && p.Process != nil {
		return p.Process.Pid
	}
	return 0
}

// LogTail is the last n lines of node i's log.
func (c *Cluster) LogTail(i, n int) string {
	b, _ := os.ReadFile(c.logPath(i))
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// quickJVM is the JVM option a test's Kafka processes run with unless KAFKA_JVM_OPTS says
// otherwise: they live seconds to minutes and carry little load, so the JIT's first tier is
// enough; a node then spends about half the CPU starting and serving (4.5 → 2.4 CPU-s to
// start, 6.4 → 3.4 with 80 MB produced and consumed, measured beside each other). A CI run
// starts some 30 nodes and as many tool processes.
const quickJVM = "-XX:TieredStopAtLevel=1"

// scriptCommand is the command of .ci/kafka/kafka with args, its JVMs given quickJVM unless
// the environment already chooses their options.
func scriptCommand(ctx context.Context, script string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, script, args...)
	if _, ok := os.LookupEnv("KAFKA_JVM_OPTS"); !ok {
		cmd.Env = append(os.Environ(), "KAFKA_JVM_OPTS="+quickJVM)
	}
	return cmd
}

// Tool runs one of Kafka's tool classes (for example org.apache.kafka.tools.TopicCommand,
// org.apache.kafka.tools.ProducerPerformance, org.apache.kafka.tools.consumer.ConsoleConsumer)
// on the brokers' classpath and returns its standard output; a failure carries its stderr.
func (c *Cluster) Tool(ctx context.Context, class string, args ...string) ([]byte, error) {
	cmd := scriptCommand(ctx, c.script, append([]string{"run", class}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s: %w\n%s", class, err, stderr.Bytes())
	}
	return out, nil
}

// close kills every node still running.
func (c *Cluster) close() {
	for i := range c.procs {
		c.Kill(i)
	}
}
