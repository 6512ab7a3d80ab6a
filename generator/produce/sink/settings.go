package sink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"time"

	"github.com/clickgen/clickgen/generator/field"
)

// Settings choose a sink: a file, stdout, or a Kafka cluster with its connection (TLS,
// SASL), batching and timeouts. They are plain values: [DefaultSettings] gives the defaults,
// [Settings.Validate] checks them, the one validator, [Settings.Kind] says which kind of sink
// they choose (the table [Kinds], which says which settings apply to each), and
// [Settings.Open] opens it. The package reads no flags and no environment: the command binds them and fills
// SASLPassword from its environment, so a secret never travels as a flag.
type Settings struct {
	File            string  // write here, one message per line; "-" is the caller's stdout
	Brokers         Brokers // Kafka bootstrap brokers; exactly one of File and Brokers
	Topic           string  // the topic to send to; needed with Brokers by [Settings.TopicOf]
	CreateTopics    bool    // create missing topics ([Dial])
	Replication     int16   // replication factor of created topics; -1: the brokers' default.replication.factor
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
	SASLPassword    string

	tlsFiles *TLSConfig // TLSCA, TLSCert and TLSKey as LoadTLS read them
}

// DefaultSettings are the settings a caller starts from: no sink chosen yet, the Kafka
// options' own defaults (lz4, a 10 ms linger, a 10 s connect timeout, a 2 min delivery
// timeout, the brokers' default replication factor for created topics) and a 60 s flush
// timeout.
func DefaultSettings() Settings {
	c := defaultCfg()
	return Settings{
		Replication:     c.replicationFactor,
		Compression:     c.compression,
		Linger:          c.linger,
		ConnectTimeout:  c.connectTimeout,
		DeliveryTimeout: c.deliveryTimeout,
		FlushTimeout:    60 * time.Second,
	}
}

// The refusals of [Settings.Validate] and [Settings.TopicOf]. Each is a *field.Error naming the
// settings by their field in Settings (Linger, TLSCert), so a caller that binds them to its
// own inputs says it in its own names (field.Say) without telling them apart one by one;
// errors.Is finds each. ErrLinger and ErrReplication come inside a *field.Error with the
// offending value, ErrTwoSinks wrapped with how each sink was chosen.
var (
	ErrTwoSinks              = errors.New("both a file and brokers are set: choose one sink")
	ErrNoSink                = field.New("no sink: set {File|a file} (or '-' for stdout) or {Brokers|brokers} and {Topic|a topic}")
	ErrNoTopic               = field.New("{Brokers|brokers} need {Topic|a topic}")
	ErrTLSPair               = field.New("{TLSCert|the TLS client certificate} and {TLSKey|key} go together")
	ErrSASLNoUser            = field.New("{SASLMechanism|a SASL mechanism} needs {SASLUser|a user}")
	ErrSASLNoPassword        = field.New("{SASLMechanism|a SASL mechanism} needs {SASLPassword|a password}")
	ErrTimeouts              = field.New("{ConnectTimeout|the connect}, {DeliveryTimeout|delivery} and {FlushTimeout|flush timeouts} must be positive")
	ErrLinger                = errors.New("want 0 or more")
	ErrReplication           = errors.New("want at least 1, or -1 for the brokers' default")
	ErrReplicationNoCreation = field.New("{Replication|a replication factor} applies to the topics {CreateTopics|CreateTopics} creates")
	ErrSASLNoMechanism       = field.New("{SASLUser|a SASL user} needs {SASLMechanism|a mechanism} (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)")
)

