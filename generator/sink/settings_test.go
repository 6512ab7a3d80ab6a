package sink

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// settingsFrom parses args into fresh Settings and resolves them with env.
func settingsFrom(t *testing.T, env map[string]string, args ...string) (*Settings, error) {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	s := new(Settings)
	s.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("Parse(%q): %v", args, err)
	}
	return s, s.Resolve(func(k string) string { return env[k] })
}

func TestSettingsResolve(t *testing.T) {
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
		{name: "env only", env: map[string]string{BrokersEnv: "k:9", TopicEnv: "hits"}, brokers: "k:9", topic: "hits"},
		{name: "empty env is absent", env: map[string]string{FileEnv: "", BrokersEnv: "k:9", TopicEnv: "hits"}, brokers: "k:9", topic: "hits"},
		{name: "file env beats brokers env", env: map[string]string{FileEnv: "out", BrokersEnv: "k:9"}, file: "out"},
		{name: "--brokers beats file env", env: map[string]string{FileEnv: "out"}, args: []string{"--brokers", "k:9", "--topic", "t"}, brokers: "k:9", topic: "t"},
		{name: "--file beats brokers env", env: map[string]string{BrokersEnv: "k:9"}, args: []string{"--file", "x"}, file: "x"},
		{name: "both flags", args: []string{"--file", "x", "--brokers", "k:9"}, wantErr: "both --file and --brokers given: choose one sink"},
		{name: "none", wantErr: "no sink: give --file PATH (or '-' for stdout) or --brokers HOSTS --topic T"},
		{name: "no topic", args: []string{"--brokers", "k:9"}, wantErr: "--brokers needs --topic (or env KAFKA_TOPIC)"},
		{name: "cert without key", args: []string{"--file", "x", "--tls-cert", "c"}, wantErr: "--tls-cert and --tls-key go together"},
		{name: "sasl without user", args: []string{"--brokers", "k:9", "--topic", "t", "--sasl-mechanism", "PLAIN"}, wantErr: "--sasl-mechanism needs --sasl-user"},
		{name: "sasl without password", args: []string{"--brokers", "k:9", "--topic", "t", "--sasl-mechanism", "PLAIN", "--sasl-user", "u"},
			wantErr: "--sasl-mechanism needs the password in env " + PasswordEnv},
		{name: "zero timeout", args: []string{"--file", "x", "--flush-timeout", "0"}, wantErr: "--connect-timeout, --delivery-timeout and --flush-timeout must be positive"},
		{name: "negative linger", args: []string{"--file", "x", "--linger", "-1s"}, wantErr: "--linger -1s: want 0 or more"},
		{name: "replication factor", args: []string{"--brokers", "k:9", "--topic", "t", "--create-topics", "--replication-factor", "3"}, brokers: "k:9", topic: "t"},
		{name: "replication factor 0", args: []string{"--brokers", "k:9", "--topic", "t", "--create-topics", "--replication-factor", "0"},
			wantErr: "--replication-factor 0: want at least 1, or -1 for the brokers' default"},
		{name: "replication factor without create", args: []string{"--brokers", "k:9", "--topic", "t", "--replication-factor", "3"},
			wantErr: "--replication-factor applies to the topics --create-topics creates: add --create-topics"},
		{name: "TLS with a file", args: []string{"--file", "x", "--tls"}, wantErr: "TLS and SASL flags apply to --brokers, not --file"},
		{name: "user without mechanism", args: []string{"--brokers", "k:9", "--topic", "t", "--sasl-user", "u"},
			wantErr: "--sasl-user needs --sasl-mechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := settingsFrom(t, tt.env, tt.args...)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Resolve() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve() error = %v", err)
			}
			if s.File != tt.file || s.Brokers.String() != tt.brokers || s.Topic != tt.topic {
				t.Errorf("Resolve() = file %q brokers %q topic %q, want %q %q %q", s.File, s.Brokers, s.Topic, tt.file, tt.brokers, tt.topic)
			}
		})
	}
}

