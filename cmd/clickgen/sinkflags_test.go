package main

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"path/filepath"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// flagNames are the names verb gives the libraries' fields: its flags.
func flagNames(t *testing.T, verb string) field.Names {
	t.Helper()
	return bind(verbNamed(t, verb), envOf(nil)).names
}

// The sink's parsed values are the flags' values themselves.
var (
	_ pflag.Value = (*sink.Compression)(nil)
	_ pflag.Value = (*sink.Brokers)(nil)
)

// sinkFlagsFrom parses args as batch's flags with env as the environment and checks its
// sink flags as batch does before anything is read: the settings and the flags given
// (binding.checkSink), then the topic (sink.Settings.TopicOf), in the flags' words.
func sinkFlagsFrom(t *testing.T, env map[string]string, args ...string) (*sink.Settings, error) {
	t.Helper()
	b, err := bound(t, "batch", env, append([]string{"--day", "0"}, args...)...)
	if err != nil {
		return nil, err
	}
	if err := b.checkSink(); err != nil {
		return nil, err
	}
	s := &b.v.sink
	_, err = s.TopicOf("hits")
	return s, b.refuse(err)
}

func TestSinkFlagsResolve(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		wantErr string // "" for success
		file    string
		brokers string
		topic   string
	}{
		{name: "file", args: []string{"--file", "-"}, file: "-"},
		{name: "brokers and topic", args: []string{"--brokers", " a:1, b:2 ,", "--topic", "t"}, brokers: "a:1,b:2", topic: "t"},
		{name: "env only", env: map[string]string{sinkBrokersEnv: "k:9", sinkTopicEnv: "hits"}, brokers: "k:9", topic: "hits"},
		{name: "empty env is absent", env: map[string]string{sinkFileEnv: "", sinkBrokersEnv: "k:9", sinkTopicEnv: "hits"}, brokers: "k:9", topic: "hits"},
		{name: "file env beats brokers env", env: map[string]string{sinkFileEnv: "out", sinkBrokersEnv: "k:9"}, file: "out"},
		{name: "--brokers beats file env", env: map[string]string{sinkFileEnv: "out"}, args: []string{"--brokers", "k:9", "--topic", "t"}, brokers: "k:9", topic: "t"},
		{name: "--file beats brokers env", env: map[string]string{sinkBrokersEnv: "k:9"}, args: []string{"--file", "x"}, file: "x"},
		{name: "both flags", args: []string{"--file", "x", "--brokers", "k:9"}, wantErr: "both --file and --brokers given: choose one"},
		{name: "none", wantErr: "no sink: set --file (or '-' for stdout) or --brokers and --topic"},
		{name: "no topic", args: []string{"--brokers", "k:9"}, wantErr: "--brokers need --topic"},
		// Issue 31: an empty --brokers chose no sink silently (run: the embedded broker).
		{name: "empty brokers", args: []string{"--brokers", "", "--topic", "t"}, wantErr: `invalid argument "" for "--brokers" flag: ` + sink.ErrNoBrokers.Error()},
		{name: "empty brokers env", env: map[string]string{sinkBrokersEnv: " , "}, args: []string{"--topic", "t"},
			wantErr: `environment variable KAFKA_BOOTSTRAP_SERVERS=" , ": invalid argument " , " for "--brokers" flag: ` + sink.ErrNoBrokers.Error()},
		// A port no connection can reach failed at run time as "cannot reach Kafka ... within
		// 10s", exit 1, at once: it is a usage error.
		{name: "port out of range", args: []string{"--brokers", "k:9,h:99999", "--topic", "t"},
			wantErr: `invalid argument "k:9,h:99999" for "--brokers" flag: broker "h:99999": port "99999", want 1 to 65535`},
		{name: "port 0 env", env: map[string]string{sinkBrokersEnv: "k:0"}, args: []string{"--topic", "t"},
			wantErr: `environment variable KAFKA_BOOTSTRAP_SERVERS="k:0": invalid argument "k:0" for "--brokers" flag: broker "k:0": port "0", want 1 to 65535`},
		{name: "port not a number", args: []string{"--brokers", "k:x", "--topic", "t"},
			wantErr: `invalid argument "k:x" for "--brokers" flag: broker "k:x": port "x", want 1 to 65535`},
		{name: "no port is Kafka's", args: []string{"--brokers", "kafka,[::1]:9092", "--topic", "t"}, brokers: "kafka,[::1]:9092", topic: "t"},
		{name: "cert without key", args: []string{"--file", "x", "--tls-cert", "c"}, wantErr: "--tls-cert and --tls-key go together"},
		{name: "sasl without user", args: []string{"--brokers", "k:9", "--topic", "t", "--sasl-mechanism", "PLAIN"}, wantErr: "--sasl-mechanism needs --sasl-user"},
		{name: "sasl without password", args: []string{"--brokers", "k:9", "--topic", "t", "--sasl-mechanism", "PLAIN", "--sasl-user", "u"},
			wantErr: "--sasl-mechanism needs the password in env " + sinkPasswordEnv},
		{name: "sasl with password", env: map[string]string{sinkPasswordEnv: "p"}, args: []string{"--brokers", "k:9", "--topic", "t", "--sasl-mechanism", "PLAIN", "--sasl-user", "u"},
			brokers: "k:9", topic: "t"},
		{name: "zero timeout", args: []string{"--file", "x", "--flush-timeout", "0"}, wantErr: "--connect-timeout, --delivery-timeout and --flush-timeout must be positive"},
		{name: "negative linger", args: []string{"--file", "x", "--linger", "-1s"}, wantErr: "--linger -1s: want 0 or more"},
		{name: "replication factor", args: []string{"--brokers", "k:9", "--topic", "t", "--create-topics", "--replication-factor", "3"}, brokers: "k:9", topic: "t"},
		{name: "replication factor 0", args: []string{"--brokers", "k:9", "--topic", "t", "--create-topics", "--replication-factor", "0"},
			wantErr: "--replication-factor 0: want at least 1, or -1 for the brokers' default"},
		{name: "replication factor without create", args: []string{"--brokers", "k:9", "--topic", "t", "--replication-factor", "3"},
			wantErr: "--replication-factor applies to the topics --create-topics creates"},
		{name: "replication factor -1 given without create", args: []string{"--brokers", "k:9", "--topic", "t", "--replication-factor", "-1"},
			wantErr: "--replication-factor applies to the topics --create-topics creates"},
		// TLS is Kafka's: the kinds' table says so once, and the refusal is the table's.
		{name: "TLS with a file", args: []string{"--file", "x", "--tls"}, wantErr: "--tls applies to Kafka (--brokers), not to a file (--file)"},
		// Issue 29, N14: flags of Kafka alone were accepted with a file, and did nothing.
		{name: "create topics with a file", args: []string{"--file", "x", "--create-topics"}, wantErr: "--create-topics applies to Kafka (--brokers), not to a file (--file)"},
		{name: "replication factor with a file", args: []string{"--file", "x", "--create-topics", "--replication-factor", "3"},
			wantErr: "--create-topics applies to Kafka (--brokers), not to a file (--file)"},
		{name: "replication factor alone with a file", args: []string{"--file", "x", "--replication-factor", "3"},
			wantErr: "--replication-factor applies to Kafka (--brokers), not to a file (--file)"},
		{name: "compression with a file env", env: map[string]string{sinkFileEnv: "out"}, args: []string{"--compression", "lz4"},
			wantErr: "--compression applies to Kafka (--brokers), not to a file (--file)"},
		// Issue 38: a file, stdout or a pipe is written at least every --linger, as a Kafka batch is sent.
		{name: "linger with stdout", args: []string{"--file", "-", "--linger", "0s"}, file: "-"},
		{name: "file timeouts and topic", args: []string{"--file", "x", "--topic", "hits", "--connect-timeout", "1s", "--delivery-timeout", "1s", "--flush-timeout", "1s"},
			file: "x", topic: "hits"},
		{name: "user without mechanism", args: []string{"--brokers", "k:9", "--topic", "t", "--sasl-user", "u"},
			wantErr: "--sasl-user needs --sasl-mechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sf, err := sinkFlagsFrom(t, tt.env, tt.args...)
			if tt.wantErr != "" {
				if err == nil || err.Error() != "batch: "+tt.wantErr {
					t.Fatalf("resolveSettings() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("resolveSettings() error = %v", err)
			}
			if sf.File != tt.file || sf.Brokers.String() != tt.brokers || sf.Topic != tt.topic {
				t.Errorf("resolveSettings() = file %q brokers %q topic %q, want %q %q %q", sf.File, sf.Brokers, sf.Topic, tt.file, tt.brokers, tt.topic)
			}
		})
	}
}