// Validate checks the settings, in this order: they choose at most one kind of sink
// ([ErrTwoSinks]); the TLS client certificate and key go together, SASL has a user and a
// password, the timeouts are positive, the linger is not negative, the replication factor is
// -1 or at least 1; no setting that does not apply to the kind they choose differs from its
// default ([Kind.Refuse]: TLS with a file); the replication factor is set (not -1) only with
// CreateTopics, a SASL user only with a mechanism; and they choose a kind ([ErrNoSink]). The
// first refusal found is returned, one of the Err values above or Refuse's. A caller that
// chooses the sink itself when the settings choose none (an embedded broker) takes ErrNoSink,
// which comes last, as its cue.
func (s *Settings) Validate() error {
	k, err := s.Kind()
	if errors.Is(err, ErrTwoSinks) {
		return err
	}
	switch {
	case (s.TLSCert == "") != (s.TLSKey == ""):
		return ErrTLSPair
	case s.SASLMechanism != "" && s.SASLUser == "":
		return ErrSASLNoUser
	case s.SASLMechanism != "" && s.SASLPassword == "":
		return ErrSASLNoPassword
	case s.ConnectTimeout <= 0 || s.FlushTimeout <= 0 || s.DeliveryTimeout <= 0:
		return ErrTimeouts
	case s.Linger < 0:
		return &field.Error{Field: "Linger", Words: "linger", Value: s.Linger.String(), Err: ErrLinger}
	case s.Replication == 0 || s.Replication < -1:
		return &field.Error{Field: "Replication", Words: "replication factor", Value: strconv.Itoa(int(s.Replication)), Err: ErrReplication}
	}
	if k != nil {
		defaults := reflect.ValueOf(DefaultSettings())
		v := reflect.ValueOf(*s)
		for f := range reflect.TypeFor[Settings]().Fields() {
			if f.IsExported() && !k.Applies(f.Name) && !reflect.DeepEqual(v.FieldByIndex(f.Index).Interface(), defaults.FieldByIndex(f.Index).Interface()) {
				return k.Refuse(f.Name)
			}
		}
	}
	switch {
	case s.Replication != -1 && !s.CreateTopics:
		return ErrReplicationNoCreation
	case s.SASLUser != "" && s.SASLMechanism == "":
		return ErrSASLNoMechanism
	}
	return err
}

// Secure reports whether the settings ask for TLS or SASL, which only a Kafka sink of the
// caller's brokers speaks (an embedded broker speaks plaintext).
func (s *Settings) Secure() bool {
	return s.TLS || s.TLSCA != "" || s.TLSCert != "" || s.TLSKey != "" || s.SASLMechanism != "" || s.SASLUser != ""
}

// TopicOf is the topic kind ("hits" or "orders") is sent to: Topic, or else kind's own name
// for a sink whose topics are only names (a file counts its messages under it). A sink with
// real topics (Kind.Partitions: Kafka) needs Topic named ([ErrNoTopic]). The other kind's
// topic is refused with a *[TopicError]: hits sent to the orders topic are read by the
// stand's intake as garbage, every one.
func (s *Settings) TopicOf(kind string) (string, error) {
	if k, err := s.Kind(); err == nil && k.Partitions && s.Topic == "" {
		return "", ErrNoTopic
	}
	for other := range DefaultTopics() {
		if other != kind && s.Topic == other {
			return "", &TopicError{Topic: s.Topic, Kind: kind, For: other}
		}
	}
	if s.Topic == "" {
		return kind, nil
	}
	return s.Topic, nil
}

// TopicError is [Settings.TopicOf]'s refusal to send Kind to Topic, the topic of the kind For.
type TopicError struct{ Topic, Kind, For string }

func (e *TopicError) Error() string { return e.Say(nil) }

// Say is the refusal with the field Topic named by names.
func (e *TopicError) Say(names field.Names) string {
	return fmt.Sprintf("%s %s is for %s, not %s", field.Name(names, "Topic", "topic"), e.Topic, e.For, e.Kind)
}

// ClearTextPassword reports whether the settings send the SASL password in clear text: SASL
// PLAIN to brokers without TLS. (SCRAM sends a proof of the password, never the password.)
func (s *Settings) ClearTextPassword() bool {
	return len(s.Brokers) > 0 && SASLMechanism(s.SASLMechanism) == SASLPlain && !s.TLS && s.TLSCA == "" && s.TLSCert == ""
}

