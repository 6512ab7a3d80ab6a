package main

import (
	"bytes"
	"context"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// chPassword must never show in verify's output.
const chPassword = "s3cret-ch-pw-never-shown"

// TestVerifyClickHouseIgnoresKafkaEnv: KAFKA_BOOTSTRAP_SERVERS, which the stand sets for its
// Kafka verbs, is not a mistake with --clickhouse (it was refused as "--brokers is for reading
// Kafka", a flag nobody wrote): verify goes on to read the store, here one that is not there
// (exit 1, naming the server), while --brokers written out is still refused (exit 2).
func TestVerifyClickHouseIgnoresKafkaEnv(t *testing.T) {
	t.Setenv("KAFKA_BOOTSTRAP_SERVERS", "kafka:9092")
	_, errs, code := clickgen(t, "verify", "--day", "0", "--clickhouse", "http://127.0.0.1:1", "--timeout", "2s")
	if code != 1 || strings.Contains(errs, "is for reading Kafka") || !strings.Contains(errs, "127.0.0.1:1") {
		t.Errorf("verify --clickhouse with env KAFKA_BOOTSTRAP_SERVERS: exit %d, stderr %q; want exit 1 reading the store", code, errs)
	}
	_, errs, code = clickgen(t, "verify", "--day", "0", "--clickhouse", "http://127.0.0.1:1", "--brokers", "k:9")
	if code != 2 || !strings.Contains(errs, "--brokers is for reading Kafka") {
		t.Errorf("verify --clickhouse --brokers: exit %d, stderr %q; want exit 2", code, errs)
	}
}

// TestVerifyClickHouseUsage: mistakes with --clickhouse are usage errors (exit 2) before
// anything is read, naming the flag, and never repeating a password.
func TestVerifyClickHouseUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--brokers", "127.0.0.1:9092"}, "--brokers is for reading Kafka"},
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--hits-topic", "h"}, "--hits-topic is for reading Kafka"},
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--hits-partitions", "3"}, "--hits-partitions is for reading Kafka"},
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--sasl-user", "u"}, "--sasl-user is for reading Kafka"},
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--tls-cert", "c.pem"}, "--tls-cert is for reading Kafka"},
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--follow-group", "g"}, "--follow-group does not apply to verify"},
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--topic", "hits"}, "--topic does not apply to verify"},
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--brokers", "k:9"}, "--brokers is for reading Kafka"},
		{[]string{"--brokers", "127.0.0.1:9092", "--events-table", "ods.x"}, "--events-table applies only with --clickhouse"},
		{[]string{"--brokers", "127.0.0.1:9092", "--exactly-once"}, "--exactly-once applies only with --clickhouse"},
		{[]string{"--brokers", "127.0.0.1:9092", "--wait", "1m"}, "--wait applies only with --clickhouse"},
		{[]string{"--clickhouse", "127.0.0.1:8123"}, "has no scheme; write http://127.0.0.1:8123"},
		{[]string{"--clickhouse", "http://reader:" + chPassword + "@127.0.0.1:8123"}, "carries a password; give it through the environment"},
		{[]string{"--clickhouse", "ftp://127.0.0.1:8123"}, `scheme "ftp"`},
		{[]string{"--clickhouse", "http://"}, "has no host"},
		{[]string{"--clickhouse", ""}, "empty"},
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--events-table", "ods.event;DROP"}, "is not a plain identifier"},
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--events-table", "a.b.c"}, "want database.table"},
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--wait", "-5s"}, "--wait -5s: want a duration ≥ 0"},
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--timeout", "0s"}, "--timeout must be positive"},
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--tls-ca", "/nonexistent/ca.pem"}, "--tls-ca"},
		{[]string{"--clickhouse", "https://127.0.0.1:1", "--tls-ca", "/dev/null"}, "holds no PEM certificate"},
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--events-table=", "--errors-table=", "--raw-table=", "--orders-table=",
			"--order-errors-table=", "--marts-view="}, "every table is skipped"},
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--days", "0"}, "--days"},
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--day", "-1"}, "--day"},
		{[]string{"--clickhouse", "http://127.0.0.1:1", "--garbage", "-1"}, "--garbage -1: want a number"},
	} {
		args := append([]string{"verify", "--day", "0"}, tc.args...)
		out, errs, code := clickgen(t, args...)
		if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("verify %q: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, errs, tc.want)
		}
		if strings.Contains(errs, chPassword) {
			t.Errorf("verify %q shows the password: %s", tc.args, errs)
		}
	}
}