func TestSinkFlagsEnvValueThatDoesNotParse(t *testing.T) {
	_, err := bound(t, "batch", map[string]string{"GENERATOR_FILE": "x"}, "--day", "0", "--compression", "brotli")
	if err == nil || !strings.Contains(err.Error(), `invalid argument "brotli" for "--compression" flag: unknown compression`) {
		t.Fatalf("--compression brotli error = %v, want one naming the flag and the codec", err)
	}
}

// TestSinkFlagsRead: verify reads with --brokers or its variable, refuses the flags of
// sending as flags it does not take, and names the topic as the flag of sending would.
func TestSinkFlagsRead(t *testing.T) {
	read := func(env map[string]string, args ...string) (*sink.Settings, error) {
		b, err := bound(t, "verify", env, append([]string{"--day", "0"}, args...)...)
		if err != nil {
			return nil, err
		}
		return &b.v.sink, b.checkReadMode()
	}
	if _, err := read(nil, "--linger", "1s", "--brokers", "k:9"); err == nil || err.Error() != "verify: --linger does not apply to verify: it is a flag of run, batch, live, snapshot and inject" {
		t.Errorf("verify --linger error = %v, want the send-only flag refused", err)
	}
	if _, err := read(map[string]string{sinkFileEnv: "out"}); err == nil || err.Error() != "verify: --brokers HOSTS is required (or env KAFKA_BOOTSTRAP_SERVERS)" {
		t.Errorf("verify without brokers error = %v, want brokers required", err)
	}
	sf, err := read(map[string]string{sinkBrokersEnv: "k:9"})
	if err != nil || sf.Topic != "hits" || sf.Brokers.String() != "k:9" {
		t.Errorf("verify = topic %q brokers %q, %v; want hits, k:9, nil", sf.Topic, sf.Brokers, err)
	}
}

