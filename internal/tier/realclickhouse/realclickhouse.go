// Package realclickhouse starts a real ClickHouse server for tests, as realkafka starts real
// Kafka: Debian's clickhouse-server 18.16 through .ci/clickhouse/clickhouse, on loopback, with
// its configuration, data and logs in the test's temporary folder. It lays out the stand's
// pipeline on it (Kafka readers, materialized views, ReplacingMergeTree tables; the SQL is in
// .ci/clickhouse/ddl and .ci/clickhouse/pull, whose README says what 18.16 can and cannot do
// of the stand's), and it plays the faults a store meets: rows deleted, rows inserted, the
// server killed and restarted, the server frozen.
//
// A server belongs to the test that starts it and is killed when that test ends, failed or
// not (and by the kernel if the test binary dies first). The tier runs when CLICKGEN_TIERS
// selects it (internal/testenv); selected, a missing clickhouse-server fails the test with a
// message saying what to install.
//
// The methods that take no context fail the test on error (call them from the test's
// goroutine); each waits on an event (an answer, a count reached, a mutation done, the process
// gone) and bounds the wait.
package realclickhouse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clickgen/clickgen/internal/testenv"
	"github.com/clickgen/clickgen/internal/tier/loopback"
)

// ServerBinary is the server the tier runs: Debian's clickhouse-server package.
const ServerBinary = "/usr/sbin/clickhouse-server"

// User is the user with a password that every server has besides `default` (which has none).
const User = "clickgen"

// DefaultPassword is User's password unless Options.Password says otherwise.
const DefaultPassword = "clickgen-test-password"

// DefaultWait bounds WaitRows, WaitCount, PullOrdersUntil and DeleteWhere unless
// Options.Wait says otherwise.
const DefaultWait = 3 * time.Minute

// startTimeout bounds how long a server may take to answer SELECT 1 after it was started.
const startTimeout = 90 * time.Second

// queryTimeout bounds each request of the methods that take no context.
const queryTimeout = 2 * time.Minute

// Options are a server's settings; the zero value means the defaults.
type Options struct {
	// Password sets the password of User, overriding DefaultPassword.
	Password string
	// Wait bounds every wait for a count or a mutation, overriding DefaultWait.
	Wait time.Duration
}

// Topics names the Kafka topics the pipeline reads; an empty name means the stand's
// ("hits", "orders").
type Topics struct {
	Hits, Orders string
}

// Consumer groups of the pipeline's Kafka readers, the stand's.
const (
	HitsGroup   = "clickstream_hits"
	OrdersGroup = "clickstream_orders"
)

// Server is one clickhouse-server process started for one test, restartable on its data.
// Its methods fail the test the Server is bound to: the one that started it, or the one
// [Server.In] names.
type Server struct {
	t testing.TB
	*server
}

// server is the state of the process, shared by every Server bound to it.
type server struct {
	script   string
	dir      string
	port     int
	password string
	wait     time.Duration
	http     *http.Client

	mu     sync.Mutex
	proc   *exec.Cmd
	exited chan struct{} // closed when proc has exited
	topics Topics        // as ApplyDDL rendered them
	pulls  int           // PullOrdersUntil's load ids so far

	cluster bool // a server of a Cluster: its DDL is rendered in the cluster form
	// shard and replica of a server of a Cluster (its macros), 0 otherwise
	shard, replica int
}

// Script returns the path of .ci/clickhouse/clickhouse, found above the working directory.
func Script() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, ".ci", "clickhouse", "clickhouse")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no .ci/clickhouse/clickhouse above the working directory")
		}
		dir = parent
	}
}

// Available says why the real-ClickHouse tier cannot run here, or "" when it can.
func Available() string {
	if _, err := os.Stat(ServerBinary); err != nil {
		return ServerBinary + " is absent (apt-get install -y clickhouse-server clickhouse-client)"
	}
	if _, err := os.Stat("/etc/clickhouse-server/config.xml"); err != nil {
		return "the packaged /etc/clickhouse-server/config.xml is absent (reinstall clickhouse-server)"
	}
	if _, err := Script(); err != nil {
		return err.Error()
	}
	return ""
}

