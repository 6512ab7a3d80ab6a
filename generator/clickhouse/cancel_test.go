package clickhouse

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// killServer is a fake ClickHouse that runs "slow" queries (a body holding "sleep") until a
// KILL QUERY names their query id, answers KILL QUERY and the count of system.processes by
// query id as a server would, and records every request.
type killServer struct {
	*httptest.Server
	mu       sync.Mutex
	requests []killRequest
	running  map[string]chan struct{} // slow queries by id, closed when killed
	refuse   bool                     // refuse max_execution_time as a read-only user's server does
	rowFirst bool                     // a slow query sends a row before it waits
}

type killRequest struct {
	id, limit, overflow, sql string
}

var killRE = regexp.MustCompile(`KILL QUERY WHERE query_id = '([^']+)'`)
var processesRE = regexp.MustCompile(`system\.processes WHERE query_id = '([^']+)'`)

func newKillServer(t *testing.T) *killServer {
	s := &killServer{running: map[string]chan struct{}{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(func() {
		s.mu.Lock()
		for _, c := range s.running {
			select {
			case <-c:
			default:
				close(c)
			}
		}
		s.mu.Unlock()
		s.Close()
	})
	return s
}

func (s *killServer) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	q := r.URL.Query()
	req := killRequest{id: q.Get("query_id"), limit: q.Get("max_execution_time"), overflow: q.Get("timeout_overflow_mode"), sql: string(b)}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	refuse := s.refuse
	s.mu.Unlock()
	if refuse && req.limit != "" {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "Code: 164, e.displayText() = DB::Exception: Cannot override setting (max_execution_time) in readonly mode, e.what() = DB::Exception")
		return
	}
	switch {
	case killRE.MatchString(req.sql):
		id := killRE.FindStringSubmatch(req.sql)[1]
		s.mu.Lock()
		if c, ok := s.running[id]; ok {
			close(c)
			delete(s.running, id)
		}
		s.mu.Unlock()
	case processesRE.MatchString(req.sql):
		id := processesRE.FindStringSubmatch(req.sql)[1]
		s.mu.Lock()
		_, running := s.running[id]
		s.mu.Unlock()
		n := uint64(0)
		if running {
			n = 1
		}
		w.Write(binary.LittleEndian.AppendUint64(nil, n))
	case strings.Contains(req.sql, "sleep"):
		killed := make(chan struct{})
		s.mu.Lock()
		s.running[req.id] = killed
		rowFirst := s.rowFirst
		s.mu.Unlock()
		if rowFirst {
			w.Write(binary.LittleEndian.AppendUint64(nil, 1))
			w.(http.Flusher).Flush()
		}
		select { // a server does not notice its client going away: only KILL ends the query
		case <-killed:
		case <-time.After(time.Minute):
		}
		panic(http.ErrAbortHandler)
	default:
		w.Write(binary.LittleEndian.AppendUint64(nil, 7))
	}
}

// kills returns the query ids KILL QUERY named, and the ids of the slow queries still running.
func (s *killServer) kills() (killed, running []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.requests {
		if m := killRE.FindStringSubmatch(r.sql); m != nil {
			killed = append(killed, m[1])
		}
	}
	for id := range s.running {
		running = append(running, id)
	}
	return killed, running
}

// slowID is the query id of the first slow query the server saw.
func (s *killServer) slowID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.requests {
		if strings.Contains(r.sql, "sleep") {
			return r.id
		}
	}
	return ""
}

// started waits until a slow query runs.
func (s *killServer) started(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		s.mu.Lock()
		n := len(s.running)
		s.mu.Unlock()
		if n > 0 {
			return
		}
	}
	t.Fatal("the slow query never reached the server")
}

