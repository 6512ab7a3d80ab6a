package chdb

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// Config says which library to load and how to open the engine. The zero value loads the
// library found by [LibPath] and opens an in-memory engine.
type Config struct {
	// Lib is the path of libchdb.so, overriding the default of [LibPath].
	Lib string
	// Path is the engine's data directory, overriding the default of an in-memory engine.
	// MergeTree tables and the Kafka engine work in both. chDB fixes the path for the whole
	// process at the first connection.
	Path string
	// Settings are ClickHouse query-level settings applied to this session, as
	// name → value, on top of session_timezone = 'UTC', which is always set.
	Settings map[string]string
}

// Session is one connection to the engine. Its methods are safe for concurrent use;
// statements run one at a time. Every session pins session_timezone to UTC, so dates and
// times print and parse the same way on every machine.
type Session struct {
	mu   sync.Mutex
	api  *api
	conn unsafe.Pointer // chdb_connection * (a pointer to the handle), nil once closed
}

// Open loads the library (once per process) and connects. A missing library or symbol is
// an error wrapping [ErrNoLibrary] or describing the symbol; Open never panics on it.
func Open(cfg Config) (*Session, error) {
	lib := cfg.Lib
	if lib == "" {
		p, err := LibPath()
		if err != nil {
			return nil, err
		}
		lib = p
	}
	a, err := load(lib)
	if err != nil {
		return nil, err
	}
	args := []string{"clickhouse", "--session_timezone=UTC"}
	if cfg.Path != "" {
		// Without --path chDB runs in memory; "--path=:memory:" would create a directory of
		// that name in the working directory.
		args = append(args, "--path="+cfg.Path)
	}
	for k, v := range cfg.Settings {
		if k == "" || strings.ContainsAny(k, "= \t\n") {
			return nil, fmt.Errorf("chdb: bad setting name %q", k)
		}
		args = append(args, "--"+k+"="+v)
	}
	cargs := make([][]byte, len(args))
	argv := make([]*byte, len(args)+1)
	for i, s := range args {
		cargs[i] = append([]byte(s), 0)
		argv[i] = &cargs[i][0]
	}
	conn := a.connect(int32(len(args)), &argv[0])
	runtime.KeepAlive(cargs)
	runtime.KeepAlive(argv)
	if conn == nil || *(*unsafe.Pointer)(conn) == nil {
		return nil, fmt.Errorf("chdb: chdb_connect(%s) failed (another session open with a different path, or a bad setting?)",
			strings.Join(args[1:], " "))
	}
	s := &Session{api: a, conn: conn}
	// Prove the pin took: everything downstream assumes UTC.
	tz, err := s.Query("SELECT timezone()", "TSVRaw")
	if err != nil {
		s.Close()
		return nil, err
	}
	if got := strings.TrimSpace(string(tz)); got != "UTC" {
		s.Close()
		return nil, fmt.Errorf("chdb: session time zone is %q, want UTC", got)
	}
	return s, nil
}

// Version returns the library's version string, e.g. "26.7.3".
func (s *Session) Version() string { return s.api.version() }

// Query runs one statement and returns its output in the given ClickHouse output format
// ("TSV", "JSONEachRow", "CSV", ...; "" means TSV). The bytes are a copy owned by the
// caller. An engine error is returned as an error carrying ClickHouse's message.
func (s *Session) Query(sql, format string) ([]byte, error) {
	if format == "" {
		format = "TSV"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		return nil, errors.New("chdb: session closed")
	}
	q := append([]byte(sql), 0)
	f := append([]byte(format), 0)
	res := s.api.queryN(*(*unsafe.Pointer)(s.conn), &q[0], uintptr(len(sql)), &f[0], uintptr(len(format)))
	runtime.KeepAlive(q)
	runtime.KeepAlive(f)
	if res == nil {
		return nil, errors.New("chdb: chdb_query_n returned no result")
	}
	defer s.api.destroyResult(res)
	if msg := s.api.resultError(res); msg != "" {
		return nil, &QueryError{SQL: sql, Msg: strings.TrimSpace(msg)}
	}
	n := s.api.resultLength(res)
	buf := s.api.resultBuffer(res)
	if n == 0 || buf == nil {
		return []byte{}, nil
	}
	return append([]byte(nil), unsafe.Slice(buf, n)...), nil
}

// Exec runs statements that return nothing of interest (DDL, INSERT, SET), one by one,
// stopping at the first error.
func (s *Session) Exec(stmts ...string) error {
	for _, st := range stmts {
		if _, err := s.Query(st, "TSV"); err != nil {
			return err
		}
	}
	return nil
}

// Close closes the connection. It is safe to call more than once. The engine itself keeps
// running until the process exits (chDB has one engine per process).
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		s.api.closeConn(s.conn)
		s.conn = nil
	}
	return nil
}

// QueryError is an error reported by the engine for one statement.
type QueryError struct {
	SQL string // the statement, as sent
	Msg string // ClickHouse's message, e.g. "Code: 62. DB::Exception: Syntax error: ..."
}

// Error returns ClickHouse's message and the start of the statement.
func (e *QueryError) Error() string {
	sql := e.SQL
	if len(sql) > 200 {
		sql = sql[:200] + "…"
	}
	return "chdb: " + e.Msg + "\n\tin: " + sql
}

// WaitCount runs query, which must return a single unsigned number (a count()), every
// interval until it returns want. It returns the last count and an error when the context
// ends first (wrapping the context's error) or when the count goes past want (more rows than
// sent means duplicates, and waiting longer cannot fix that). It never blocks beyond ctx.
func (s *Session) WaitCount(ctx context.Context, query string, want uint64, interval time.Duration) (uint64, error) {
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	var got uint64
	for {
		out, err := s.Query(query, "TSV")
		if err != nil {
			return got, err
		}
		got, err = strconv.ParseUint(strings.TrimSpace(string(out)), 10, 64)
		if err != nil {
			return got, fmt.Errorf("chdb: WaitCount: %q is not a count: %w", out, err)
		}
		switch {
		case got == want:
			return got, nil
		case got > want:
			return got, fmt.Errorf("chdb: WaitCount: %d rows, more than the %d awaited", got, want)
		}
		select {
		case <-ctx.Done():
			return got, fmt.Errorf("chdb: WaitCount: %d of %d rows: %w", got, want, ctx.Err())
		case <-t.C:
		}
	}
}
