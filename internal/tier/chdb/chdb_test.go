package chdb

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clickgen/clickgen/internal/testenv"
)

var shared struct {
	once sync.Once
	s    *Session
	err  error
}

func TestMain(m *testing.M) {
	code := testenv.Main(m)
	if shared.s != nil {
		shared.s.Close()
	}
	os.Exit(code)
}

// open returns the test binary's in-memory session, where the chDB tier runs.
func open(t *testing.T) *Session {
	t.Helper()
	testenv.Need(t, testenv.ChDB, Missing())
	shared.once.Do(func() { shared.s, shared.err = Open(Config{}) })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.s
}

func TestMissingLibraryIsAnError(t *testing.T) {
	_, err := Open(Config{Lib: filepath.Join(t.TempDir(), "libchdb.so")})
	if !errors.Is(err, ErrNoLibrary) {
		t.Errorf("Open(missing file) error = %v, want ErrNoLibrary", err)
	}
	notALib := filepath.Join(t.TempDir(), "libchdb.so")
	if err := os.WriteFile(notALib, []byte("not an ELF file"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Config{Lib: notALib}); !errors.Is(err, ErrNoLibrary) {
		t.Errorf("Open(text file) error = %v, want ErrNoLibrary", err)
	}
	t.Setenv(EnvLib, filepath.Join(t.TempDir(), "nope.so"))
	if _, err := LibPath(); !errors.Is(err, ErrNoLibrary) || !strings.Contains(err.Error(), EnvLib) {
		t.Errorf("LibPath with a bad %s: error = %v, want ErrNoLibrary naming the variable", EnvLib, err)
	}
}

func TestMissingSymbolIsAnError(t *testing.T) {
	libc := "/lib/x86_64-linux-gnu/libc.so.6"
	if _, err := os.Stat(libc); err != nil {
		t.Skipf("no %s to stand in for a library without chDB symbols", libc)
	}
	_, err := Open(Config{Lib: libc})
	if err == nil || !strings.Contains(err.Error(), "has no symbol chdb_") {
		t.Errorf("Open(libc) error = %v, want a missing-symbol error", err)
	}
}

func TestDefaultLibPathIsUnderModuleRoot(t *testing.T) {
	t.Setenv(EnvLib, "")
	p, err := LibPath()
	if err != nil {
		if !errors.Is(err, ErrNoLibrary) || !strings.Contains(err.Error(), "npm ci --prefix .ci/chdb") {
			t.Fatalf("LibPath error = %v, want ErrNoLibrary with install advice", err)
		}
		return
	}
	if !strings.HasSuffix(filepath.ToSlash(p), DefaultLibPath) {
		t.Errorf("LibPath = %s, want …/%s", p, DefaultLibPath)
	}
}

func TestQuery(t *testing.T) {
	s := open(t)
	if v := s.Version(); !strings.HasPrefix(v, "26.7") {
		t.Errorf("Version = %q, want 26.7.x", v)
	}
	out, err := s.Query("SELECT 1 + 1, timezone(), toString(toDateTime(0))", "TSV")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), "2\tUTC\t1970-01-01 00:00:00\n"; got != want {
		t.Errorf("Query = %q, want %q", got, want)
	}
	out, err = s.Query("SELECT number FROM numbers(3)", "")
	if err != nil || string(out) != "0\n1\n2\n" {
		t.Errorf("Query with the default format = %q, %v", out, err)
	}
	out, err = s.Query("SELECT 'a\\0b'", "RowBinary")
	if err != nil || string(out) != "\x03a\x00b" {
		t.Errorf("binary output = %q, %v; want %q", out, err, "\x03a\x00b")
	}
	_, err = s.Query("SELEC 1", "TSV")
	var qe *QueryError
	if !errors.As(err, &qe) || !strings.Contains(qe.Msg, "Syntax error") {
		t.Errorf("bad SQL: error = %v, want a QueryError with ClickHouse's syntax error", err)
	}
	if err := s.Exec("CREATE TABLE t_exec (x UInt8) ENGINE = Memory", "INSERT INTO t_exec VALUES (1)", "DROP TABLE t_exec"); err != nil {
		t.Errorf("Exec: %v", err)
	}
}

func TestCloseTwice(t *testing.T) {
	open(t)
	s, err := Open(Config{Settings: map[string]string{"max_threads": "3"}}) // a second connection
	if err != nil {
		t.Fatal(err)
	}
	if out, err := s.Query("SELECT getSetting('max_threads'), timezone()", "TSV"); err != nil || string(out) != "3\tUTC\n" {
		t.Errorf("per-connection settings: %q, %v; want max_threads 3 in UTC", out, err)
	}
	if _, err := Open(Config{Settings: map[string]string{"bad name": "1"}}); err == nil {
		t.Error("Open with a bad setting name: no error")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.Query("SELECT 1", "TSV"); err == nil {
		t.Error("Query after Close: no error")
	}
}

func TestWaitCount(t *testing.T) {
	s := open(t)
	if err := s.Exec("CREATE TABLE t_wait (x UInt8) ENGINE = Memory", "INSERT INTO t_wait VALUES (1), (2)"); err != nil {
		t.Fatal(err)
	}
	defer s.Exec("DROP TABLE t_wait")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if got, err := s.WaitCount(ctx, "SELECT count() FROM t_wait", 2, 10*time.Millisecond); got != 2 || err != nil {
		t.Errorf("WaitCount(2) = %d, %v; want 2, nil", got, err)
	}
	short, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	got, err := s.WaitCount(short, "SELECT count() FROM t_wait", 3, 10*time.Millisecond)
	if got != 2 || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitCount(3) = %d, %v; want 2 and a deadline error", got, err)
	}
	if got, err := s.WaitCount(ctx, "SELECT count() FROM t_wait", 1, 10*time.Millisecond); got != 2 || err == nil {
		t.Errorf("WaitCount(1) = %d, %v; want 2 and an overshoot error", got, err)
	}
}
