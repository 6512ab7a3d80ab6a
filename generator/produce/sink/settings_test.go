package sink

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fileSettings are the defaults writing to path.
func fileSettings(path string) Settings {
	s := DefaultSettings()
	s.File = path
	return s
}

// kafkaSettingsNoTopic are the defaults sending to k:9, no topic named.
func kafkaSettingsNoTopic() *Settings {
	s := DefaultSettings()
	s.Brokers = Brokers{"k:9"}
	return &s
}

// kafkaSettings are the defaults sending to topic t on k:9.
func kafkaSettings() Settings {
	s := DefaultSettings()
	s.Brokers, s.Topic = Brokers{"k:9"}, "t"
	return s
}

// TestSettingsValidate: each refusal is its Err value (or a kind's refusal of a setting that
// does not apply to it), found in Validate's order, and names the values, not a flag.
func TestSettingsValidate(t *testing.T) {
	tests := []struct {
		name     string
		s        func(*Settings)
		base     Settings
		wantErr  error // nil for success
		text     string
		wantText string // a refusal that is no Err value: its text
	}{
		{name: "file", base: fileSettings("-")},
		{name: "brokers and topic", base: kafkaSettings()},
		{name: "both", base: fileSettings("x"), s: func(s *Settings) { s.Brokers = Brokers{"k:9"} }, wantErr: ErrTwoSinks,
			text: "file x and brokers k:9: both a file and brokers are set: choose one sink"},
		{name: "none", base: DefaultSettings(), wantErr: ErrNoSink},
		{name: "no topic: TopicOf's", base: kafkaSettings(), s: func(s *Settings) { s.Topic = "" }},
		{name: "cert without key", base: fileSettings("x"), s: func(s *Settings) { s.TLSCert = "c" }, wantErr: ErrTLSPair},
		{name: "sasl without user", base: kafkaSettings(), s: func(s *Settings) { s.SASLMechanism = "PLAIN" }, wantErr: ErrSASLNoUser},
		{name: "sasl without password", base: kafkaSettings(), s: func(s *Settings) { s.SASLMechanism, s.SASLUser = "PLAIN", "u" }, wantErr: ErrSASLNoPassword},
		{name: "sasl", base: kafkaSettings(), s: func(s *Settings) { s.SASLMechanism, s.SASLUser, s.SASLPassword = "PLAIN", "u", "p" }},
		{name: "zero timeout", base: fileSettings("x"), s: func(s *Settings) { s.FlushTimeout = 0 }, wantErr: ErrTimeouts},
		{name: "negative linger", base: fileSettings("x"), s: func(s *Settings) { s.Linger = -time.Second }, wantErr: ErrLinger, text: "linger -1s: want 0 or more"},
		{name: "replication factor", base: kafkaSettings(), s: func(s *Settings) { s.CreateTopics, s.Replication = true, 3 }},
		{name: "replication factor 0", base: kafkaSettings(), s: func(s *Settings) { s.CreateTopics, s.Replication = true, 0 }, wantErr: ErrReplication,
			text: "replication factor 0: want at least 1, or -1 for the brokers' default"},
		{name: "replication factor without create", base: kafkaSettings(), s: func(s *Settings) { s.Replication = 3 }, wantErr: ErrReplicationNoCreation},
		{name: "TLS with a file", base: fileSettings("x"), s: func(s *Settings) { s.TLS = true }, wantText: "TLS applies to Kafka (brokers), not to a file (file)"},
		// A file, stdout or a pipe is written at least every linger, as a Kafka batch is sent (issue 38).
		{name: "a linger with stdout", base: fileSettings("-"), s: func(s *Settings) { s.Linger = time.Second }},
		{name: "a compression with stdout", base: fileSettings("-"), s: func(s *Settings) { s.Compression = CompressionZstd },
			wantText: "Compression applies to Kafka (brokers), not to stdout (file -)"},
		{name: "no sink comes last", base: DefaultSettings(), s: func(s *Settings) { s.Linger = -1 }, wantErr: ErrLinger},
		{name: "user without mechanism", base: kafkaSettings(), s: func(s *Settings) { s.SASLUser = "u" }, wantErr: ErrSASLNoMechanism},
		{name: "first refusal wins", base: fileSettings("x"), s: func(s *Settings) { s.TLS, s.Linger = true, -1 }, wantErr: ErrLinger},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.base
			if tt.s != nil {
				tt.s(&s)
			}
			err := s.Validate()
			if tt.wantText != "" {
				if err == nil || err.Error() != tt.wantText {
					t.Fatalf("Validate() error = %v, want %q", err, tt.wantText)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("Validate() error = %v, want %v", err, tt.wantErr)
			}
			if tt.text != "" && err.Error() != tt.text {
				t.Errorf("Validate() error = %q, want %q", err, tt.text)
			}
			if err != nil && strings.Contains(err.Error(), "--") {
				t.Errorf("Validate() error = %q names a flag", err)
			}
		})
	}
}

func TestSettingsOpenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	s := fileSettings(path)
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
	var fe *FileError
	if _, err := s.Open(context.Background(), nil, nil, nil); !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "file: ") {
		t.Errorf("Open(unwritable file) error = %v, want a *FileError", err)
	}
}

func TestSettingsOpenBadOptionsIsConfigError(t *testing.T) {
	s := kafkaSettings()
	s.SASLMechanism, s.SASLUser, s.SASLPassword = "NOPE", "u", "p"
	if err := s.Validate(); err != nil {
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

// TestSettingsTopicOf: a kind goes to Topic or its own topic, never to the other kind's; a
// sink with real topics (Kafka) needs Topic named.
func TestSettingsTopicOf(t *testing.T) {
	if _, err := kafkaSettingsNoTopic().TopicOf("hits"); !errors.Is(err, ErrNoTopic) {
		t.Errorf("brokers without a topic: TopicOf = %v, want ErrNoTopic", err)
	}
	for _, c := range []struct {
		topic, kind, want, wantErr string
	}{
		{"", "hits", "hits", ""},
		{"", "orders", "orders", ""},
		{"raw-hits", "hits", "raw-hits", ""},
		{"hits", "hits", "hits", ""},
		{"orders", "hits", "", "topic orders is for orders, not hits"},
		{"hits", "orders", "", "topic hits is for hits, not orders"},
	} {
		s := &Settings{Topic: c.topic}
		got, err := s.TopicOf(c.kind)
		if got != c.want || (err == nil) != (c.wantErr == "") || (err != nil && err.Error() != c.wantErr) {
			t.Errorf("topic %q, kind %s: TopicOf = %q, %v; want %q, %q", c.topic, c.kind, got, err, c.want, c.wantErr)
		}
		if te := (*TopicError)(nil); err != nil && (!errors.As(err, &te) || te.Kind != c.kind || te.Topic != c.topic) {
			t.Errorf("topic %q, kind %s: TopicOf error %v is not a *TopicError with topic and kind", c.topic, c.kind, err)
		}
	}
}
