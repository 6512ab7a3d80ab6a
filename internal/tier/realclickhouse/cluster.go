package realclickhouse

// The stand's topology for tests: Debian's ZooKeeper and SHARDS × REPLICAS ClickHouse 18.16
// servers forming one cluster, clickstream_cluster, on loopback (.ci/clickhouse/clickhouse
// cluster-init writes their configuration; its README says what each server has). The
// pipeline is laid out on it as the stand's DDL lays it out: ON CLUSTER, Replicated engines
// under /clickhouse/tables/{shard}/DB/TABLE, Distributed faces with the stand's sharding keys
// ([Cluster.ApplyDDL]). The faults a reader of such a store meets are built here too: a row
// copied onto the other shard ([Cluster.CopyToOtherShard]), a shard killed
// ([Cluster.KillShard]) while the reading user's profile skips unavailable shards
// ([LenientUser]), one replica down ([Server.Kill] of [Cluster.Server]).

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
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

// KeeperJar is the keeper a cluster runs: Debian's zookeeper package (3.8).
const KeeperJar = "/usr/share/java/zookeeper.jar"

// Users of a cluster's servers besides `default` and [User], with User's password: what a
// reader's profile may say about unavailable shards.
const (
	// LenientUser's profile sets skip_unavailable_shards = 1: a read through a Distributed
	// table leaves a shard it cannot reach out without an error.
	LenientUser = "clickgen_lenient"
	// LenientReadonlyUser's profile sets it too, read-only (readonly = 1): a query can change
	// no setting (SETTINGS skip_unavailable_shards = 0 is refused, code 164), and table
	// functions (remote, cluster) are refused too.
	LenientReadonlyUser = "clickgen_lenient_ro"
)

// ClusterOptions are a cluster's settings; the zero value means the defaults.
type ClusterOptions struct {
	// Shards and Replicas (per shard) set the cluster's shape, overriding the stand's 2 and 1.
	Shards, Replicas int
	// Password sets the password of User (and of the lenient users), overriding
	// DefaultPassword.
	Password string
	// Wait bounds every wait for a count or a mutation, overriding DefaultWait.
	Wait time.Duration
}

// Cluster is a keeper and the servers of one clickstream_cluster, started for one test and
// killed when it ends. Its servers are [Server]s: each can be queried, killed, restarted or
// paused on its own.
type Cluster struct {
	t testing.TB
	*cluster
}

type cluster struct {
	script           string
	dir              string
	base             int // the keeper's port; server k's HTTP port is base+1+3k
	shards, replicas int
	servers          []*server // shard-major: s1r1, s1r2, …, s2r1, …

	mu       sync.Mutex
	keeper   *exec.Cmd
	kExited  chan struct{}
	keeperUp time.Duration // how long the keeper took to answer at its last start
}

// ClusterAvailable says why a cluster cannot run here, or "" when it can: a server
// ([Available]), the keeper's jar and a Java runtime.
func ClusterAvailable() string {
	if why := Available(); why != "" {
		return why
	}
	if _, err := os.Stat(KeeperJar); err != nil {
		return KeeperJar + " is absent (apt-get install -y zookeeper)"
	}
	if _, err := exec.LookPath("java"); err != nil {
		return "java is absent (apt-get install -y zookeeper brings a Java runtime)"
	}
	return ""
}

