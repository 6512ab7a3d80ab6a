package sink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"
)

// Settings choose a sink from the command line: a file (or stdout), or a Kafka cluster with
// its connection (TLS, SASL), batching and timeouts. [Settings.AddFlags] registers them as
// flags, [Settings.Resolve] adds the environment's fallbacks and checks how they combine, and
// [Settings.Open] opens the sink they choose. The zero value is not ready: use AddFlags, whose
// defaults are those of the flags' help.
//
// The package still reads no environment: Resolve is handed a getenv (os.Getenv), and the
// SASL password comes only from there, never from a flag.
type Settings struct {
	File            string // --file: write here, one message per line; "-" is the caller's stdout
	Brokers         Brokers
	Topic           string
	CreateTopics    bool
	Replication     int16 // --replication-factor of created topics; -1: the brokers' default.replication.factor
	Compression     Compression
	Linger          time.Duration
	ConnectTimeout  time.Duration
	FlushTimeout    time.Duration // the caller's wait for acknowledgements at the end of a unit
	DeliveryTimeout time.Duration
	TLS             bool
	TLSCA           string
	TLSCert         string
	TLSKey          string
	SASLMechanism   string
	SASLUser        string
	SASLPassword    string // from env [PasswordEnv], set by Resolve or ResolveRead

	fs *pflag.FlagSet
}

// PasswordEnv holds the SASL password: secrets never travel as flags.
const PasswordEnv = "CLICKGEN_SASL_PASSWORD"

// The environment variables Resolve falls back to, as the stand's containers set them.
const (
	FileEnv    = "GENERATOR_FILE"
	BrokersEnv = "KAFKA_BOOTSTRAP_SERVERS"
	TopicEnv   = "KAFKA_TOPIC"
)

// AddFlags registers the sink flags on fs with their defaults (lz4, a 10 ms linger, a 10 s
// connect timeout, a 2 min delivery timeout and a 60 s flush timeout) and remembers fs, so
// Resolve can tell a flag that was given from one that was not.
func (s *Settings) AddFlags(fs *pflag.FlagSet) {
	s.fs, s.Compression = fs, CompressionLZ4
	fs.StringVar(&s.File, "file", "", "write messages to `PATH`, one per line ('-' is stdout) (env "+FileEnv+")")
	fs.Var(&s.Brokers, "brokers", "Kafka bootstrap `HOSTS`, comma-separated (env "+BrokersEnv+")")
	fs.StringVar(&s.Topic, "topic", "", "Kafka topic (env "+TopicEnv+")")
	fs.BoolVar(&s.CreateTopics, "create-topics", false, "create missing topics (hits with 2 partitions, orders with 1); an existing topic is left as it is")
	fs.Int16Var(&s.Replication, "replication-factor", -1, "replication factor of topics --create-topics creates; -1 is the brokers' default.replication.factor")
	fs.Var(&s.Compression, "compression", "batch compression: none, gzip, snappy, lz4 or zstd")
	fs.DurationVar(&s.Linger, "linger", 10*time.Millisecond, "how long a partition waits for more records before sending a batch")
	fs.DurationVar(&s.ConnectTimeout, "connect-timeout", 10*time.Second, "fail if the brokers cannot be reached within this time")
	fs.DurationVar(&s.DeliveryTimeout, "delivery-timeout", 2*time.Minute, "fail the run when the brokers acknowledge nothing for this long (a broker that died)")
	fs.DurationVar(&s.FlushTimeout, "flush-timeout", 60*time.Second, "how long to wait for acknowledgements at the end of a day (and after Ctrl-C)")
	fs.BoolVar(&s.TLS, "tls", false, "connect to the brokers over TLS")
	fs.StringVar(&s.TLSCA, "tls-ca", "", "CA certificate `FILE` to verify the brokers with (implies --tls)")
	fs.StringVar(&s.TLSCert, "tls-cert", "", "client certificate `FILE` (implies --tls; needs --tls-key)")
	fs.StringVar(&s.TLSKey, "tls-key", "", "client key `FILE` (implies --tls; needs --tls-cert)")
	fs.StringVar(&s.SASLMechanism, "sasl-mechanism", "", "SASL mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (password from env "+PasswordEnv+")")
	fs.StringVar(&s.SASLUser, "sasl-user", "", "SASL user name")
}

