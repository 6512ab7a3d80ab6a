// Package chserver starts a real ClickHouse server for the tests of package store and its
// client: Debian's clickhouse-server (18.16, the only server build reachable here), on a free
// loopback HTTP port, with its data, a minimal configuration and two users (default, without
// a password, and "verifier", with [Password]) in a temporary directory, stopped at the end of
// the test. Tests skip when the binary is absent unless CLICKGEN_REQUIRE_CLICKHOUSE=1.
package chserver

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Binary is where Debian's package installs the server.
const Binary = "/usr/sbin/clickhouse-server"

// RequireEnv, set to 1, turns a missing server binary into a failure instead of a skip.
const RequireEnv = "CLICKGEN_REQUIRE_CLICKHOUSE"

// Verifier and Password are the server's second user and its password.
const (
	Verifier = "verifier"
	Password = "ch-18.16-test-pw"
)

// Server is one running server.
type Server struct {
	// URL is its HTTP interface, http://127.0.0.1:PORT/, without credentials.
	URL string
	// Version is what SELECT version() says.
	Version string
	dir     string
}

const configXML = `<?xml version="1.0"?>
<yandex>
    <logger><level>warning</level><log>%[1]s/server.log</log><errorlog>%[1]s/server.err.log</errorlog><console>0</console></logger>
    <http_port>%[2]d</http_port>
    <listen_host>127.0.0.1</listen_host>
    <path>%[1]s/data/</path>
    <tmp_path>%[1]s/tmp/</tmp_path>
    <users_config>%[1]s/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <mark_cache_size>268435456</mark_cache_size>
    <max_concurrent_queries>20</max_concurrent_queries>
</yandex>
`

const usersXML = `<?xml version="1.0"?>
<yandex>
    <profiles><default><max_memory_usage>4000000000</max_memory_usage></default></profiles>
    <users>
        <default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default>
        <%[1]s><password>%[2]s</password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></%[1]s>
    </users>
    <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`

// Start starts a server for the test and waits (at most a minute) until it answers /ping.
func Start(t testing.TB) *Server {
	t.Helper()
	if _, err := os.Stat(Binary); err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("ClickHouse server tier: %v (%s=1)", err, RequireEnv)
		}
		t.Skipf("ClickHouse server tier skipped: %v (apt-get install clickhouse-server; set %s=1 to make this a failure)", err, RequireEnv)
	}
	dir := t.TempDir()
	for _, d := range []string{"data", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)
	if err := os.WriteFile(filepath.Join(dir, "config.xml"), fmt.Appendf(nil, configXML, dir, port), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "users.xml"), fmt.Appendf(nil, usersXML, Verifier, Password), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(Binary, "--config-file="+filepath.Join(dir, "config.xml"))
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		out.Close()
	})
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d/", port), dir: dir}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		if v, err := s.Query("SELECT version()"); err == nil {
			s.Version = strings.TrimSpace(v)
			break
		}
		select {
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "server.err.log"))
			t.Fatalf("clickhouse-server exited: %v\n%s", err, log)
		case <-ctx.Done():
			t.Fatalf("clickhouse-server did not answer on port %d within a minute", port)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Logf("ClickHouse %s on %s (data in %s)", s.Version, s.URL, dir)
	return s
}

func freePort(t testing.TB) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// httpClient closes every connection after its request: the server's shutdown waits for
// open keep-alive connections.
var httpClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// Query runs sql as the default user and returns the answer as text (TabSeparated); a
// server error is an error carrying the body.
func (s *Server) Query(sql string) (string, error) {
	resp, err := httpClient.Post(s.URL, "text/plain", strings.NewReader(sql))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("clickhouse-server: HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))
	}
	return string(b), nil
}

// Exec runs statements one by one as the default user, failing the test on an error.
func (s *Server) Exec(t testing.TB, stmts ...string) {
	t.Helper()
	for _, st := range stmts {
		if _, err := s.Query(st); err != nil {
			t.Fatalf("%v\n\tin: %.300s", err, st)
		}
	}
}

// Insert sends data (in format, e.g. TabSeparated) into table as the default user.
func (s *Server) Insert(t testing.TB, table, format string, data io.Reader) {
	t.Helper()
	u := s.URL + "?query=" + url.QueryEscape("INSERT INTO "+table+" FORMAT "+format)
	resp, err := httpClient.Post(u, "application/octet-stream", data)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("insert into %s: HTTP %d: %s", table, resp.StatusCode, b)
	}
}