// StartCluster configures a keeper and opts.Shards × opts.Replicas servers in a temporary
// folder of t, starts the keeper, then every server, and waits until each answers as itself;
// all are killed when t ends. It runs where CLICKGEN_TIERS selects the cluster tier.
func StartCluster(t testing.TB, opts ClusterOptions) *Cluster {
	t.Helper()
	testenv.Need(t, testenv.Cluster, ClusterAvailable())
	script, _ := Script()
	c := &Cluster{t: t, cluster: &cluster{script: script, shards: max(opts.Shards, 0), replicas: max(opts.Replicas, 0)}}
	if c.shards == 0 {
		c.shards = 2
	}
	if c.replicas == 0 {
		c.replicas = 1
	}
	password := opts.Password
	if password == "" {
		password = DefaultPassword
	}
	wait := opts.Wait
	if wait <= 0 {
		wait = DefaultWait
	}
	n := c.shards * c.replicas
	offsets := make([]int, 0, 1+3*n)
	for o := 0; o <= 3*n; o++ {
		offsets = append(offsets, o)
	}
	// The folders go after close has shown their logs (cleanups run last registered first).
	var dirs []string
	t.Cleanup(func() {
		for _, d := range dirs {
			os.RemoveAll(d)
		}
	})
	t.Cleanup(c.close)
	// As Start: a port found free may be taken before its server binds it; then everything
	// is started again in a new folder on new ports.
	for attempt := 1; ; attempt++ {
		dir, err := os.MkdirTemp("", "realcluster")
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
		c.dir = dir
		c.base = pickClusterBase(t, offsets)
		out, err := exec.Command(script, "cluster-init", c.dir, strconv.Itoa(c.base), strconv.Itoa(c.shards), strconv.Itoa(c.replicas), password).CombinedOutput()
		if err != nil {
			t.Fatalf("realclickhouse: cluster-init: %v\n%s", err, out)
		}
		c.servers = c.servers[:0]
		for k := range n {
			c.servers = append(c.servers, &server{
				script:   script,
				dir:      filepath.Join(c.dir, fmt.Sprintf("s%dr%d", k/c.replicas+1, k%c.replicas+1)),
				port:     c.base + 1 + 3*k,
				password: password,
				wait:     wait,
				http:     &http.Client{Transport: &http.Transport{DisableKeepAlives: true}},
				cluster:  true,
				shard:    k/c.replicas + 1,
				replica:  k%c.replicas + 1,
			})
		}
		err = c.startAll()
		if err == nil {
			return c
		}
		c.killAll()
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			t.Fatalf("realclickhouse: %v", err)
		}
		t.Logf("realclickhouse: %v; trying other ports", err)
	}
}

// pickClusterBase finds a base port with every offset free; a test of the retry replaces it.
var pickClusterBase = func(t testing.TB, offsets []int) int { return loopback.Base(t, offsets...) }

// startAll starts the keeper, waits for it, then starts every server and waits for each.
func (c *Cluster) startAll() error {
	if err := c.startKeeper(); err != nil {
		return err
	}
	for _, s := range c.servers {
		(&Server{t: c.t, server: s}).launch()
	}
	for _, s := range c.servers {
		srv := &Server{t: c.t, server: s}
		if err := srv.waitAnswers(); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(s.dir), err)
		}
		if err := srv.waitDDLWorker(); err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(s.dir), err)
		}
	}
	return nil
}

// waitDDLWorker waits until the server's distributed DDL worker has its keeper session: its
// threads DDLWorker, ZooKeeperSend and ZooKeeperRecv run. An ON CLUSTER statement sent
// before that crashed 18.16 (SIGSEGV in zkutil::ZooKeeper::createImpl, a null session: 2 of 6
// starts of a cluster that was sent its DDL as soon as its servers answered).
func (s *Server) waitDDLWorker() error {
	deadline := time.Now().Add(startTimeout)
	for {
		names, err := threadNames(s.Pid())
		if err == nil && names["DDLWorker"] && names["ZooKeeperSend"] && names["ZooKeeperRecv"] {
			return nil
		}
		if !s.Running() {
			return fmt.Errorf("the server exited before its DDL worker ran:\n%s", s.LogTail(30))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server's DDL worker had no keeper session %v after it answered (threads %v, %v):\n%s", startTimeout, names, err, s.LogTail(30))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// threadNames are the names (comm) of the threads of process pid.
func threadNames(pid int) (map[string]bool, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, task.Name(), "comm"))
		if err == nil {
			names[strings.TrimSpace(string(b))] = true
		}
	}
	return names, nil
}

// keeperDir is the keeper's folder: its configuration, data/ and log/.
func (c *cluster) keeperDir() string { return filepath.Join(c.dir, "zk") }