func TestSettingsEnvValueThatDoesNotParse(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	var s Settings
	s.AddFlags(fs)
	fs.Parse(nil)
	err := setFromEnv(fs, func(string) string { return "brotli" }, "compression", "X")
	if err == nil || !strings.HasPrefix(err.Error(), `environment variable X="brotli": `) || !strings.Contains(err.Error(), "unknown compression") {
		t.Fatalf("setFromEnv(compression) error = %v, want one naming the variable and the codec", err)
	}
}

func TestSettingsResolveRead(t *testing.T) {
	read := func(env map[string]string, args ...string) (*Settings, error) {
		fs := pflag.NewFlagSet("verify", pflag.ContinueOnError)
		s := new(Settings)
		s.AddFlags(fs)
		fs.Parse(args)
		return s, s.ResolveRead(func(k string) string { return env[k] }, "verify", "hits")
	}
	if _, err := read(nil, "--linger", "1s", "--brokers", "k:9"); err == nil || err.Error() != "--linger does not apply: verify only reads" {
		t.Errorf("ResolveRead(--linger) error = %v, want the send-only flag refused", err)
	}
	if _, err := read(map[string]string{FileEnv: "out"}); err == nil || err.Error() != "--brokers HOSTS is required (or env KAFKA_BOOTSTRAP_SERVERS)" {
		t.Errorf("ResolveRead() without brokers error = %v, want brokers required", err)
	}
	s, err := read(map[string]string{BrokersEnv: "k:9"})
	if err != nil || s.Topic != "hits" || s.Brokers.String() != "k:9" {
		t.Errorf("ResolveRead() = topic %q brokers %q, %v; want hits, k:9, nil", s.Topic, s.Brokers, err)
	}
}

func TestSettingsOpenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	s, err := settingsFrom(t, nil, "--file", path)
	if err != nil {
		t.Fatal(err)
	}
	snk, err := s.Open(context.Background(), nil, nil, nil)
	if err != nil {
		t.Fatalf("Open(--file) error = %v", err)
	}
	if _, ok := snk.(*Writer); !ok {
		t.Errorf("Open(--file) = %T, want *Writer", snk)
	}
	snk.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("Open(--file) made no file: %v", err)
	}
	s.File = filepath.Join(path, "under-a-file")
	if _, err := s.Open(context.Background(), nil, nil, nil); err == nil || !strings.HasPrefix(err.Error(), "--file: ") {
		t.Errorf("Open(unwritable --file) error = %v, want one naming --file", err)
	}
}

func TestSettingsOpenBadOptionsIsConfigError(t *testing.T) {
	s, err := settingsFrom(t, map[string]string{PasswordEnv: "p"}, "--brokers", "k:9", "--topic", "t", "--sasl-mechanism", "NOPE", "--sasl-user", "u")
	if err != nil {
		t.Fatal(err)
	}
	snk, err := s.Open(context.Background(), nil, map[string]int32{"t": 1}, nil)
	var ce *ConfigError
	if snk != nil || !errors.As(err, &ce) {
		t.Fatalf("Open(unknown SASL mechanism) = %v, %v; want nil and a *ConfigError", snk, err)
	}
	if err := s.CheckConnect(context.Background()); !errors.As(err, &ce) {
		t.Errorf("CheckConnect(unknown SASL mechanism) error = %v, want a *ConfigError", err)
	}
}

// TestSettingsTopicFor: a kind goes to --topic or its own topic, never to the other kind's.
func TestSettingsTopicFor(t *testing.T) {
	for _, c := range []struct {
		topic, kind, want, wantErr string
	}{
		{"", "hits", "hits", ""},
		{"", "orders", "orders", ""},
		{"raw-hits", "hits", "raw-hits", ""},
		{"hits", "hits", "hits", ""},
		{"orders", "hits", "", "--topic orders: batch sends hits, and topic orders is for orders"},
		{"hits", "orders", "", "--topic hits: batch sends orders, and topic hits is for hits"},
	} {
		s := &Settings{Topic: c.topic}
		got, err := s.TopicFor("batch", c.kind)
		if got != c.want || (err == nil) != (c.wantErr == "") || (err != nil && err.Error() != c.wantErr) {
			t.Errorf("--topic %q, kind %s: TopicFor = %q, %v; want %q, %q", c.topic, c.kind, got, err, c.want, c.wantErr)
		}
	}
}