// Opts are the Kafka options of the settings: the brokers, compression, linger, the delivery
// timeout, the replication factor of created topics, and the connection options
// ([Settings.ConnOpts]).
func (s *Settings) Opts() []Opt {
	opts := []Opt{
		SeedBrokers(s.Brokers...),
		BatchCompression(s.Compression),
		Linger(s.Linger),
		DeliveryTimeout(s.DeliveryTimeout),
	}
	if s.Replication != 0 {
		opts = append(opts, ReplicationFactor(s.Replication))
	}
	return append(opts, s.ConnOpts()...)
}

// ConnOpts are the options a reader of topics needs besides the brokers, which it is given
// once, as a list: the connect timeout, TLS and SASL. The TLS files are those
// [Settings.LoadTLS] read, or else are read when a client is built from the options.
func (s *Settings) ConnOpts() []Opt {
	opts := []Opt{ConnectTimeout(s.ConnectTimeout)}
	if s.TLS || s.TLSCA != "" || s.TLSCert != "" {
		t := TLSConfig{CAFile: s.TLSCA, CertFile: s.TLSCert, KeyFile: s.TLSKey}
		if f := s.tlsFiles; f != nil && f.CAFile == t.CAFile && f.CertFile == t.CertFile && f.KeyFile == t.KeyFile {
			t = *f
		}
		opts = append(opts, TLS(t))
	}
	if s.SASLMechanism != "" {
		opts = append(opts, SASL(SASLMechanism(s.SASLMechanism), s.SASLUser, s.SASLPassword))
	}
	return opts
}

// LoadTLS reads the TLS files the settings name (TLSCA, TLSCert, TLSKey) as every input is
// read: at most [MaxPEMBytes] each, a FIFO or a device within fileio.DefaultWait, and given
// up when ctx ends (the error then wraps ctx's cause). The options of [Settings.ConnOpts]
// then carry their contents, so no client reads them again. [Settings.Open] and
// [Settings.CheckConnect] call it; a caller that builds options itself calls it first. A file
// that cannot be read is a *[ConfigError]. It reads each file once: a second call does
// nothing unless the paths changed.
func (s *Settings) LoadTLS(ctx context.Context) error {
	t := TLSConfig{CAFile: s.TLSCA, CertFile: s.TLSCert, KeyFile: s.TLSKey}
	if f := s.tlsFiles; f != nil && f.CAFile == t.CAFile && f.CertFile == t.CertFile && f.KeyFile == t.KeyFile {
		return nil
	}
	if err := t.load(ctx); err != nil {
		if ctx.Err() != nil {
			return err // interrupted: not a mistake in the settings
		}
		return &ConfigError{Err: err}
	}
	s.tlsFiles = &t
	return nil
}

// Open opens the sink of the kind the settings choose ([Settings.Kind]): the file (stdout
// for "-"), or Kafka through [Dial], checking the topics of want (creating them with
// CreateTopics) and passing Dial's warnings to warn. extra are added to the Kafka options
// (metrics hooks, a logger). A Kafka failure caused by the settings themselves is a
// *[ConfigError], a file that cannot be opened a *[FileError].
func (s *Settings) Open(ctx context.Context, stdout io.Writer, want map[string]int32, warn func(PartitionsWarning), extra ...Opt) (Sink, error) {
	k, err := s.Kind()
	if err != nil {
		return nil, err
	}
	return k.open(ctx, s, stdout, want, warn, extra)
}

// FileError is [Settings.Open]'s failure to open the file of [Settings.File].
type FileError struct{ Err error }

func (e *FileError) Error() string { return "file: " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// CheckConnect fails within the connect timeout when the brokers cannot be reached. A client
// the settings cannot build is a *[ConfigError]. extra are added to the settings' options
// ([OnConnectWait], a logger).
func (s *Settings) CheckConnect(ctx context.Context, extra ...Opt) error {
	if err := s.LoadTLS(ctx); err != nil {
		return err
	}
	k, err := NewKafka(append(s.Opts(), extra...)...)
	if err != nil {
		return &ConfigError{Err: err}
	}
	defer k.Close()
	return k.CheckConnect(ctx)
}
