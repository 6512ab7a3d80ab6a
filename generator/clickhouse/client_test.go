package clickhouse

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// testPassword must never show in an error.
const testPassword = "pa55-w0rd-never-shown"

// rowBinary appends rows of (UInt64, Date, String) in RowBinary.
func rowBinary(dst []byte, id uint64, date uint16, s string) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, id)
	dst = binary.LittleEndian.AppendUint16(dst, date)
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// fakeServer answers every query with handler, after checking the credentials: user
// "verifier" with testPassword, else ClickHouse 26's 401.
func fakeServer(t *testing.T, handler func(w http.ResponseWriter, sql string)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok || user != "verifier" || pass != testPassword {
			w.Header().Set("X-ClickHouse-Exception-Code", "516")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, "Code: 516. DB::Exception: %s: Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED) (version 26.7.3.1 (official build))\n", user)
			return
		}
		b, _ := io.ReadAll(r.Body)
		handler(w, string(b))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func newTestClient(t *testing.T, url string, opts ...Opt) *Client {
	t.Helper()
	c, err := New(url, append([]Opt{User("verifier"), Password(testPassword)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestURLs: what New accepts and refuses, and that a refusal never repeats a password.
func TestURLs(t *testing.T) {
	for _, tc := range []struct {
		url, want string // want: "" accepted, else a substring of the error
		endpoint  string
		user      string
	}{
		{url: "http://127.0.0.1:8123", endpoint: "http://127.0.0.1:8123/"},
		{url: "https://ch.example:8443/", endpoint: "https://ch.example:8443/"},
		{url: "http://reader@127.0.0.1:8123", endpoint: "http://127.0.0.1:8123/", user: "reader"},
		{url: "http://127.0.0.1:8123/proxy/clickhouse?database=ods", endpoint: "http://127.0.0.1:8123/proxy/clickhouse?database=ods"},
		{url: "127.0.0.1:8123", want: "has no scheme; write http://127.0.0.1:8123"},
		{url: "localhost:8123", want: "has no scheme"},
		{url: "", want: "empty"},
		{url: "ftp://127.0.0.1:8123", want: `scheme "ftp"`},
		{url: "http://", want: "has no host"},
		{url: "http://:8123", want: "has no host"},
		{url: "http://127.0.0.1:8123/#frag", want: "fragment"},
		{url: "http://127.0.0.1:99999", want: `port "99999"`},
		{url: "http://reader:" + testPassword + "@127.0.0.1:8123", want: "carries a password"},
		{url: "reader:" + testPassword + "@127.0.0.1:8123", want: "has no scheme"},
		{url: "http://reader:" + testPassword + "@127.0.0.1:8123/%zz", want: "does not parse"},
	} {
		c, err := New(tc.url)
		if tc.want == "" {
			if err != nil {
				t.Errorf("New(%q) = %v, want accepted", tc.url, err)
				continue
			}
			if c.Endpoint() != tc.endpoint || c.UserName() != tc.user {
				t.Errorf("New(%q): endpoint %q user %q, want %q %q", tc.url, c.Endpoint(), c.UserName(), tc.endpoint, tc.user)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrURL) {
			t.Errorf("New(%q) = %v, want ErrURL saying %q", tc.url, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), testPassword) {
			t.Errorf("New(%q): the error shows the password: %v", tc.url, err)
		}
	}
	if _, err := New("http://127.0.0.1:8123", RootCAs([]byte("-----BEGIN CERTIFICATE-----"))); err == nil {
		t.Error("a CA for an http URL was accepted")
	}
	if _, err := New("https://127.0.0.1:8443", RootCAs([]byte("not pem"))); err == nil {
		t.Error("a CA without a certificate was accepted")
	}
	if _, err := New("http://127.0.0.1:8123", IdleTimeout(0)); err == nil {
		t.Error("a zero timeout was accepted")
	}
}

// TestQueryRows: a query goes as a POST with basic auth and FORMAT RowBinary, and its rows
// come back column by column, a string longer than the read buffer included.
func TestQueryRows(t *testing.T) {
	long := strings.Repeat("x", 600<<10)
	var gotSQL string
	srv := fakeServer(t, func(w http.ResponseWriter, sql string) {
		gotSQL = sql
		var b []byte
		b = rowBinary(b, 1, 20605, "a")
		b = rowBinary(b, 1<<63+5, 0, long)
		b = rowBinary(b, 42, 65535, "")
		w.Write(b)
	})
	c := newTestClient(t, srv.URL+"/?database=ods")
	rows, err := c.Query(context.Background(), "SELECT WatchID, EventDate, x FROM t;")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if want := "SELECT WatchID, EventDate, x FROM t\nFORMAT RowBinary"; gotSQL != want {
		t.Errorf("sent %q, want %q", gotSQL, want)
	}
	type row struct {
		id   uint64
		date uint16
		s    string
	}
	var got []row
	for {
		more, err := rows.More()
		if err != nil {
			t.Fatal(err)
		}
		if !more {
			break
		}
		var r row
		var s []byte
		if r.id, err = rows.UInt64(); err == nil {
			if r.date, err = rows.UInt16(); err == nil {
				s, err = rows.String(nil)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		r.s = string(s)
		got = append(got, r)
	}
	if err := rows.End(); err != nil {
		t.Fatal(err)
	}
	want := []row{{1, 20605, "a"}, {1<<63 + 5, 0, long}, {42, 65535, ""}}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d = %v…, want %v…", i, got[i].id, want[i].id)
		}
	}
}

// TestServerErrors: error bodies of 18.16 and of 26.x become typed errors with their code and
// a short message; a huge body is read only as far as the bound; the password shows nowhere.
func TestServerErrors(t *testing.T) {
	huge := "Code: 60. DB::Exception: Table ods.x does not exist. " + strings.Repeat("detail ", 2<<20)
	for _, tc := range []struct {
		name   string
		status int
		header string
		body   string
		is     error
		code   int
		msg    string
	}{
		{"18.16 unknown database", 404, "", "Code: 81, e.displayText() = DB::Exception: Database nosuch doesn't exist, e.what() = DB::Exception\n",
			ErrUnknownTable, 81, "Database nosuch doesn't exist"},
		{"26 unknown table", 404, "60", "Code: 60. DB::Exception: Unknown table expression identifier 'ods.event_dist' in scope SELECT WatchID FROM ods.event_dist. (UNKNOWN_TABLE) (version 26.7.3.1 (official build))\n",
			ErrUnknownTable, 60, "Unknown table expression identifier 'ods.event_dist' in scope SELECT WatchID FROM ods.event_dist. (UNKNOWN_TABLE)"},
		{"18.16 unknown column", 404, "", "Code: 47, e.displayText() = DB::Exception: Unknown identifier: WatchID, e.what() = DB::Exception",
			ErrUnknownColumn, 47, "Unknown identifier: WatchID"},
		{"18.16 wrong password", 401, "", "Code: 193, e.displayText() = DB::Exception: Wrong password for user verifier, e.what() = DB::Exception",
			ErrAuth, 193, "Wrong password for user verifier"},
		{"18.16 no replica of a shard", 500, "", "Code: 279, e.displayText() = DB::NetException: All connection tries failed. Log: \n\nCode: 32, e.displayText() = DB::Exception: Attempt to read after eof, e.what() = DB::Exception\n" +
			"Code: 210, e.displayText() = DB::NetException: Connection refused (127.0.0.1:27405), e.what() = DB::NetException\n\n, e.what() = DB::NetException\n",
			nil, 279, "All connection tries failed. Log: Code: 32, e.displayText() = DB::Exception: Attempt to read after eof, e.what() = DB::Exception Code: 210, e.displayText() = DB::NetException: Connection refused (127.0.0.1:27405), e.what() = DB::NetException"},
		{"a proxy's 401", 401, "", "<html>Unauthorized</html>", ErrAuth, 0, "<html>Unauthorized</html>"},
		{"a proxy's 502", 502, "", "bad gateway", nil, 0, "bad gateway"},
		{"huge", 500, "", huge, ErrUnknownTable, 60, "Table ods.x does not exist. detail detail"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeServer(t, func(w http.ResponseWriter, _ string) {
				if tc.header != "" {
					w.Header().Set("X-ClickHouse-Exception-Code", tc.header)
				}
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			})
			_, err := newTestClient(t, srv.URL).Query(context.Background(), "SELECT 1")
			var se *ServerError
			if !errors.As(err, &se) {
				t.Fatalf("Query = %v, want a *ServerError", err)
			}
			if se.Code != tc.code || se.Status != tc.status || !strings.HasPrefix(se.Message, tc.msg) {
				t.Errorf("ServerError = code %d status %d %q, want %d %d %q…", se.Code, se.Status, se.Message, tc.code, tc.status, tc.msg)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tc.is)
			}
			for _, other := range []error{ErrUnknownTable, ErrUnknownColumn, ErrAuth} {
				if other != tc.is && errors.Is(err, other) {
					t.Errorf("errors.Is(%v, %v) = true", err, other)
				}
			}
			if len(se.Message) > maxMessage+len("…") || strings.Contains(se.Error(), testPassword) {
				t.Errorf("message of %d bytes (bound %d), or showing the password: %.200s", len(se.Message), maxMessage, se.Error())
			}
		})
	}
}

// TestWrongPassword: the server's refusal is ErrAuth, and neither the error nor anything it
// wraps shows the password.
func TestWrongPassword(t *testing.T) {
	srv := fakeServer(t, func(w http.ResponseWriter, _ string) { t.Error("a query ran with a wrong password") })
	c, err := New(srv.URL, User("verifier"), Password("wrong-"+testPassword))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Ping(context.Background())
	if !errors.Is(err, ErrAuth) {
		t.Fatalf("Ping = %v, want ErrAuth", err)
	}
	if strings.Contains(fmt.Sprintf("%v %+v %#v", err, err, err), testPassword) {
		t.Errorf("the error shows the password: %v", err)
	}
}

// TestMidStreamException: a server that fails after its 200 appends the exception to the
// rows (18.16 does, measured); reading it is the server's error, whether it cuts a row or
// happens to fill whole rows.
func TestMidStreamException(t *testing.T) {
	exc := "Code: 395, e.displayText() = DB::Exception: Value passed to 'throwIf' function is non zero, e.what() = DB::Exception\n"
	for pad := range 8 {
		body := binary.LittleEndian.AppendUint64(nil, 7)
		body = append(body, exc...)
		body = append(body, bytes.Repeat([]byte{'\n'}, pad)...)
		srv := fakeServer(t, func(w http.ResponseWriter, _ string) { w.Write(body) })
		rows, err := newTestClient(t, srv.URL).Query(context.Background(), "SELECT x")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for err == nil {
			var more bool
			if more, err = rows.More(); err != nil || !more {
				break
			}
			if _, err = rows.UInt64(); err == nil {
				n++
			}
		}
		if err == nil {
			err = rows.End()
		}
		rows.Close()
		var se *ServerError
		if !errors.As(err, &se) || !se.MidStream || se.Code != 395 {
			t.Errorf("pad %d: after %d rows: %v, want the mid-stream exception 395", pad, n, err)
		}
	}
}

// TestSilentServers: a server that accepts and never answers, and one that sends half an
// answer and stops, are timeouts within their bounds, not hangs.
func TestSilentServers(t *testing.T) {
	t.Run("never answers", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			var conns []net.Conn // held open, never written
			defer func() {
				for _, c := range conns {
					c.Close()
				}
			}()
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				conns = append(conns, c)
			}
		}()
		defer func() {
			ln.Close()
			<-done
		}()
		c := newTestClient(t, "http://"+ln.Addr().String(), FirstByteTimeout(300*time.Millisecond))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // the test's own bound
		defer cancel()
		_, err = c.Query(ctx, "SELECT 1")
		var te *TimeoutError
		if !errors.As(err, &te) || te.Phase != PhaseFirstByte {
			t.Fatalf("Query = %v, want a first-byte TimeoutError", err)
		}
		t.Log(err)
	})
	t.Run("stops halfway", func(t *testing.T) {
		release := make(chan struct{})
		srv := fakeServer(t, func(w http.ResponseWriter, _ string) {
			w.Write(rowBinary(nil, 1, 2, "three"))
			w.Write([]byte{9, 9, 9}) // half a row
			w.(http.Flusher).Flush()
			<-release
		})
		defer close(release)
		c := newTestClient(t, srv.URL, IdleTimeout(300*time.Millisecond))
		rows, err := c.Query(context.Background(), "SELECT 1")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		if _, err := rows.UInt64(); err != nil {
			t.Fatal(err)
		}
		rows.UInt16()
		rows.String(nil)
		_, err = rows.UInt64()
		var te *TimeoutError
		if !errors.As(err, &te) || te.Phase != PhaseIdle {
			t.Fatalf("reading the half row = %v, want an idle TimeoutError", err)
		}
		t.Log(err)
	})
	t.Run("closes halfway", func(t *testing.T) {
		srv := fakeServer(t, func(w http.ResponseWriter, _ string) {
			w.Write(rowBinary(nil, 1, 2, "three"))
			w.Write([]byte{9, 9, 9})
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // the connection is cut without the last chunk
		})
		rows, err := newTestClient(t, srv.URL).Query(context.Background(), "SELECT 1")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var n int
		for err == nil {
			var more bool
			if more, err = rows.More(); !more || err != nil {
				break
			}
			if _, err = rows.UInt64(); err == nil {
				_, err = rows.UInt16()
				if err == nil {
					_, err = rows.String(nil)
				}
				if err == nil {
					n++
				}
			}
		}
		if err == nil || n != 1 {
			t.Fatalf("after %d rows: %v; want 1 row, then an error", n, err)
		}
		t.Log(err)
	})
}