// TestCancelKillsOnServer is issue 35's finding: after a timeout or Ctrl-C, verify's query
// kept running on the server (18.16 does not cancel a query whose client went away). A query
// ended by its context, by the first-byte timeout, or closed halfway through its rows is
// killed on the server by the id the client gave it, before Query or Close returns; a query
// read to its end is not.
func TestCancelKillsOnServer(t *testing.T) {
	check := func(t *testing.T, s *killServer, lines []string) {
		t.Helper()
		killed, running := s.kills()
		if id := s.slowID(); len(killed) != 1 || killed[0] != id || len(running) != 0 {
			t.Errorf("KILL QUERY named %q, %q still running; want exactly the slow query %q killed", killed, running, id)
		}
		if len(lines) != 1 || !strings.Contains(lines[0], "cancelled on the server") {
			t.Errorf("told %q; want one line saying the query was cancelled", lines)
		}
	}
	logTo := func(lines *[]string) Opt {
		var mu sync.Mutex
		return Logf(func(f string, a ...any) { mu.Lock(); *lines = append(*lines, fmt.Sprintf(f, a...)); mu.Unlock() })
	}
	t.Run("context cancelled", func(t *testing.T) {
		s := newKillServer(t)
		var lines []string
		c := newTestClient(t, s.URL, logTo(&lines))
		ctx, cancel := context.WithCancel(context.Background())
		go func() { s.started(t); cancel() }()
		_, err := c.Query(ctx, "SELECT sleep(3)")
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Query = %v, want context.Canceled", err)
		}
		check(t, s, lines)
	})
	t.Run("first-byte timeout", func(t *testing.T) {
		s := newKillServer(t)
		var lines []string
		c := newTestClient(t, s.URL, FirstByteTimeout(200*time.Millisecond), logTo(&lines))
		_, err := c.Query(context.Background(), "SELECT sleep(3)")
		var te *TimeoutError
		if !errors.As(err, &te) {
			t.Fatalf("Query = %v, want a TimeoutError", err)
		}
		check(t, s, lines)
	})
	t.Run("closed halfway", func(t *testing.T) {
		s := newKillServer(t)
		s.rowFirst = true
		var lines []string
		c := newTestClient(t, s.URL, logTo(&lines))
		rows, err := c.Query(context.Background(), "SELECT sleep(3)")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rows.UInt64(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		rows.Close()
		check(t, s, lines)
	})
	t.Run("read whole", func(t *testing.T) {
		s := newKillServer(t)
		var lines []string
		c := newTestClient(t, s.URL, logTo(&lines))
		if _, err := c.count(context.Background(), "SELECT count()"); err != nil {
			t.Fatal(err)
		}
		rows, err := c.Query(context.Background(), "SELECT count()")
		if err != nil {
			t.Fatal(err)
		}
		rows.UInt64()
		rows.End()
		rows.Close()
		if killed, _ := s.kills(); len(killed) != 0 || len(lines) != 0 {
			t.Errorf("a query read whole was killed (%q), told %q", killed, lines)
		}
	})
}

// TestQueryCarriesIDAndLimit: every query carries a query id of the client's own (distinct,
// with the client's prefix) and the server-side time limit matched to the first-byte timeout
// (max_execution_time in whole seconds, rounded up, with timeout_overflow_mode=throw, so a
// limit never yields a short answer); ServerTimeLimit overrides it, 0 sends none. A server
// that refuses the setting (a read-only user: code 164) is asked again without it, said once,
// and not asked with it again.
func TestQueryCarriesIDAndLimit(t *testing.T) {
	for _, tc := range []struct {
		opts  []Opt
		limit string
	}{
		{nil, "120"},
		{[]Opt{FirstByteTimeout(1500 * time.Millisecond)}, "2"},
		{[]Opt{ServerTimeLimit(10 * time.Second)}, "10"},
		{[]Opt{ServerTimeLimit(0)}, ""},
	} {
		s := newKillServer(t)
		c := newTestClient(t, s.URL, tc.opts...)
		for range 2 {
			if _, err := c.count(context.Background(), "SELECT count()"); err != nil {
				t.Fatal(err)
			}
		}
		r := s.requests
		if len(r) != 2 || r[0].id == r[1].id || !strings.HasPrefix(r[0].id, c.QueryIDPrefix()) || !strings.HasPrefix(c.QueryIDPrefix(), "clickgen-") {
			t.Errorf("query ids %+v; want two distinct ids beginning %q", r, c.QueryIDPrefix())
		}
		wantOverflow := "throw"
		if tc.limit == "" {
			wantOverflow = ""
		}
		for _, q := range r {
			if q.limit != tc.limit || q.overflow != wantOverflow {
				t.Errorf("max_execution_time=%q timeout_overflow_mode=%q; want %q %q", q.limit, q.overflow, tc.limit, wantOverflow)
			}
		}
	}

	s := newKillServer(t)
	s.refuse = true
	var lines []string
	c := newTestClient(t, s.URL, Logf(func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }))
	for range 3 {
		if n, err := c.count(context.Background(), "SELECT count()"); err != nil || n != 7 {
			t.Fatalf("count as a read-only user = %d, %v", n, err)
		}
	}
	if len(s.requests) != 4 || len(lines) != 1 || !strings.Contains(lines[0], "without max_execution_time") {
		t.Errorf("%d requests, told %q; want 4 (one refused) and one line", len(s.requests), lines)
	}
}
