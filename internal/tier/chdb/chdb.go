// Package chdb runs SQL on a real ClickHouse engine inside the process: chDB's libchdb.so,
// loaded at run time through purego (no cgo). It is test tier 4 of clickgen: the stand's
// intake rules ([github.com/clickgen/clickgen/generator/verify/intake]) are executed here by the
// engine the stand runs, ClickHouse 26.7, and compared with the generator's own classifier.
//
// The library comes from the npm package @chdb/lib-linux-x64-gnu, installed by
// `npm ci --prefix .ci/chdb` (see [LibPath]). Nothing here panics when it is missing: [Open]
// returns an error wrapping [ErrNoLibrary]; tests ask for the tier with testenv.Need(t, testenv.ChDB, Missing()).
//
// chDB keeps one engine per process. Its storage path is fixed by the first connection;
// opening a second [Session] with a different path fails until every earlier session is
// closed. A [Session] is safe for concurrent use; its statements run one at a time.
package chdb

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// EnvLib names the environment variable holding the path of libchdb.so. It overrides the
// default location under the module root.
const EnvLib = "CHDB_LIB"

// DefaultLibPath is where `npm ci --prefix .ci/chdb` puts libchdb.so, relative to the root of
// the clickgen module.
const DefaultLibPath = ".ci/chdb/node_modules/@chdb/lib-linux-x64-gnu/libchdb.so"

// ErrNoLibrary reports that libchdb.so was not found or could not be loaded. Errors from
// [Open] and [LibPath] wrap it when the engine is simply unavailable, so callers can tell
// "skip" from "broken".
var ErrNoLibrary = errors.New("chdb: libchdb.so not available")

// LibPath returns the path of libchdb.so: $CHDB_LIB when set, else [DefaultLibPath] under
// the module root found by walking up from the working directory to the go.mod of
// github.com/clickgen/clickgen. It checks that the file exists; the error wraps
// [ErrNoLibrary] and says how to install the library.
func LibPath() (string, error) {
	if p := os.Getenv(EnvLib); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%w: %s=%s: %w", ErrNoLibrary, EnvLib, p, err)
		}
		return p, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", fmt.Errorf("%w: %w (set %s)", ErrNoLibrary, err, EnvLib)
	}
	p := filepath.Join(root, filepath.FromSlash(DefaultLibPath))
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%w: %w (run `npm ci --prefix .ci/chdb` in %s, or set %s)",
			ErrNoLibrary, err, root, EnvLib)
	}
	return p, nil
}

// moduleRoot walks up from the working directory to the directory whose go.mod declares
// the clickgen module.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/clickgen/clickgen\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod of github.com/clickgen/clickgen above the working directory")
		}
		dir = parent
	}
}

// api holds the C functions of libchdb.so that this package calls. Signatures follow
// chdb.h of chDB 26.7 (programs/local/chdb.h in chdb-io/chdb-core).
type api struct {
	version           func() string                                                                          // const char *chdb_version(void)
	setSignalHandlers func(enabled int32)                                                                    // void chdb_set_signal_handlers_enabled(int)
	connect           func(argc int32, argv **byte) unsafe.Pointer                                           // chdb_connection *chdb_connect(int, char **)
	closeConn         func(conn unsafe.Pointer)                                                              // void chdb_close_conn(chdb_connection *)
	queryN            func(conn unsafe.Pointer, q *byte, qlen uintptr, f *byte, flen uintptr) unsafe.Pointer // chdb_result *chdb_query_n(...)
	resultBuffer      func(res unsafe.Pointer) *byte                                                         // char *chdb_result_buffer(chdb_result *)
	resultLength      func(res unsafe.Pointer) uintptr                                                       // size_t chdb_result_length(chdb_result *)
	resultError       func(res unsafe.Pointer) string                                                        // const char *chdb_result_error(chdb_result *)
	destroyResult     func(res unsafe.Pointer)                                                               // void chdb_destroy_query_result(chdb_result *)
}

var (
	loadMu sync.Mutex
	loaded = map[string]*api{} // by path; one real libchdb.so per process is expected
)

// load opens the library at path once per process and resolves every symbol, returning an
// error (never panicking) when the file or a symbol is missing.
func load(path string) (*api, error) {
	loadMu.Lock()
	defer loadMu.Unlock()
	if a := loaded[path]; a != nil {
		return a, nil
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return nil, fmt.Errorf("%w: the npm package is built for linux/amd64, not %s/%s",
			ErrNoLibrary, runtime.GOOS, runtime.GOARCH)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoLibrary, err)
	}
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("%w: dlopen %s: %w", ErrNoLibrary, path, err)
	}
	a := new(api)
	syms := []struct {
		name string
		fn   any
	}{
		{"chdb_version", &a.version},
		{"chdb_set_signal_handlers_enabled", &a.setSignalHandlers},
		{"chdb_connect", &a.connect},
		{"chdb_close_conn", &a.closeConn},
		{"chdb_query_n", &a.queryN},
		{"chdb_result_buffer", &a.resultBuffer},
		{"chdb_result_length", &a.resultLength},
		{"chdb_result_error", &a.resultError},
		{"chdb_destroy_query_result", &a.destroyResult},
	}
	for _, s := range syms {
		sym, err := purego.Dlsym(h, s.name)
		if err != nil || sym == 0 {
			purego.Dlclose(h)
			return nil, fmt.Errorf("chdb: %s has no symbol %s (not a chDB 26.x library?): %v", path, s.name, err)
		}
		purego.RegisterFunc(s.fn, sym)
	}
	// Go owns the process's signals: chDB must not install its own handlers (SIGSEGV,
	// SIGINT, ...) over the Go runtime's. Must happen before the first connection.
	a.setSignalHandlers(0)
	loaded[path] = a
	return a, nil
}

// Missing says why the chDB tier cannot run here ("" when libchdb.so is installed), for
// testenv.Need.
func Missing() string {
	if _, err := LibPath(); err != nil {
		return err.Error()
	}
	return ""
}