// Resolve fills what the command line left unset from the environment (getenv, usually
// os.Getenv; an empty value counts as unset) and checks the combination for a caller that
// sends to one topic or a file: exactly one of --file and --brokers, a topic with --brokers,
// then [Settings.Validate]. A flag beats the other sink's variable: --brokers ignores
// GENERATOR_FILE and --file ignores KAFKA_BOOTSTRAP_SERVERS. Every error is the caller's
// mistake, worded for the command line.
func (s *Settings) Resolve(getenv func(string) string) error {
	fs := s.fs
	if fs.Changed("file") && fs.Changed("brokers") {
		return errors.New("both --file and --brokers given: choose one sink")
	}
	if !fs.Changed("brokers") {
		if err := setFromEnv(fs, getenv, "file", FileEnv); err != nil {
			return err
		}
	}
	if !fs.Changed("file") {
		if err := setFromEnv(fs, getenv, "brokers", BrokersEnv); err != nil {
			return err
		}
	}
	if err := setFromEnv(fs, getenv, "topic", TopicEnv); err != nil {
		return err
	}
	switch {
	case s.File != "" && len(s.Brokers) > 0:
		return fmt.Errorf("both a file (%s) and brokers (%s) are set, by flags or environment: choose one sink", s.File, s.Brokers)
	case s.File == "" && len(s.Brokers) == 0:
		return errors.New("no sink: give --file PATH (or '-' for stdout) or --brokers HOSTS --topic T")
	case len(s.Brokers) > 0 && s.Topic == "":
		return errors.New("--brokers needs --topic (or env " + TopicEnv + ")")
	}
	return s.Validate(getenv)
}

// ResolveRead is Resolve for a caller that only reads topics (clickgen verify): --brokers (or
// KAFKA_BOOTSTRAP_SERVERS) is required, and a flag that applies only to sending
// ([SendOnlyFlags]) is refused, naming verb. topic is the first topic to be read.
func (s *Settings) ResolveRead(getenv func(string) string, verb, topic string) error {
	for _, name := range SendOnlyFlags {
		if s.fs.Changed(name) {
			return fmt.Errorf("--%s does not apply: %s only reads", name, verb)
		}
	}
	if err := setFromEnv(s.fs, getenv, "brokers", BrokersEnv); err != nil {
		return err
	}
	if len(s.Brokers) == 0 {
		return errors.New("--brokers HOSTS is required (or env " + BrokersEnv + ")")
	}
	s.Topic = topic
	return s.Resolve(getenv)
}

// SendOnlyFlags are the flags that mean nothing to a caller that only reads topics; it hides
// them from its help and ResolveRead refuses them.
var SendOnlyFlags = []string{"file", "topic", "create-topics", "replication-factor", "compression", "linger", "flush-timeout", "metrics-addr"}

// Validate checks the connection settings: the TLS client certificate and key go together,
// SASL has a user, a password (read from getenv's [PasswordEnv]) and a mechanism, the
// timeouts are positive, the linger is not negative, and neither TLS nor SASL is asked of a
// file. Resolve calls it; a caller that chooses the brokers itself calls it alone.
func (s *Settings) Validate(getenv func(string) string) error {
	s.SASLPassword = getenv(PasswordEnv)
	switch {
	case (s.TLSCert == "") != (s.TLSKey == ""):
		return errors.New("--tls-cert and --tls-key go together")
	case s.SASLMechanism != "" && s.SASLUser == "":
		return errors.New("--sasl-mechanism needs --sasl-user")
	case s.SASLMechanism != "" && s.SASLPassword == "":
		return errors.New("--sasl-mechanism needs the password in env " + PasswordEnv)
	case s.ConnectTimeout <= 0 || s.FlushTimeout <= 0 || s.DeliveryTimeout <= 0:
		return errors.New("--connect-timeout, --delivery-timeout and --flush-timeout must be positive")
	case s.Linger < 0:
		return fmt.Errorf("--linger %v: want 0 or more", s.Linger)
	case s.Replication == 0 || s.Replication < -1:
		return fmt.Errorf("--replication-factor %d: want at least 1, or -1 for the brokers' default", s.Replication)
	case s.fs != nil && s.fs.Changed("replication-factor") && !s.CreateTopics:
		return errors.New("--replication-factor applies to the topics --create-topics creates: add --create-topics")
	case s.File != "" && (s.TLS || s.TLSCA != "" || s.TLSCert != "" || s.SASLMechanism != "" || s.SASLUser != ""):
		return errors.New("TLS and SASL flags apply to --brokers, not --file")
	case s.SASLUser != "" && s.SASLMechanism == "":
		return errors.New("--sasl-user needs --sasl-mechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)")
	}
	return nil
}