// TestSinkFlagsTopicOf: a kind goes to --topic or its own topic, never to the other kind's,
// and the refusal names --topic.
func TestSinkFlagsTopicOf(t *testing.T) {
	for _, c := range []struct {
		verb, topic, want, wantErr string
	}{
		{"batch", "", "hits", ""},
		{"snapshot", "", "orders", ""},
		{"batch", "raw-hits", "raw-hits", ""},
		{"batch", "hits", "hits", ""},
		{"batch", "orders", "", "batch: --topic orders is for orders, not hits"},
		{"snapshot", "hits", "", "snapshot: --topic hits is for hits, not orders"},
	} {
		args := []string{"--day", "1", "--scale", "0.01", "--file", "/dev/null"}
		if c.topic != "" {
			args = []string{"--day", "1", "--scale", "0.01", "--brokers", "k:9", "--topic", c.topic}
		}
		if c.wantErr == "" {
			b, err := bound(t, c.verb, nil, args...)
			if err != nil {
				t.Fatal(err)
			}
			kind := map[string]string{"batch": "hits", "snapshot": "orders"}[c.verb]
			if got, err := b.v.sink.TopicOf(kind); got != c.want || err != nil {
				t.Errorf("%s --topic %q: topic %q, %v; want %q", c.verb, c.topic, got, err, c.want)
			}
			continue
		}
		_, errs, code := clickgen(t, append([]string{c.verb}, args...)...)
		if code != 2 || !strings.Contains(errs, "clickgen: "+c.wantErr+"\n") {
			t.Errorf("%s --topic %q: exit %d, %q; want 2, %q", c.verb, c.topic, code, errs, c.wantErr)
		}
	}
}