// TestVerifyClickHouseHelp: --help explains the ClickHouse mode, where the password comes
// from, and the exit codes.
func TestVerifyClickHouseHelp(t *testing.T) {
	out, _, code := clickgen(t, "verify", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--clickhouse URL", "CLICKHOUSE_PASSWORD", "--events-table", "--errors-table", "--raw-table",
		"--orders-table", "--order-errors-table", "--marts-view", "--exactly-once", "--wait", "--clickhouse-user",
		"ods.event_dist", "dm.purchase_vs_orders_v", "FINAL", "expired", "never says OK", "2 for usage errors"} {
		if !strings.Contains(out, want) {
			t.Errorf("verify --help lacks %q", want)
		}
	}
}

// refusingServer answers every query as ClickHouse 26 answers a wrong password.
func refusingServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, _, _ := r.BasicAuth()
		w.Header().Set("X-ClickHouse-Exception-Code", "516")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "Code: 516. DB::Exception: "+user+": Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestVerifyClickHouseWrongPassword: a refused password is exit 1 with a clear message saying
// where the password comes from; the password shows nowhere, and no table is printed.
func TestVerifyClickHouseWrongPassword(t *testing.T) {
	srv := refusingServer(t)
	t.Setenv(clickhousePasswordEnv, chPassword)
	out, errs, code := clickgen(t, "verify", "--day", "0", "--clickhouse", srv.URL, "--clickhouse-user", "verifier")
	if code != 1 || out != "" || !strings.Contains(errs, "refused the credentials") || !strings.Contains(errs, "AUTHENTICATION_FAILED") ||
		!strings.Contains(errs, clickhousePasswordEnv) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 1, nothing on stdout, the refusal explained", code, out, errs)
	}
	if strings.Contains(out+errs, chPassword) {
		t.Errorf("the password shows: %s", errs)
	}
	t.Log(strings.TrimSpace(errs))
}

// silentServer accepts connections and never answers; it signals each accepted one.
func silentServer(t *testing.T) (string, <-chan struct{}) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan struct{}, 16)
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			select {
			case accepted <- struct{}{}:
			default:
			}
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String(), accepted
}

// TestVerifyClickHouseSilentServer: a server that accepts and never answers is exit 1 within
// --timeout, naming the flag, not a hang.
func TestVerifyClickHouseSilentServer(t *testing.T) {
	url, _ := silentServer(t)
	start := time.Now()
	out, errs, code := clickgen(t, "verify", "--day", "0", "--clickhouse", url, "--timeout", "300ms")
	if code != 1 || out != "" || !strings.Contains(errs, "no answer within 300ms") || !strings.Contains(errs, "(--timeout)") {
		t.Fatalf("exit %d, stderr %q; want 1 with the timeout named", code, errs)
	}
	t.Logf("after %v: %s", time.Since(start).Round(time.Millisecond), strings.TrimSpace(errs))
}

// TestVerifyClickHouseInterrupt: the first Ctrl-C (the context's cancellation) ends a read
// that waits on the server at once: exit 130, no table.
func TestVerifyClickHouseInterrupt(t *testing.T) {
	url, accepted := silentServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	var out, errb bytes.Buffer
	go func() {
		err := run(ctx, []string{"verify", "--day", "0", "--clickhouse", url, "--timeout", "10m"}, &out, &errb)
		done <- exitCode(err, &errb)
	}()
	select {
	case <-accepted: // verify is waiting on the server
	case <-time.After(time.Minute):
		t.Fatal("verify never connected")
	}
	cancel()
	select {
	case code := <-done:
		if code != 130 || out.Len() != 0 {
			t.Fatalf("exit %d, stdout %q; want 130 and nothing", code, out.String())
		}
	case <-time.After(time.Minute): // the test's bound; the read ends at once
		t.Fatal("verify did not end after the context was cancelled")
	}
}

// TestVerifyClickHouseTLSCA: --tls-ca FILE is the CA an https server is verified with: with
// it the exchange reaches the server (here refusing the credentials); without it the
// certificate is refused.
func TestVerifyClickHouseTLSCA(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-ClickHouse-Exception-Code", "516")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "Code: 516. DB::Exception: default: Authentication failed. (AUTHENTICATION_FAILED)\n")
	}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs, code := clickgen(t, "verify", "--day", "0", "--clickhouse", srv.URL, "--tls-ca", ca)
	if code != 1 || !strings.Contains(errs, "refused the credentials") {
		t.Errorf("with --tls-ca: exit %d, %s; want the server reached (refusing the credentials)", code, errs)
	}
	_, errs, code = clickgen(t, "verify", "--day", "0", "--clickhouse", srv.URL)
	if code != 1 || !strings.Contains(errs, "certificate signed by unknown authority") {
		t.Errorf("without --tls-ca: exit %d, %s; want the certificate refused", code, errs)
	}
}