// Start configures a server in a temporary folder of t, starts it and waits until it answers
// SELECT 1 over HTTP; it is killed when t ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	testenv.Need(t, testenv.ClickHouse, Available())
	script, _ := Script()
	s := &Server{t: t, server: &server{
		script:   script,
		password: opts.Password,
		wait:     opts.Wait,
		http:     &http.Client{Transport: &http.Transport{DisableKeepAlives: true}},
	}}
	if s.password == "" {
		s.password = DefaultPassword
	}
	if s.wait <= 0 {
		s.wait = DefaultWait
	}
	// A port found free may be taken by another process before the server binds it (other
	// tests on the machine open ports all the time): the server then exits, and a new folder
	// and port are tried.
	for attempt := 1; ; attempt++ {
		s.dir = t.TempDir()
		t.Cleanup(s.close) // before the folder is removed (cleanups run last first): a live server writes into it
		s.port = pickPort(t)
		out, err := exec.Command(script, "init", s.dir, strconv.Itoa(s.port), s.password).CombinedOutput()
		if err != nil {
			t.Fatalf("realclickhouse: init: %v\n%s", err, out)
		}
		s.launch()
		err = s.waitAnswers()
		if err == nil {
			return s
		}
		s.Kill()
		if !errors.Is(err, errPortTaken) || attempt == 3 {
			t.Fatalf("realclickhouse: %v", err)
		}
		t.Logf("realclickhouse: %v; trying another port", err)
	}
}

// In returns the same server bound to t, a subtest of the one that started it, so that its
// methods fail t from t's goroutine. The server still ends with the test that started it.
func (s *Server) In(t testing.TB) *Server { return &Server{t: t, server: s.server} }

// pickPort finds a port with the two after it (native protocol, interserver) free on
// loopback; a test of the retry replaces it.
var pickPort = freeBase

func freeBase(t testing.TB) int { return loopback.Base(t, 0, 1, 2) }

// URL is the server's HTTP interface, http://127.0.0.1:PORT/, for the user default (no
// password).
func (s *Server) URL() string { return "http://" + s.Addr() + "/" }

// UserURL is URL with User in it (not the password: that goes by the environment, as verify
// takes it).
func (s *Server) UserURL() string { return "http://" + User + "@" + s.Addr() + "/" }

// Addr is the HTTP interface's host:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// NativePort is the port of the native protocol (clickhouse-client).
func (s *Server) NativePort() int { return s.port + 1 }

// Password is User's password.
func (s *Server) Password() string { return s.password }

// Dir is the folder holding the server's configuration, data (data/) and logs (log/).
func (s *Server) Dir() string { return s.dir }