// TestSinkErrorAndWarning: Kafka's findings are worded with the flags to drop or add, in
// the words clickgen has always printed.
func TestSinkErrorAndWarning(t *testing.T) {
	eof := io.EOF
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&sink.NoSASLListenerError{Brokers: "k:9", What: "closed the connection during the SASL handshake", Mechanism: "PLAIN", User: "u", Err: eof},
			`Kafka at k:9 closed the connection during the SASL handshake (mechanism PLAIN, user "u") and answers without SASL: it has no SASL listener on this port (drop --sasl-mechanism, or give the SASL listener's port): EOF`},
		{&sink.MissingTopicsError{Topics: []string{"hits", "orders"}, Partitions: []int32{2, 1}, Brokers: "k:9"},
			"sink: topic(s) hits (2 partitions), orders (1 partitions) missing on k:9: create them, or use --create-topics"},
		{eof, "EOF"},
	} {
		if got := sink.Explain(tc.err, flagNames(t, "batch")); got == nil || got.Error() != tc.want {
			t.Errorf("sink.Explain(%v) = %v, want %q", tc.err, got, tc.want)
		}
	}
	if !errors.Is(sink.Explain(&sink.NoSASLListenerError{Err: eof}, nil), eof) {
		t.Error("sink.Explain lost the handshake's error")
	}
	const want = "topic hits has 3 partitions, want 2: keys are placed by murmur2 over 3 partitions, not the 2 the stand expects " +
		"(an existing topic is left as it is, with --create-topics too); clickgen verify checks it with --hits-partitions 3 (--orders-partitions 3 for orders)"
	if got := (sink.PartitionsWarning{Topic: "hits", Has: 3, Want: 2}).Say(flagNames(t, "batch")); got != want {
		t.Errorf("PartitionsWarning.Say = %q, want %q", got, want)
	}
}

// TestSinkSettingFlags: every sink setting is carried by a row of flagTable (the password by
// its variable), and every kind of sink has the flag that chooses it, so kindUsage and the
// library's refusals can name them all.
func TestSinkSettingFlags(t *testing.T) {
	rows := map[string]bool{}
	for _, r := range flagTable {
		if settingFields[r.field] {
			rows[r.field] = true
		}
	}
	for f := range reflect.TypeFor[sink.Settings]().Fields() {
		if f.IsExported() && !rows[f.Name] { // not what the settings keep for themselves (the TLS files LoadTLS read)
			t.Errorf("sink setting %s has no row in flagTable", f.Name)
		}
	}
	b, err := bound(t, "batch", nil, "--day", "0", "--file", "-")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range sink.Kinds() {
		if f := b.names(k.Field, false); !strings.HasPrefix(f, "--") {
			t.Errorf("kind %s: no flag chooses it (%q)", k.Name, f)
		}
	}
}

// TestIgnoredSinkFlagsRefused is part of issue 11 item 10: flags that were silently ignored.
func TestIgnoredSinkFlagsRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "h.jsonl")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--file", file, "--linger", "-1s"}, "--linger -1s"},
		{[]string{"--file", file, "--tls"}, "--tls applies to Kafka (--brokers), not to a file (--file)"},
		{[]string{"--brokers", "127.0.0.1:1", "--topic", "hits", "--sasl-user", "u"}, "--sasl-user needs --sasl-mechanism"},
	} {
		_, errs, code := clickgen(t, append([]string{"batch", "--day", "0", "--limit", "1"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tc.args, code, errs, tc.want)
		}
	}
}