// TestCancel: cancelling the context ends a read that is waiting for the server at once, with
// the context's error.
func TestCancel(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	srv := fakeServer(t, func(w http.ResponseWriter, _ string) {
		w.Write(rowBinary(nil, 1, 2, "x"))
		w.(http.Flusher).Flush()
		close(started)
		<-release
	})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rows, err := newTestClient(t, srv.URL).Query(ctx, "SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	<-started
	done := make(chan error, 1)
	go func() {
		var err error
		for err == nil {
			_, err = rows.UInt64()
		}
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("read after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute): // the test's bound; the read ends at once
		t.Fatal("the read did not end after cancel")
	}
}

// TestUnreachable: a port nobody listens on is an error at once, naming the address.
func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = newTestClient(t, "http://"+addr).Ping(context.Background())
	if err == nil || !strings.Contains(err.Error(), addr) {
		t.Fatalf("Ping of a closed port = %v, want an error naming %s", err, addr)
	}
	t.Log(err)
}

// TestTLS: an https server is verified with the CA given (RootCAs); without it, the
// handshake fails with the certificate's error, and no query is answered.
func TestTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		if user != "verifier" || pass != testPassword {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write(binary.AppendUvarint(nil, 6))
		io.WriteString(w, "26.7.3")
	}))
	defer srv.Close()
	var ca bytes.Buffer
	if err := pem.Encode(&ca, &pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}); err != nil {
		t.Fatal(err)
	}
	v, err := newTestClient(t, srv.URL, RootCAs(ca.Bytes())).Ping(context.Background())
	if err != nil || v != "26.7.3" {
		t.Fatalf("Ping over https with the CA = %q, %v", v, err)
	}
	_, err = newTestClient(t, srv.URL).Ping(context.Background())
	var ue x509.UnknownAuthorityError
	if !errors.As(err, &ue) || strings.Contains(err.Error(), testPassword) {
		t.Fatalf("Ping over https without the CA = %v; want x509.UnknownAuthorityError", err)
	}
	t.Log(err)
}