// startKeeper starts ZooKeeper and waits until it answers ruok with imok.
func (c *Cluster) startKeeper() error {
	logf, err := os.OpenFile(filepath.Join(c.keeperDir(), "log", "console.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(c.script, "zk-serve", c.keeperDir())
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start ZooKeeper: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	c.mu.Lock()
	c.keeper, c.kExited = cmd, exited
	c.mu.Unlock()
	deadline := time.After(startTimeout)
	for {
		if keeperOK(c.base) {
			c.mu.Lock()
			c.keeperUp = time.Since(start)
			c.mu.Unlock()
			return nil
		}
		select {
		case <-exited:
			tail := c.keeperLog(30)
			if strings.Contains(tail, "Address already in use") {
				return fmt.Errorf("%w (ZooKeeper on 127.0.0.1:%d):\n%s", errPortTaken, c.base, tail)
			}
			return fmt.Errorf("ZooKeeper exited while starting:\n%s", tail)
		case <-deadline:
			return fmt.Errorf("ZooKeeper did not answer ruok within %v:\n%s", startTimeout, c.keeperLog(30))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// keeperOK says whether ZooKeeper on port answers its four-letter command ruok with imok.
func keeperOK(port int) bool {
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err != nil {
		return false
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := conn.Write([]byte("ruok")); err != nil {
		return false
	}
	b, _ := bufio.NewReader(conn).ReadString('\n')
	return b == "imok"
}

// KeeperUp is how long the keeper took to answer at its last start.
func (c *Cluster) KeeperUp() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.keeperUp
}

// KillKeeper kills ZooKeeper (SIGKILL) and waits until it is gone: the Replicated tables turn
// read-only and ON CLUSTER statements wait, until [Cluster.RestartKeeper].
func (c *Cluster) KillKeeper() {
	c.t.Helper()
	c.mu.Lock()
	cmd, exited := c.keeper, c.kExited
	c.keeper = nil
	c.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-exited:
	case <-time.After(startTimeout):
		c.t.Errorf("realclickhouse: ZooKeeper (pid %d) is still there %v after SIGKILL", cmd.Process.Pid, startTimeout)
	}
}

// RestartKeeper starts ZooKeeper again on its data and waits until it answers.
func (c *Cluster) RestartKeeper() {
	c.t.Helper()
	c.mu.Lock()
	running := c.keeper != nil
	c.mu.Unlock()
	if running {
		c.t.Fatal("realclickhouse: RestartKeeper of a running keeper (KillKeeper first)")
	}
	if err := c.startKeeper(); err != nil {
		c.t.Fatalf("realclickhouse: %v", err)
	}
}

// keeperLog is the last n lines of the keeper's log and console.
func (c *cluster) keeperLog(n int) string {
	var b strings.Builder
	for _, name := range []string{"zookeeper.log", "console.log"} {
		data, _ := os.ReadFile(filepath.Join(c.keeperDir(), "log", name))
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		if len(lines) > n {
			lines = lines[len(lines)-n:]
		}
		fmt.Fprintf(&b, "--- zk/%s\n%s\n", name, strings.Join(lines, "\n"))
	}
	return b.String()
}

// In returns the same cluster bound to t, a subtest of the one that started it.
func (c *Cluster) In(t testing.TB) *Cluster { return &Cluster{t: t, cluster: c.cluster} }

// Shards and Replicas are the cluster's shape.
func (c *Cluster) Shards() int   { return c.shards }
func (c *Cluster) Replicas() int { return c.replicas }

// Server is replica r of shard s, both counted from 1, bound to the cluster's test.
func (c *Cluster) Server(s, r int) *Server {
	c.t.Helper()
	if s < 1 || s > c.shards || r < 1 || r > c.replicas {
		c.t.Fatalf("realclickhouse: no server s%dr%d in a cluster of %d×%d", s, r, c.shards, c.replicas)
	}
	return &Server{t: c.t, server: c.servers[(s-1)*c.replicas+r-1]}
}

// Servers are every server, shard by shard.
func (c *Cluster) Servers() []*Server {
	out := make([]*Server, len(c.servers))
	for i, s := range c.servers {
		out[i] = &Server{t: c.t, server: s}
	}
	return out
}

// First is replica 1 of shard 1, where the cluster's DDL and pulls run.
func (c *Cluster) First() *Server { return c.Server(1, 1) }

// URL is the first server's HTTP interface: what a reader of the cluster is given.
func (c *Cluster) URL() string { return c.First().URL() }

// UserURL is the first server's URL with User in it.
func (c *Cluster) UserURL() string { return c.First().UserURL() }

// Dir is the folder holding the keeper (zk/) and each server's folder (s1r1, …).
func (c *Cluster) Dir() string { return c.dir }

// ApplyDDL lays out the stand's pipeline on every server, as the stand does: the DDL in its
// cluster form (ON CLUSTER, Replicated engines) from the first server ([Server.ApplyDDL]).
// Each server gets a Kafka reader in the one consumer group of each topic.
func (c *Cluster) ApplyDDL(brokers string, topics Topics) {
	c.t.Helper()
	c.First().ApplyDDL(brokers, topics)
}

// PullOrders runs the stand's orders_ingest once ([Server.PullOrders]): its read of the topic
// on every server, then, every replica of the raw table synced, its split on the first. It
// returns the raw rows the load brought.
//
// Every server's orders reader joins the one consumer group when the server starts, and the
// topic's one partition goes to one of them: a read on the first server alone brought nothing
// whenever another held it (two runs of three on two shards of two replicas, 3 minutes of
// pulls each). And a read through a Distributed table picks a replica of each shard: one that
// has not fetched the part its twin was just given answers without it (measured: 5 008 of
// 10 000 rows read back at once, twice in five inserts), so the split, which reads what the
// read wrote, waits for every replica (before, a replicated store lost rows of a load on
// their way to ods.order_rep: 243 of 1 736 orders missing, 623 stale).
func (c *Cluster) PullOrders(loadID string) int64 {
	c.t.Helper()
	first := c.First()
	first.mu.Lock()
	topic := first.topics.Orders
	first.mu.Unlock()
	if topic == "" {
		c.t.Fatal("realclickhouse: PullOrders before ApplyDDL")
	}
	for _, stmt := range first.render("pull", map[string]string{"load_id": loadID, "orders_topic": topic}) {
		if !strings.Contains(stmt, "FROM stg.orders_raw_kafka") {
			first.Query(stmt)
			continue
		}
		for _, s := range c.Servers() {
			s.Query(stmt)
		}
		if c.replicas > 1 {
			c.syncReplicas("stg.orders_raw_rep")
		}
	}
	return first.Int("SELECT count() FROM stg.orders_raw_dist WHERE _load_id = '" + loadID + "'")
}

// PullOrdersUntil pulls (load ids pull-1, pull-2, …) until the raw orders, on every shard,
// number at least n, and returns how many there are; it fails the test when the servers' wait
// passes first.
func (c *Cluster) PullOrdersUntil(n int64) int64 {
	c.t.Helper()
	first := c.First()
	deadline := time.Now().Add(first.wait)
	for {
		first.mu.Lock()
		first.pulls++
		id := "pull-" + strconv.Itoa(first.pulls)
		first.mu.Unlock()
		c.PullOrders(id)
		got := first.Count("stg.orders_raw_dist", false)
		if got >= n {
			return got
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("realclickhouse: stg.orders_raw_dist holds %d rows after %v of pulls, want %d:\n%s", got, first.wait, n, first.LogTail(20))
		}
	}
}

// ShardTagSQL is the condition that tags each row read through a Distributed table with the
// number of the shard that sent it, on 18.16 (which has no _shard_num, no getMacro and no
// tcpPort): `ARRAY JOIN [1, …, N] AS shard` and this condition keep on each shard the one copy
// whose shard is that server's own, because a subquery of a non-GLOBAL IN runs on each shard,
// where system.clusters marks the entries of the server's own shard local (every replica of
// it, on 18.16). N is the number of shards.
func ShardTagSQL(n int) string {
	tags := make([]string, n)
	for i := range tags {
		tags[i] = "toUInt32(" + strconv.Itoa(i+1) + ")"
	}
	return "ARRAY JOIN [" + strings.Join(tags, ", ") + "] AS shard WHERE shard IN (SELECT toUInt32(shard_num) FROM system.clusters WHERE cluster = '" + ClusterName + "' AND is_local)"
}

// ShardCounts reads table (a Distributed face, database.name) through the first server and
// returns its rows per shard that answered (a shard with no row is absent), with where as an
// extra condition ("" for none).
func (c *Cluster) ShardCounts(table, where string) map[int]int64 {
	c.t.Helper()
	q := "SELECT shard, count() FROM " + table + " " + ShardTagSQL(c.shards)
	if where != "" {
		q += " AND (" + where + ")"
	}
	out := c.First().Query(q + " GROUP BY shard ORDER BY shard")
	counts := map[int]int64{}
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		s, err1 := strconv.Atoi(f[0])
		n, err2 := strconv.ParseInt(f[1], 10, 64)
		if len(f) != 2 || err1 != nil || err2 != nil {
			c.t.Fatalf("realclickhouse: shard counts of %s: %q", table, line)
		}
		counts[s] = n
	}
	return counts
}

// CopyToOtherShard copies each row of local (a shard's table, such as ods.event_rep) that
// matches where onto the shard after the one that holds it (the last shard's onto the first),
// byte for byte, as a layout sharded by another key than the pipeline's would place a later
// version of it: through the Distributed face both copies are read, and FINAL, which collapses
// within a shard only, keeps both. It returns the rows copied; it fails the test when there are
// none.
func (c *Cluster) CopyToOtherShard(local, where string) int64 {
	c.t.Helper()
	if c.shards < 2 {
		c.t.Fatal("realclickhouse: CopyToOtherShard needs two shards")
	}
	// Every shard's rows are read before any is written, so no row is copied twice.
	rows := make([]string, c.shards+1)
	var copied int64
	for s := 1; s <= c.shards; s++ {
		rows[s] = c.Server(s, 1).Query("SELECT * FROM " + local + " WHERE " + where + " FORMAT TabSeparated")
		if rows[s] != "" {
			copied += int64(strings.Count(rows[s], "\n") + 1)
		}
	}
	for s := 1; s <= c.shards; s++ {
		if rows[s] != "" {
			c.Server(s%c.shards+1, 1).InsertData(local, "TabSeparated", strings.NewReader(rows[s]+"\n"))
		}
	}
	if copied == 0 {
		c.t.Fatalf("realclickhouse: no row of %s where %s on any shard", local, where)
	}
	return copied
}

// KillShard kills every replica of shard s (SIGKILL), as a crash would, and waits until each
// is gone; restart them with [Server.Restart] of [Cluster.Server].
func (c *Cluster) KillShard(s int) {
	c.t.Helper()
	for r := 1; r <= c.replicas; r++ {
		c.Server(s, r).Kill()
	}
}

// killAll kills every server, then the keeper.
func (c *Cluster) killAll() {
	for _, s := range c.servers {
		(&Server{t: c.t, server: s}).Kill()
	}
	c.KillKeeper()
}

// close kills everything, showing the logs' tails when the test failed.
func (c *Cluster) close() {
	if c.t.Failed() {
		for _, s := range c.servers {
			c.t.Logf("realclickhouse: %s's log:\n%s", filepath.Base(s.dir), (&Server{t: c.t, server: s}).LogTail(20))
		}
		c.t.Logf("realclickhouse: the keeper's log:\n%s", c.keeperLog(20))
	}
	c.killAll()
}

// WaitReplicasSynced waits until every replica of every Replicated table holds what its
// shard's other replicas hold (SYSTEM SYNC REPLICA on each server), bounded by the servers'
// wait.
func (c *Cluster) WaitReplicasSynced() {
	c.t.Helper()
	c.syncReplicas("")
}

// syncReplicas runs SYSTEM SYNC REPLICA on every server for table (database.name), or for
// every Replicated table when table is "".
func (c *Cluster) syncReplicas(table string) {
	c.t.Helper()
	for _, s := range c.Servers() {
		tables := table
		if table == "" {
			tables = s.Query("SELECT concat(database, '.', name) FROM system.tables WHERE engine LIKE 'Replicated%'")
		}
		for _, tbl := range strings.Split(tables, "\n") {
			if tbl == "" {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), s.wait)
			_, err := s.QueryContext(ctx, "SYSTEM SYNC REPLICA "+tbl)
			cancel()
			if err != nil {
				c.t.Fatalf("realclickhouse: %s: SYSTEM SYNC REPLICA %s: %v", filepath.Base(s.dir), tbl, err)
			}
		}
	}
}
