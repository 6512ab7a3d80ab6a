package main

import (
	"encoding/binary"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestVerifyStoreURLSecretsRefused is issue 35's finding: `--clickhouse
// 'http://host:8123/?user=u&password=p'` was accepted, and the password went to stdout,
// stderr, the report and the process's arguments for the whole run. A secret anywhere in the
// URL is exit 2 at once without echoing it, and no report is written; a user name basic auth
// cannot carry (an empty `--clickhouse-user` was sent as an empty user, `a:b` became user a with
// password b) is exit 2 naming the flag, without repeating the name.
func TestVerifyStoreURLSecretsRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--clickhouse", "http://127.0.0.1:1/?user=u&password=" + chPassword}, `--clickhouse: http://127.0.0.1:1/?user=u&password=xxxxx carries a secret in its parameter "password"`},
		{[]string{"--clickhouse", "http://127.0.0.1:1/?Password=" + chPassword}, "carries a secret"},
		{[]string{"--clickhouse", "http://127.0.0.1:1/?access_token=" + chPassword}, "carries a secret"},
		{[]string{"--clickhouse", "http://u:" + chPassword + "@127.0.0.1:1/"}, "carries a password"},
		{[]string{"--clickhouse", "http://127.0.0.1:1/", "--clickhouse-user", ""}, "--clickhouse-user: an empty user name"},
		{[]string{"--clickhouse", "http://127.0.0.1:1/", "--clickhouse-user", "u:" + chPassword}, "--clickhouse-user: a user name holding ':'"},
		{[]string{"--clickhouse", "http://127.0.0.1:1/?user=a&user=b"}, "names the user parameter 2 times"},
	} {
		report := filepath.Join(t.TempDir(), "verify.json")
		args := append([]string{"verify", "--day", "0", "--report", report}, tc.args...)
		out, errs, code := clickgen(t, args...)
		if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("verify %q: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, errs, tc.want)
		}
		if strings.Contains(out+errs, chPassword) {
			t.Errorf("verify %q shows the secret: %s", tc.args, errs)
		}
		if _, err := os.Stat(report); err == nil {
			t.Errorf("verify %q wrote a report", tc.args)
		}
	}
}

// versionServer answers SELECT version() as 18.16.1 does, and every other query as a table
// that does not exist; it records the basic-auth users it saw.
func versionServer(t *testing.T, tls bool) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var users []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _, _ := r.BasicAuth()
		mu.Lock()
		users = append(users, u)
		mu.Unlock()
		b, _ := io.ReadAll(r.Body)
		if answerEmptyProbe(w, string(b)) {
			return
		}
		if strings.Contains(string(b), "version()") {
			w.Write(append(binary.AppendUvarint(nil, 7), "18.16.1"...))
			return
		}
		w.Header().Set("X-ClickHouse-Exception-Code", "60")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "Code: 60, e.displayText() = DB::Exception: Table x doesn't exist., e.what() = DB::Exception\n")
	})
	srv := httptest.NewUnstartedServer(h)
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), users...)
	}
}

// TestVerifyStoreHeaderNamesUser is issue 35's finding: with the user in the URL's `user`
// parameter the header said "(the default user)". The user a URL names is the one sent (as
// basic auth) and the one the header names.
func TestVerifyStoreHeaderNamesUser(t *testing.T) {
	srv, users := versionServer(t, false)
	out, errs, _ := clickgen(t, "verify", "--day", "0", "--clickhouse", srv.URL+"/?user=analyst")
	if !strings.Contains(errs, "(user analyst)") || !strings.Contains(out, "(user analyst)") || strings.Contains(out+errs, "default user") {
		t.Errorf("the header does not name user analyst:\nstdout %s\nstderr %s", out, errs)
	}
	for _, u := range users() {
		if u != "analyst" {
			t.Errorf("a query went as user %q, want analyst", u)
		}
	}
}

// TestVerifyStorePlaintextPasswordWarning is issue 35's finding S6: nothing warned before
// CLICKHOUSE_PASSWORD went in clear text over http://. One warning line says so before the
// first query; over https, or without a password, none.
func TestVerifyStorePlaintextPasswordWarning(t *testing.T) {
	const warning = "warning: the password of env CLICKHOUSE_PASSWORD goes to"
	plain, _ := versionServer(t, false)
	t.Setenv(clickhousePasswordEnv, chPassword)
	_, errs, _ := clickgen(t, raceScaled("verify", "--day", "0", "--clickhouse", plain.URL, "--clickhouse-user", "analyst")...)
	if strings.Count(errs, warning) != 1 || !strings.Contains(errs, "in clear text (http://)") ||
		strings.Index(errs, warning) > strings.Index(errs, "ClickHouse 18.16.1") {
		t.Errorf("over http://: want one warning before the header:\n%s", errs)
	}
	if strings.Contains(errs, chPassword) {
		t.Errorf("the password shows:\n%s", errs)
	}

	secure, _ := versionServer(t, true)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: secure.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, _ = clickgen(t, raceScaled("verify", "--day", "0", "--clickhouse", secure.URL, "--clickhouse-user", "analyst", "--tls-ca", ca)...)
	if strings.Contains(errs, "warning") || !strings.Contains(errs, "ClickHouse 18.16.1") {
		t.Errorf("over https: want the server read and no warning:\n%s", errs)
	}
	t.Setenv(clickhousePasswordEnv, "")
	_, errs, _ = clickgen(t, raceScaled("verify", "--day", "0", "--clickhouse", plain.URL)...)
	if strings.Contains(errs, "warning") {
		t.Errorf("without a password: want no warning:\n%s", errs)
	}
}
