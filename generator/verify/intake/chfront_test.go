package intake_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/clickgen/clickgen/internal/tier/chdb"
)

// chFront is this test tier's HTTP front over the chDB engine: the part of ClickHouse's HTTP
// interface that `clickgen verify --clickhouse` speaks (a query POSTed as the body, or GET
// ?query=; HTTP basic auth or the X-ClickHouse-User/Key headers; the answer in the query's
// FORMAT; an error as ClickHouse's exception text with X-ClickHouse-Exception-Code, status 404
// for unknown tables and columns, 401 for credentials, 500 otherwise). The engine behind it is
// the real ClickHouse 26.7 (chDB); the front is ours, written for these tests. Unlike a real
// server it answers only once the query has run whole, so it never fails mid-stream.
type chFront struct {
	s              *chdb.Session
	user, password string
	queries        atomic.Int64
}

// startFront serves s over HTTP for the test, for user with password.
func startFront(t *testing.T, s *chdb.Session, user, password string) (*httptest.Server, *chFront) {
	t.Helper()
	f := &chFront{s: s, user: user, password: password}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv, f
}

// formatRE is a query's trailing FORMAT clause.
var formatRE = regexp.MustCompile(`(?is)\s+FORMAT\s+([A-Za-z0-9]+)\s*;?\s*$`)

// codeRE is the code of a ClickHouse exception text.
var codeRE = regexp.MustCompile(`Code: (\d+)\.`)

func (f *chFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	user, pass, ok := r.BasicAuth()
	if !ok {
		user, pass = r.Header.Get("X-ClickHouse-User"), r.Header.Get("X-ClickHouse-Key")
	}
	if user == "" {
		user = "default"
	}
	if user != f.user || pass != f.password {
		w.Header().Set("X-ClickHouse-Exception-Code", "516")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "Code: 516. DB::Exception: "+user+": Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)\n")
		return
	}
	sql := r.URL.Query().Get("query")
	if r.Method == http.MethodPost {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		sql += string(b)
	}
	format := "TabSeparated"
	if m := formatRE.FindStringSubmatchIndex(sql); m != nil {
		format = sql[m[2]:m[3]]
		sql = sql[:m[0]]
	}
	f.queries.Add(1)
	out, err := f.s.Query(sql, format)
	if err != nil {
		msg := err.Error()
		var qe *chdb.QueryError
		if errors.As(err, &qe) {
			msg = qe.Msg
		}
		status := http.StatusInternalServerError
		if m := codeRE.FindStringSubmatch(msg); m != nil {
			w.Header().Set("X-ClickHouse-Exception-Code", m[1])
			switch m[1] {
			case "60", "81", "16", "47":
				status = http.StatusNotFound
			}
		}
		w.WriteHeader(status)
		io.WriteString(w, msg+"\n")
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	w.Write(out)
}