// TopicFor is the topic verb sends kind ("hits" or "orders") to: --topic, or else kind's own
// name. The other kind's topic is refused: batch --topic orders put hits into the orders
// topic, where the stand's intake reads every one as garbage.
func (s *Settings) TopicFor(verb, kind string) (string, error) {
	for other := range DefaultTopics() {
		if other != kind && s.Topic == other {
			return "", fmt.Errorf("--topic %s: %s sends %s, and topic %s is for %s", s.Topic, verb, kind, s.Topic, other)
		}
	}
	if s.Topic == "" {
		return kind, nil
	}
	return s.Topic, nil
}

// Kafka reports whether the settings send to Kafka (brokers were given) rather than a file.
func (s *Settings) Kafka() bool { return len(s.Brokers) > 0 }

// Opts are the Kafka options of the settings: the brokers, compression, linger, timeouts,
// the replication factor of created topics, TLS and SASL. Reading a topic back uses them too (only the connection ones apply).
func (s *Settings) Opts() []Opt {
	opts := []Opt{
		SeedBrokers(s.Brokers...),
		BatchCompression(s.Compression),
		Linger(s.Linger),
		ConnectTimeout(s.ConnectTimeout),
		DeliveryTimeout(s.DeliveryTimeout),
	}
	if s.Replication != 0 {
		opts = append(opts, ReplicationFactor(s.Replication))
	}
	if s.TLS || s.TLSCA != "" || s.TLSCert != "" {
		opts = append(opts, TLS(TLSConfig{CAFile: s.TLSCA, CertFile: s.TLSCert, KeyFile: s.TLSKey}))
	}
	if s.SASLMechanism != "" {
		opts = append(opts, SASL(SASLMechanism(s.SASLMechanism), s.SASLUser, s.SASLPassword))
	}
	return opts
}

// Open opens the sink the settings choose: the file (stdout for "-"), or Kafka through
// [Dial], checking the topics of want (creating them with CreateTopics) and passing Dial's
// warnings to warn. extra are added to the Kafka options (metrics hooks, a logger). A Kafka
// failure caused by the settings themselves is a *[ConfigError].
func (s *Settings) Open(ctx context.Context, stdout io.Writer, want map[string]int32, warn func(string), extra ...Opt) (Sink, error) {
	if s.File == "" {
		k, err := Dial(ctx, s.CreateTopics, want, warn, append(s.Opts(), extra...)...)
		if err != nil {
			return nil, err // not a nil *Kafka in a non-nil Sink
		}
		return k, nil
	}
	// A write that blocks (a pipe whose reader stopped reading) fails after the delivery
	// timeout, as an unacknowledged Kafka message does.
	wo := WriterOptions{WriteTimeout: s.DeliveryTimeout}
	if s.File == "-" {
		return NewWriter(stdout, wo)
	}
	w, err := OpenFile(ctx, s.File, wo, s.ConnectTimeout)
	if err != nil {
		return nil, fmt.Errorf("--file: %w", err)
	}
	return w, nil
}

// CheckConnect fails within the connect timeout when the brokers cannot be reached. A client
// the settings cannot build is a *[ConfigError].
func (s *Settings) CheckConnect(ctx context.Context) error {
	k, err := NewKafka(s.Opts()...)
	if err != nil {
		return &ConfigError{Err: err}
	}
	defer k.Close()
	return k.CheckConnect(ctx)
}

// setFromEnv sets flag from the environment variable env when the command line did not set
// it and the variable is not empty. A value that does not parse names the variable.
func setFromEnv(fs *pflag.FlagSet, getenv func(string) string, flag, env string) error {
	if fs.Changed(flag) {
		return nil
	}
	if v := getenv(env); v != "" {
		if err := fs.Set(flag, v); err != nil {
			return fmt.Errorf("environment variable %s=%q: %v", env, v, err)
		}
	}
	return nil
}
