package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestURLSecretsRefused is issue 35's finding: `--clickhouse
// 'http://host:8123/?user=u&password=p'` was accepted, and the password went to stdout,
// stderr, the report and a 401 message. A secret anywhere in the URL — user information, the
// `password` parameter ClickHouse reads, a parameter a proxy or another server reads as one —
// is refused, and the refusal never shows it.
func TestURLSecretsRefused(t *testing.T) {
	const pw = "Sup3r-s3cret"
	for _, raw := range []string{
		"http://127.0.0.1:8123/?user=u&password=" + pw,
		"http://127.0.0.1:8123/?password=" + pw,
		"http://127.0.0.1:8123/?PASSWORD=" + pw,
		"http://127.0.0.1:8123/?database=ods&Password=" + pw,
		"http://127.0.0.1:8123/?access_token=" + pw,
		"http://127.0.0.1:8123/?jwt=" + pw,
		"http://127.0.0.1:8123/?client_secret=" + pw,
		"http://u:" + pw + "@127.0.0.1:8123/",
		"http://u:" + pw + "@127.0.0.1:8123/?password=" + pw,
		"http://u:@127.0.0.1:8123/",
		"http://127.0.0.1:8123/?password=" + pw + "#frag",
		"http://127.0.0.1:8123/%zz?password=" + pw,
		"127.0.0.1:8123/?password=" + pw,
		"ftp://127.0.0.1:8123/?password=" + pw,
		"http://127.0.0.1:8123/?pass%zzword=" + pw,
	} {
		_, err := New(raw)
		if err == nil || !errors.Is(err, ErrURL) {
			t.Errorf("New(%q) = %v; want refused (ErrURL)", raw, err)
			continue
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("New(%q): the refusal shows the secret: %v", raw, err)
		}
	}
}

// TestURLUserParameter: a user named by the `user` parameter is the user the client sends
// (as basic auth, with the parameter taken out of the URL) and says it uses: the header said
// "(the default user)" of a URL naming another. A user named twice differently, an empty
// user, and one holding a colon ("a:b" became user "a" with password "b") are refused.
func TestURLUserParameter(t *testing.T) {
	var gotUser, gotQuery string
	var gotAuth bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotUser, _, gotAuth = r.BasicAuth()
		gotQuery = r.URL.RawQuery
		io.WriteString(w, "\x06"+"18.16.")
	}))
	defer srv.Close()
	c, err := New(srv.URL + "/?database=ods&user=analyst")
	if err != nil {
		t.Fatal(err)
	}
	if c.UserName() != "analyst" {
		t.Errorf("UserName() = %q, want analyst", c.UserName())
	}
	if strings.Contains(c.Endpoint(), "user") || !strings.Contains(c.Endpoint(), "database=ods") {
		t.Errorf("Endpoint() = %q; want the database kept and the user out", c.Endpoint())
	}
	if _, err := c.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !gotAuth || gotUser != "analyst" || strings.Contains(gotQuery, "user=") {
		t.Errorf("the server saw basic auth %v user %q and parameters %q; want user analyst as basic auth only", gotAuth, gotUser, gotQuery)
	}
	if c, err := New(srv.URL+"/?user=analyst", User("other")); err != nil || c.UserName() != "other" {
		t.Errorf("User overriding the URL's user parameter: %v, %v", c, err)
	}

	for _, tc := range []struct {
		url  string
		opts []Opt
		kind error
		want string
	}{
		{url: "http://a@127.0.0.1:8123/?user=b", kind: ErrURL, want: "two users"},
		{url: "http://127.0.0.1:8123/?user=a&user=b", kind: ErrURL, want: "2 times"},
		{url: "http://127.0.0.1:8123/?user=", kind: ErrURL, want: "empty user"},
		{url: "http://@127.0.0.1:8123/", kind: ErrURL, want: "empty user"},
		{url: "http://127.0.0.1:8123/?user=a:b", kind: ErrURL, want: "':'"},
		{url: "http://127.0.0.1:8123/", opts: []Opt{User("")}, kind: ErrUser, want: "empty user"},
		{url: "http://127.0.0.1:8123/", opts: []Opt{User("a:b")}, kind: ErrUser, want: "':'"},
		{url: "http://127.0.0.1:8123/", opts: []Opt{User("a\nb")}, kind: ErrUser, want: "control"},
		{url: "http://127.0.0.1:8123/\x1b]0;title\a", kind: ErrURL, want: "control"},
	} {
		_, err := New(tc.url, tc.opts...)
		if err == nil || !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q) = %v; want %v saying %q", tc.url, err, tc.kind, tc.want)
		}
	}
}

// TestServerErrorMasksPassword: a server (or a proxy) whose error repeats the password sent
// does not get it printed: the client masks its own password in what it reports.
func TestServerErrorMasksPassword(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, "Code: 193, e.displayText() = DB::Exception: Wrong password %q for user %s, e.what() = DB::Exception", p, u)
	}))
	defer srv.Close()
	_, err := newTestClient(t, srv.URL).Ping(context.Background())
	if err == nil || !errors.Is(err, ErrAuth) || strings.Contains(err.Error(), testPassword) {
		t.Fatalf("Ping = %v; want ErrAuth without the password", err)
	}
	t.Log(err)
}
