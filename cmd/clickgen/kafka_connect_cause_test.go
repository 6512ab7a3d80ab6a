package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBrokerAddressWithSecretRefused is issue 35's S4 and P11 on the command line: a broker
// address holding user information (`--brokers 'alice:PW@host:9092'`,
// `KAFKA_BOOTSTRAP_SERVERS='sasl://alice:PW@…'`) retried DNS for the whole connect timeout,
// exit 1, the password printed twice; a scheme, a bare IPv6 address, a space or a host of
// 100 000 characters waited the same and printed the host in full, twice. Each is exit 2 at
// once, the secret masked, a long host cut.
func TestBrokerAddressWithSecretRefused(t *testing.T) {
	const pw = "PW-never-printed"
	long := strings.Repeat("h", 100000) + ":9092"
	for _, tc := range []struct {
		env, flag string
	}{
		{flag: "alice:" + pw + "@127.0.0.1:9092"},
		{env: "sasl://alice:" + pw + "@127.0.0.1:9092"},
		{flag: "k:9092,alice:" + pw + ",x@127.0.0.1:9092"},
		{flag: "http://127.0.0.1:9092"},
		{flag: "::1:9092"},
		{flag: "a b:1"},
		{flag: long},
		{env: long},
	} {
		t.Setenv(sinkBrokersEnv, tc.env)
		args := []string{"verify", "--day", "0", "--report", filepath.Join(t.TempDir(), "r.json")}
		if tc.flag != "" {
			args = append(args, "--brokers", tc.flag)
		}
		out, errs, code := clickgen(t, args...)
		if code != 2 || strings.Contains(out+errs, pw) || len(errs) > 2000 || !strings.Contains(errs, "broker ") {
			t.Errorf("--brokers %.60q / env %.60q: exit %d, %d bytes on stderr: %.600s; want exit 2, masked and cut", tc.flag, tc.env, code, len(errs), errs)
		}
		if _, err := os.Stat(args[4]); err == nil {
			t.Errorf("a usage error wrote a report")
		}
	}
}

// TestPlainWithoutTLSWarned is issue 35's S6: nothing warned before a SASL PLAIN password went
// in clear text. One warning line says so before the first connection; SCRAM (a proof, not
// the password) and PLAIN over TLS get none.
func TestPlainWithoutTLSWarned(t *testing.T) {
	t.Setenv(sinkPasswordEnv, "pw-not-shown")
	const warning = "warning: SASL PLAIN without TLS sends the password in env CLICKGEN_SASL_PASSWORD"
	down := closedPort(t)
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"verify", "--day", "0", "--sasl-mechanism", "PLAIN"}, 1},
		{[]string{"batch", "--day", "0", "--topic", "hits", "--sasl-mechanism", "PLAIN"}, 1},
		{[]string{"verify", "--day", "0", "--sasl-mechanism", "SCRAM-SHA-256"}, 0},
		{[]string{"verify", "--day", "0", "--sasl-mechanism", "PLAIN", "--tls"}, 0},
	} {
		_, errs, _ := clickgen(t, append(tc.args, "--brokers", down, "--sasl-user", "alice", "--connect-timeout", "300ms")...)
		if n := strings.Count(errs, warning); n != tc.want || strings.Contains(errs, "pw-not-shown") {
			t.Errorf("%q: %d warnings, want %d:\n%s", tc.args, n, tc.want, errs)
		}
	}
}

// TestTLSToPlainListenerHinted is issue 35's S2 on the command line: TLS spoken to a listener
// without TLS (kfake's) is told as such, with the flags to change, not as a broker that could
// not be reached or refused credentials.
func TestTLSToPlainListenerHinted(t *testing.T) {
	_, addr := kfakeCluster(t)
	t.Setenv(sinkPasswordEnv, "pw")
	_, errs, code := clickgen(t, "verify", "--day", "0", "--brokers", addr, "--tls", "--sasl-mechanism", "SCRAM-SHA-256", "--sasl-user", "alice",
		"--connect-timeout", "2s")
	if code != 1 || !strings.Contains(errs, "speaks Kafka without TLS") || !strings.Contains(errs, "drop --tls") ||
		strings.Contains(errs, "refused the SASL credentials") {
		t.Errorf("exit %d; want 1, the mismatch named with its flags:\n%s", code, errs)
	}
}