// launch starts the server's process without waiting for it to answer.
func (s *Server) launch() {
	s.t.Helper()
	logf, err := os.OpenFile(filepath.Join(s.dir, "log", "console.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		s.t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(s.script, "serve", s.dir)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("realclickhouse: start: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	s.mu.Lock()
	s.proc, s.exited = cmd, exited
	s.mu.Unlock()
}

// errPortTaken is a server that could not listen on its ports.
var errPortTaken = errors.New("a port of the server was taken")

// waitAnswers waits until the server answers over HTTP as itself: the cluster in its
// configuration names its own native port among the local ones (18.16 marks every replica of
// the server's own shard local) and, on a server of a Cluster, its macros name its shard and
// replica; so an answer from another process that took the port does not count. It fails when the process exits first or startTimeout passes.
func (s *Server) waitAnswers() error {
	s.mu.Lock()
	exited := s.exited
	s.mu.Unlock()
	query := fmt.Sprintf("SELECT count() FROM system.clusters WHERE cluster = '%s' AND is_local AND port = %d", ClusterName, s.NativePort())
	want := "1"
	if s.cluster {
		query = fmt.Sprintf("SELECT count(), (SELECT any(substitution) FROM system.macros WHERE macro = 'shard'), "+
			"(SELECT any(substitution) FROM system.macros WHERE macro = 'replica') FROM system.clusters "+
			"WHERE cluster = '%s' AND is_local AND port = %d", ClusterName, s.NativePort())
		want = fmt.Sprintf("1\t%d\tr%d", s.shard, s.replica)
	}
	deadline := time.After(startTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		out, err := s.QueryContext(ctx, query)
		cancel()
		if err == nil && out == want {
			return nil
		}
		select {
		case <-exited:
			tail := s.LogTail(30)
			if strings.Contains(tail, "Address already in use") {
				return fmt.Errorf("%w (%s):\n%s", errPortTaken, s.Addr(), tail)
			}
			return fmt.Errorf("the server exited while starting:\n%s", tail)
		case <-deadline:
			return fmt.Errorf("the server did not answer as itself within %v (last: %q, %v):\n%s", startTimeout, out, err, s.LogTail(30))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// QueryError is an answer of the server other than 200 OK.
type QueryError struct {
	Status int
	Body   string // the server's message, e.g. "Code: 60, e.displayText() = DB::Exception: ..."
}

func (e *QueryError) Error() string {
	return fmt.Sprintf("clickhouse answered %d: %s", e.Status, strings.TrimSpace(e.Body))
}

// QueryContext runs one statement as the user default and returns the answer with its
// trailing newline removed (TabSeparated unless the statement says FORMAT).
func (s *Server) QueryContext(ctx context.Context, sql string) (string, error) {
	return s.do(ctx, "", "", nil, sql)
}

// QueryAs runs one statement as user with password (basic authentication).
func (s *Server) QueryAs(ctx context.Context, user, password, sql string) (string, error) {
	return s.do(ctx, user, password, nil, sql)
}

// do posts sql (or, with data, sends sql as the query parameter and data as the body).
func (s *Server) do(ctx context.Context, user, password string, data io.Reader, sql string) (string, error) {
	target := s.URL()
	body := io.Reader(strings.NewReader(sql))
	if data != nil {
		target += "?" + url.Values{"query": {sql}}.Encode()
		body = data
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, body)
	if err != nil {
		return "", err
	}
	if user != "" {
		req.SetBasicAuth(user, password)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", &QueryError{Status: resp.StatusCode, Body: string(b)}
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}

// Query runs one statement and returns its answer; an error fails the test.
func (s *Server) Query(sql string) string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	out, err := s.QueryContext(ctx, sql)
	if err != nil {
		s.t.Fatalf("realclickhouse: %s: %v", oneLine(sql), err)
	}
	return out
}

// Int runs a statement whose answer is one integer.
func (s *Server) Int(sql string) int64 {
	s.t.Helper()
	out := s.Query(sql)
	n, err := strconv.ParseInt(out, 10, 64)
	if err != nil {
		s.t.Fatalf("realclickhouse: %s answered %q, not an integer", oneLine(sql), out)
	}
	return n
}

// Count is the number of rows of table (database.name), with FINAL when final is true.
func (s *Server) Count(table string, final bool) int64 {
	s.t.Helper()
	q := "SELECT count() FROM " + table
	if final {
		q += " FINAL"
	}
	return s.Int(q)
}

// oneLine shortens a statement for a message.
func oneLine(sql string) string {
	f := strings.Join(strings.Fields(sql), " ")
	if len(f) > 160 {
		f = f[:160] + "…"
	}
	return f
}

// WaitCount polls query, which answers one integer, until it answers at least n, and returns
// that answer; it fails the test when Options.Wait passes first, with the last answer and
// the server's log.
func (s *Server) WaitCount(query string, n int64) int64 {
	s.t.Helper()
	deadline := time.After(s.wait)
	var last string
	var lastErr error
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, err := s.QueryContext(ctx, query)
		cancel()
		if err == nil {
			got, perr := strconv.ParseInt(out, 10, 64)
			if perr != nil {
				s.t.Fatalf("realclickhouse: %s answered %q, not an integer", oneLine(query), out)
			}
			if got >= n {
				return got
			}
		}
		last, lastErr = out, err
		select {
		case <-deadline:
			s.t.Fatalf("realclickhouse: %s: still %q (%v) after %v, want %d:\n%s", oneLine(query), last, lastErr, s.wait, n, s.LogTail(20))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// WaitRows waits until table holds at least n rows (counted without FINAL) and returns the
// count it saw.
func (s *Server) WaitRows(table string, n int64) int64 {
	s.t.Helper()
	return s.WaitCount("SELECT count() FROM "+table, n)
}

// placeholder is a value ApplyDDL and the pulls put into SQL string literals.
var placeholder = regexp.MustCompile(`^[A-Za-z0-9._:,-]+$`)

// render reads the .sql files of folder (next to the script) in name order and returns their
// statements with each {{key}} replaced by its value, and the placeholders of the form
// (.ci/clickhouse/ddl/00-databases.sql) rendered for one server or for a cluster.
func (s *Server) render(folder string, values map[string]string) []string {
	s.t.Helper()
	files, err := filepath.Glob(filepath.Join(filepath.Dir(s.script), folder, "*.sql"))
	if err != nil || len(files) == 0 {
		s.t.Fatalf("realclickhouse: no SQL in %s (%v)", folder, err)
	}
	sort.Strings(files)
	pairs := make([]string, 0, 2*len(values))
	for k, v := range values {
		if !placeholder.MatchString(v) {
			s.t.Fatalf("realclickhouse: %s %q: want letters, digits and . _ : , -", k, v)
		}
		pairs = append(pairs, "{{"+k+"}}", v)
	}
	r := strings.NewReplacer(pairs...)
	var stmts []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			s.t.Fatal(err)
		}
		text := Layout(r.Replace(string(b)), s.cluster)
		if i := strings.Index(text, "{{"); i >= 0 {
			s.t.Fatalf("realclickhouse: %s: no value for %s", f, text[i:min(len(text), i+30)])
		}
		stmts = append(stmts, Statements(text)...)
	}
	return stmts
}

// The placeholders of the DDL's two forms: {{on_cluster}} and {{engine:E:DB/TABLE[:ARG]}}.
var (
	onClusterPlaceholder = regexp.MustCompile(` ?\{\{on_cluster\}\}`)
	enginePlaceholder    = regexp.MustCompile(`\{\{engine:([A-Za-z]+):([a-z_]+/[a-z_]+)(?::([^}]*))?\}\}`)
)

// Layout renders the placeholders of the form in text: on one server {{on_cluster}} is
// nothing and {{engine:E:DB/TABLE:ARG}} is E(ARG) (E without ARG); on a cluster they are ON
// CLUSTER clickstream_cluster and ReplicatedE('/clickhouse/tables/{shard}/DB/TABLE',
// '{replica}', ARG), the stand's keeper path. .ci/clickhouse/clickhouse renders them alike.
func Layout(text string, cluster bool) string {
	if !cluster {
		text = onClusterPlaceholder.ReplaceAllString(text, "")
		return enginePlaceholder.ReplaceAllStringFunc(text, func(m string) string {
			g := enginePlaceholder.FindStringSubmatch(m)
			if g[3] == "" {
				return g[1]
			}
			return g[1] + "(" + g[3] + ")"
		})
	}
	text = onClusterPlaceholder.ReplaceAllString(text, " ON CLUSTER "+ClusterName)
	return enginePlaceholder.ReplaceAllStringFunc(text, func(m string) string {
		g := enginePlaceholder.FindStringSubmatch(m)
		args := "'/clickhouse/tables/{shard}/" + g[2] + "', '{replica}'"
		if g[3] != "" {
			args += ", " + g[3]
		}
		return "Replicated" + g[1] + "(" + args + ")"
	})
}

// ClusterName is the cluster every server's configuration names (remote_servers), the
// stand's: on one server it is one shard, the server itself.
const ClusterName = "clickstream_cluster"

// Statements splits SQL text into statements: a statement ends with a line whose last
// character is a semicolon (dropped); lines that are only a -- comment are left out.
func Statements(text string) []string {
	var stmts []string
	var cur []string
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "--") {
			continue
		}
		if strings.HasSuffix(trimmed, ";") {
			cur = append(cur, strings.TrimSuffix(strings.TrimRight(line, " \t"), ";"))
			stmts = append(stmts, strings.Join(cur, "\n"))
			cur = nil
			continue
		}
		cur = append(cur, line)
	}
	if len(cur) > 0 {
		stmts = append(stmts, strings.Join(cur, "\n"))
	}
	return stmts
}

// ApplyDDL lays out the stand's pipeline (.ci/clickhouse/ddl/*.sql): databases stg and ods,
// the Kafka readers of topics.Hits (group HitsGroup) and topics.Orders (group OrdersGroup) at
// brokers, the raw, event, error and order tables with their _dist faces, and the views,
// the ingest view last (attaching it starts consumption). Statements are IF NOT EXISTS. On a
// server of a [Cluster] they are the cluster form, ON CLUSTER: every server gets them.
func (s *Server) ApplyDDL(brokers string, topics Topics) {
	s.t.Helper()
	if topics.Hits == "" {
		topics.Hits = "hits"
	}
	if topics.Orders == "" {
		topics.Orders = "orders"
	}
	for _, stmt := range s.render("ddl", map[string]string{
		"brokers": brokers, "hits_topic": topics.Hits, "orders_topic": topics.Orders,
		"hits_group": HitsGroup, "orders_group": OrdersGroup,
	}) {
		s.Query(stmt)
	}
	s.mu.Lock()
	s.topics = topics
	s.mu.Unlock()
}

// PullOrders runs the stand's orders_ingest once (.ci/clickhouse/pull/*.sql): one direct read
// of the orders reader into stg.orders_raw_rep tagged loadID, then that load's rows split into
// ods.order_rep and ods.order_errors_rep. It returns the raw rows the load brought. A read
// that starts before the reader's consumer has joined its group brings nothing.
func (s *Server) PullOrders(loadID string) int64 {
	s.t.Helper()
	s.mu.Lock()
	topic := s.topics.Orders
	s.mu.Unlock()
	if topic == "" {
		s.t.Fatal("realclickhouse: PullOrders before ApplyDDL")
	}
	for _, stmt := range s.render("pull", map[string]string{"load_id": loadID, "orders_topic": topic}) {
		s.Query(stmt)
	}
	return s.Int("SELECT count() FROM " + s.rawOrders() + " WHERE _load_id = '" + loadID + "'")
}

// rawOrders is the table that holds every raw order row: the local one on one server, the
// Distributed face on a server of a cluster (whose local table holds its shard's).
func (s *Server) rawOrders() string {
	if s.cluster {
		return "stg.orders_raw_dist"
	}
	return "stg.orders_raw_rep"
}

// PullOrdersUntil pulls (load ids pull-1, pull-2, …) until stg.orders_raw_rep holds at least
// n rows (on a cluster: stg.orders_raw_dist, every shard's), and returns how many it holds; it
// fails the test when Options.Wait passes first.
func (s *Server) PullOrdersUntil(n int64) int64 {
	s.t.Helper()
	deadline := time.Now().Add(s.wait)
	for {
		s.mu.Lock()
		s.pulls++
		id := "pull-" + strconv.Itoa(s.pulls)
		s.mu.Unlock()
		s.PullOrders(id)
		got := s.Count(s.rawOrders(), false)
		if got >= n {
			return got
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("realclickhouse: %s holds %d rows after %v of pulls, want %d:\n%s", s.rawOrders(), got, s.wait, n, s.LogTail(20))
		}
	}
}

// DeleteWhere deletes the rows of table (a MergeTree table such as ods.event_rep, not a
// _dist face) matching the condition where, with ALTER TABLE … DELETE, and waits until the
// mutation is done.
func (s *Server) DeleteWhere(table, where string) {
	s.t.Helper()
	db, name, ok := strings.Cut(table, ".")
	if !ok {
		s.t.Fatalf("realclickhouse: DeleteWhere(%q): want database.table", table)
	}
	s.Query("ALTER TABLE " + table + " DELETE WHERE " + where)
	s.WaitCount("SELECT count() = 0 FROM system.mutations WHERE database = '"+db+"' AND table = '"+name+"' AND NOT is_done", 1)
}

// DeleteDay deletes the rows of one EventDate (YYYY-MM-DD) from an events table such as
// ods.event_rep and waits until the mutation is done.
func (s *Server) DeleteDay(table, date string) {
	s.t.Helper()
	if !regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`).MatchString(date) {
		s.t.Fatalf("realclickhouse: DeleteDay(%q, %q): want a YYYY-MM-DD date", table, date)
	}
	s.DeleteWhere(table, "EventDate = '"+date+"'")
}

// Insert inserts rows, each one JSON object (JSONEachRow: a column left out takes its
// default), into table.
func (s *Server) Insert(table string, rows ...string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	data := strings.Join(rows, "\n") + "\n"
	if _, err := s.do(ctx, "", "", strings.NewReader(data), "INSERT INTO "+table+" FORMAT JSONEachRow"); err != nil {
		s.t.Fatalf("realclickhouse: insert into %s: %v", table, err)
	}
}

// InsertData inserts data, in format (RowBinary, TabSeparated, JSONEachRow…: every column of
// table in order unless the format names them), into table.
func (s *Server) InsertData(table, format string, data io.Reader) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	if _, err := s.do(ctx, "", "", data, "INSERT INTO "+table+" FORMAT "+format); err != nil {
		s.t.Fatalf("realclickhouse: insert into %s (%s): %v", table, format, err)
	}
}

// Version is what the server says SELECT version() is ("18.16.1").
func (s *Server) Version() string {
	s.t.Helper()
	return s.Query("SELECT version()")
}

// InsertRaw inserts messages, byte for byte, as rows of table's column raw (the other
// columns take their defaults): what a Kafka reader would have passed on, without Kafka.
func (s *Server) InsertRaw(table string, messages ...[]byte) {
	s.t.Helper()
	var data []byte
	for _, m := range messages {
		data = appendEscaped(data, m)
		data = append(data, '\n')
	}
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	if _, err := s.do(ctx, "", "", bytes.NewReader(data), "INSERT INTO "+table+" (raw) FORMAT TabSeparated"); err != nil {
		s.t.Fatalf("realclickhouse: insert into %s: %v", table, err)
	}
}

// appendEscaped appends m escaped for a TabSeparated field: backslash, tab, newline,
// carriage return and NUL as \\, \t, \n, \r and \0; every other byte as it is.
func appendEscaped(dst, m []byte) []byte {
	for _, c := range m {
		switch c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case 0:
			dst = append(dst, '\\', '0')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// signal sends sig to the server; with wait it also waits until the process is gone.
func (s *Server) signal(sig syscall.Signal, wait bool) {
	s.mu.Lock()
	cmd, exited := s.proc, s.exited
	if wait {
		s.proc = nil
	}
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(sig)
	if !wait {
		return
	}
	select {
	case <-exited:
	case <-time.After(startTimeout):
		// SIGKILL cannot be caught; a process still there is stuck in the kernel.
		s.t.Errorf("realclickhouse: the server (pid %d) is still there %v after %v", cmd.Process.Pid, startTimeout, sig)
	}
}

// Kill kills the server with SIGKILL (as a crash would: nothing flushed, nothing committed)
// and waits until it is gone.
func (s *Server) Kill() { s.signal(syscall.SIGKILL, true) }

// Restart starts the server again on its data and port and waits until it answers. The
// server must not be running.
func (s *Server) Restart() {
	s.t.Helper()
	s.mu.Lock()
	running := s.proc != nil
	s.mu.Unlock()
	if running {
		s.t.Fatal("realclickhouse: Restart of a running server (Kill it first)")
	}
	s.launch()
	if err := s.waitAnswers(); err != nil {
		s.t.Fatalf("realclickhouse: restart: %v", err)
	}
}

// Pause freezes the server (SIGSTOP) and waits until every thread of it has stopped: it
// still accepts connections (the kernel does) and answers nothing until Resume. (SIGSTOP
// stops the threads one by one as each is scheduled; on a busy machine a thread answered a
// request after kill(2) had returned.)
func (s *Server) Pause() {
	s.t.Helper()
	s.signal(syscall.SIGSTOP, false)
	pid := s.Pid()
	if pid == 0 {
		return
	}
	deadline := time.After(startTimeout)
	for {
		running, err := runningThreads(pid)
		if err != nil || running == 0 {
			return // gone (Kill reports that), or stopped
		}
		select {
		case <-deadline:
			s.t.Fatalf("realclickhouse: %d threads of the server still run %v after SIGSTOP", running, startTimeout)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// runningThreads counts the threads of process pid not in the stopped state (T), from
// /proc/PID/task/TID/stat.
func runningThreads(pid int) (int, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, task := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, task.Name(), "stat"))
		if err != nil {
			continue // the thread ended
		}
		// "TID (comm) S ...": the state follows the last ')' (comm may hold spaces or parentheses).
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] != 'T' {
			n++
		}
	}
	return n, nil
}

// Resume continues a paused server (SIGCONT).
func (s *Server) Resume() { s.signal(syscall.SIGCONT, false) }

// Running says whether the server's process lives: false after Kill, and after the server
// died by itself (18.16 crashes on some messages: README in .ci/clickhouse). Kill a server
// that died before restarting it.
func (s *Server) Running() bool {
	s.mu.Lock()
	cmd, exited := s.proc, s.exited
	s.mu.Unlock()
	if cmd == nil {
		return false
	}
	select {
	case <-exited:
		return false
	default:
		return true
	}
}

// Pid is the server's process id, 0 when it is not running.
func (s *Server) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		return s.proc.Process.Pid
	}
	return 0
}

// LogTail is the last n lines of the server's log (warnings and errors) and of its console.
func (s *Server) LogTail(n int) string {
	var b strings.Builder
	for _, name := range []string{"clickhouse-server.log", "console.log"} {
		data, _ := os.ReadFile(filepath.Join(s.dir, "log", name))
		lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
		if len(lines) > n {
			lines = lines[len(lines)-n:]
		}
		fmt.Fprintf(&b, "--- %s\n%s\n", name, bytes.Join(lines, []byte("\n")))
	}
	return b.String()
}

// close kills the server if it runs, showing the log's tail when the test failed.
func (s *Server) close() {
	if s.t.Failed() {
		s.t.Logf("realclickhouse: the server's log:\n%s", s.LogTail(30))
	}
	s.Kill()
}
