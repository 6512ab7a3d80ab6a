package sink

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
	"github.com/twmb/franz-go/plugin/kslog"

	"github.com/clickgen/clickgen/generator/fileio"
)

// Opt configures a [Kafka] sink (and, for its connection options, [Consume]).
type Opt interface{ apply(*cfg) }

type opt func(*cfg)

func (o opt) apply(c *cfg) { o(c) }

// Compression names a Kafka batch compression codec.
type Compression string

// The compression codecs a Kafka sink can use.
const (
	CompressionNone   Compression = "none"
	CompressionGzip   Compression = "gzip"
	CompressionSnappy Compression = "snappy"
	CompressionLZ4    Compression = "lz4"
	CompressionZstd   Compression = "zstd"
)

func (c Compression) codec() (kgo.CompressionCodec, bool) {
	switch c {
	case CompressionNone:
		return kgo.NoCompression(), true
	case CompressionGzip:
		return kgo.GzipCompression(), true
	case CompressionSnappy:
		return kgo.SnappyCompression(), true
	case CompressionLZ4:
		return kgo.Lz4Compression(), true
	case CompressionZstd:
		return kgo.ZstdCompression(), true
	}
	return kgo.CompressionCodec{}, false
}

// String returns the codec's name.
func (c Compression) String() string { return string(c) }

// MarshalText returns the codec's name.
func (c Compression) MarshalText() ([]byte, error) { return []byte(c), nil }

// UnmarshalText sets c from a codec name (none, gzip, snappy, lz4 or zstd); any other name is
// an error, so a parsed Compression is always one NewKafka accepts.
func (c *Compression) UnmarshalText(text []byte) error {
	v := Compression(text)
	if _, ok := v.codec(); !ok {
		return fmt.Errorf("unknown compression %q (want none, gzip, snappy, lz4 or zstd)", string(text))
	}
	*c = v
	return nil
}

// Set implements pflag.Value: it is UnmarshalText.
func (c *Compression) Set(s string) error { return c.UnmarshalText([]byte(s)) }

// Type implements pflag.Value; it names the value in a flag's help.
func (*Compression) Type() string { return "codec" }

// Brokers is a list of bootstrap brokers, host:port each. Its text form is the list
// comma-separated (spaces around an entry and empty entries are dropped), as
// KAFKA_BOOTSTRAP_SERVERS and --brokers spell it; it is parsed once, by UnmarshalText or Set.
// A nil (or empty) Brokers means none given.
type Brokers []string

// ParseBrokers splits a comma-separated list of brokers, dropping spaces around an entry and
// empty entries. It is the one place a broker list is split.
func ParseBrokers(s string) Brokers {
	var b Brokers
	for e := range strings.SplitSeq(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			b = append(b, e)
		}
	}
	return b
}

// String returns the list comma-separated.
func (b Brokers) String() string { return strings.Join(b, ",") }

// MarshalText returns b.String().
func (b Brokers) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText sets b to ParseBrokers(text). It never fails: an empty list is nil.
func (b *Brokers) UnmarshalText(text []byte) error {
	*b = ParseBrokers(string(text))
	return nil
}

// ErrNoBrokers is [Brokers.Set]'s refusal of a list that names no broker.
var ErrNoBrokers = errors.New("no broker named: want HOST:PORT[,HOST:PORT...]")

// Set implements pflag.Value: it replaces the list (it does not append). A list that names no
// broker ("", " , ") is refused with [ErrNoBrokers]: a flag given empty chose nothing, and
// must not silently choose no brokers (where a caller has a default for none, such as an
// embedded broker).
func (b *Brokers) Set(s string) error {
	if strings.Contains(s, "@") { // before the list is split: a password may hold a comma
		return &BrokerError{Shown: ShownBroker(strings.TrimSpace(s)), Err: ErrBrokerUserInfo}
	}
	l := ParseBrokers(s)
	if len(l) == 0 {
		return ErrNoBrokers
	}
	if err := l.check(); err != nil {
		return err
	}
	*b = l
	return nil
}

// Type implements pflag.Value; it names the value in a flag's help.
func (*Brokers) Type() string { return "brokers" }

// SASLMechanism names a SASL authentication mechanism.
type SASLMechanism string

// The SASL mechanisms a Kafka sink can authenticate with. NewKafka accepts
// them in any letter case.
const (
	SASLPlain       SASLMechanism = "PLAIN"
	SASLScramSHA256 SASLMechanism = "SCRAM-SHA-256"
	SASLScramSHA512 SASLMechanism = "SCRAM-SHA-512"
)

// TLSConfig says how to reach brokers over TLS. The zero value verifies the
// brokers against the system's root certificates. There is deliberately no
// way to skip verification.
type TLSConfig struct {
	// CAFile is a PEM file of certificates to verify brokers against,
	// instead of the system roots.
	CAFile string
	// CertFile and KeyFile are a PEM client certificate and its key for
	// mutual TLS; both or neither.
	CertFile, KeyFile string
	// CA, Cert and Key are the contents of CAFile, CertFile and KeyFile when the
	// caller has read them ([Settings.LoadTLS] does, with its context); a file
	// whose contents are given is not read again. Otherwise the files are read
	// when the client is built, as every input is (at most [MaxPEMBytes] each;
	// a FIFO or a device within fileio.DefaultWait).
	CA, Cert, Key []byte
	// ServerName overrides the name verified in broker certificates; by
	// default it is each broker's host name.
	ServerName string
}

type saslCfg struct {
	mech     SASLMechanism
	user     string
	password string // never printed, never in an error
}

type cfg struct {
	brokers            []string
	clientID           string
	compression        Compression
	linger             time.Duration
	maxBufferedRecords int
	maxBufferedBytes   int
	deliveryTimeout    time.Duration
	retries            int // -1: unlimited
	connectTimeout     time.Duration
	replicationFactor  int16
	tls                *TLSConfig
	sasl               *saslCfg
	logger             *slog.Logger
	hooks              []kgo.Hook
	onAck              func(Ack)
	onCreated          func(Created)
	onLeaderWait       func(LeaderWait)
	onConnectWait      func(ConnectWait)

	tlsCfg *tls.Config // built by validate from tls
}

func defaultCfg() cfg {
	return cfg{
		clientID:           "clickgen",
		compression:        CompressionLZ4,
		linger:             10 * time.Millisecond,
		maxBufferedRecords: 10_000,
		maxBufferedBytes:   64 << 20,
		deliveryTimeout:    2 * time.Minute,
		retries:            -1,
		connectTimeout:     10 * time.Second,
		replicationFactor:  -1,
	}
}

// SeedBrokers sets the brokers to bootstrap from, as host:port (an entry may
// hold several, comma-separated). There is no default: NewKafka fails without
// brokers.
func SeedBrokers(brokers ...string) Opt {
	return opt(func(c *cfg) {
		for _, b := range brokers {
			c.brokers = append(c.brokers, ParseBrokers(b)...)
		}
	})
}

// ClientID sets the client ID sent to brokers, overriding the default of
// "clickgen".
func ClientID(id string) Opt { return opt(func(c *cfg) { c.clientID = id }) }

// BatchCompression sets the codec record batches are compressed with,
// overriding the default of lz4. A batch is sent uncompressed if compressing
// does not make it smaller.
func BatchCompression(comp Compression) Opt {
	return opt(func(c *cfg) { c.compression = comp })
}

// Linger sets how long a partition waits for more records before sending a
// batch, overriding the default of 10ms. Flush never waits for it.
func Linger(d time.Duration) Opt { return opt(func(c *cfg) { c.linger = d }) }

// MaxBufferedRecords sets how many records may be queued and unacknowledged
// at once before Send blocks, overriding the default of 10 000.
func MaxBufferedRecords(n int) Opt { return opt(func(c *cfg) { c.maxBufferedRecords = n }) }

// MaxBufferedBytes sets how many key and value bytes may be queued and
// unacknowledged at once before Send blocks, overriding the default of
// 64 MiB; 0 means unlimited. A single record larger than this is still sent
// when nothing else is queued.
func MaxBufferedBytes(n int) Opt { return opt(func(c *cfg) { c.maxBufferedBytes = n }) }

// DeliveryTimeout sets how long a record may wait for its acknowledgement
// before it fails, overriding the default of 2 minutes (Kafka's
// delivery.timeout.ms). With the idempotent producer the client fails a
// record only when it is safe for sequence numbers: never while a request
// holding it awaits a response; Flush's context and Close bound that case.
func DeliveryTimeout(d time.Duration) Opt { return opt(func(c *cfg) { c.deliveryTimeout = d }) }

// Retries sets how many times a record is tried before it fails, overriding
// the default of unlimited tries within the DeliveryTimeout; -1 restores the
// default.
func Retries(n int) Opt { return opt(func(c *cfg) { c.retries = n }) }

// ConnectTimeout sets how long [Kafka.CheckConnect] and each request of
// [Kafka.EnsureTopics] may take, and bounds dialing a broker, overriding the
// default of 10s (the CLI's --connect-timeout).
func ConnectTimeout(d time.Duration) Opt { return opt(func(c *cfg) { c.connectTimeout = d }) }

// ReplicationFactor sets the replication factor of topics created by
// [Kafka.EnsureTopics], overriding the default of -1: the brokers'
// default.replication.factor (Kafka 2.4+), which is 1 on the stand's single
// node and whatever a replicated cluster's operator chose elsewhere.
func ReplicationFactor(n int16) Opt { return opt(func(c *cfg) { c.replicationFactor = n }) }

// TLS enables TLS to the brokers as t says, overriding the default of
// plaintext. Files are read, and their errors reported, by NewKafka.
func TLS(t TLSConfig) Opt { return opt(func(c *cfg) { c.tls = &t }) }

// SASL enables SASL authentication with mechanism m (PLAIN, SCRAM-SHA-256 or
// SCRAM-SHA-512), overriding the default of none. The password is kept only
// to authenticate: it never appears in String output or in errors.
func SASL(m SASLMechanism, user, password string) Opt {
	return opt(func(c *cfg) { c.sasl = &saslCfg{mech: m, user: user, password: password} })
}

// Logger sets where the Kafka client logs, overriding the default of not
// logging. Records are logged at the levels l enables.
func Logger(l *slog.Logger) Opt { return opt(func(c *cfg) { c.logger = l }) }

// Hooks adds kgo hooks to the sink's producer client, overriding the default of none: a
// metrics plugin such as franz-go's kprom, whose OnNewClient is called once when NewKafka
// builds the client. Readers built from [ClientOpts] do not get them, so one registry never
// sees two clients.
func Hooks(hooks ...kgo.Hook) Opt { return opt(func(c *cfg) { c.hooks = append(c.hooks, hooks...) }) }

// Ack is one acknowledged record, as [OnAck] hears it.
type Ack struct {
	Topic     string
	Partition int32
	Offset    int64
	// Due is the message's [Message.Due], or the time Send handed it to the client when
	// that was zero; Intended says which.
	Due      time.Time
	Intended bool
	// Warmup is the message's [Message.Warmup].
	Warmup bool
	// Key and Value are the message's bytes (a freshness follower reads a sampled message's
	// key from them); they are the record's own and valid only during the call: copy them to
	// keep them.
	Key, Value []byte
}

// OnAck sets a function the Kafka sink calls with every acknowledged record, overriding the
// default of none (a follower of consumer groups matches them against committed offsets).
// It is called from the client's promise goroutine, serially, records of one partition in
// the order the client finishes them; it must return at once.
func OnAck(f func(Ack)) Opt { return opt(func(c *cfg) { c.onAck = f }) }

// validate checks the configuration and loads TLS files. Its errors never
// contain the SASL password.
func (c *cfg) validate() error {
	var errs []error
	if len(c.brokers) == 0 {
		errs = append(errs, errors.New("no Kafka brokers given"))
	} else if err := Brokers(c.brokers).check(); err != nil {
		errs = append(errs, err)
	}
	if _, ok := c.compression.codec(); !ok {
		errs = append(errs, fmt.Errorf("unknown compression %q (want none, gzip, snappy, lz4 or zstd)", string(c.compression)))
	}
	if c.linger < 0 {
		errs = append(errs, fmt.Errorf("linger %v is negative", c.linger))
	}
	if c.maxBufferedRecords < 1 {
		errs = append(errs, fmt.Errorf("max buffered records %d, want at least 1", c.maxBufferedRecords))
	}
	if c.maxBufferedBytes < 0 {
		errs = append(errs, fmt.Errorf("max buffered bytes %d is negative", c.maxBufferedBytes))
	}
	if c.deliveryTimeout <= 0 {
		errs = append(errs, fmt.Errorf("delivery timeout %v, want > 0", c.deliveryTimeout))
	}
	if c.retries < -1 || c.retries == 0 {
		errs = append(errs, fmt.Errorf("retries %d, want at least 1, or -1 for unlimited", c.retries))
	}
	if c.connectTimeout <= 0 {
		errs = append(errs, fmt.Errorf("connect timeout %v, want > 0", c.connectTimeout))
	}
	if c.replicationFactor == 0 || c.replicationFactor < -1 {
		errs = append(errs, fmt.Errorf("replication factor %d, want at least 1, or -1 for the broker default", c.replicationFactor))
	}
	if c.sasl != nil {
		switch SASLMechanism(strings.ToUpper(string(c.sasl.mech))) {
		case SASLPlain, SASLScramSHA256, SASLScramSHA512:
			c.sasl.mech = SASLMechanism(strings.ToUpper(string(c.sasl.mech)))
		default:
			errs = append(errs, fmt.Errorf("unknown SASL mechanism %q (want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)", string(c.sasl.mech)))
		}
		if c.sasl.user == "" {
			errs = append(errs, errors.New("SASL user is empty"))
		}
		if c.sasl.password == "" {
			errs = append(errs, errors.New("SASL password is empty"))
		}
	}
	if c.tls != nil {
		tc, err := c.tls.build()
		if err != nil {
			errs = append(errs, err)
		}
		c.tlsCfg = tc
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("invalid Kafka configuration: %w", err)
	}
	return nil
}

// MaxPEMBytes bounds each TLS file read (a CA bundle, a client certificate, its key): a
// system's whole bundle of root certificates is about 200 KiB.
const MaxPEMBytes = 1 << 20

// readPEM returns data when the caller read the file already, else the file at path read as
// every input is: at most MaxPEMBytes, a stream within fileio.DefaultWait, until ctx ends.
func readPEM(ctx context.Context, data []byte, path string) ([]byte, error) {
	if data != nil || path == "" {
		return data, nil
	}
	return fileio.Read(ctx, path, fileio.Limit{Bytes: MaxPEMBytes})
}

// load reads the files t names whose contents it does not hold yet, until ctx ends.
func (t *TLSConfig) load(ctx context.Context) error {
	var err error
	if t.CA, err = readPEM(ctx, t.CA, t.CAFile); err != nil {
		return fmt.Errorf("TLS CA file: %w", err)
	}
	if t.Cert, err = readPEM(ctx, t.Cert, t.CertFile); err != nil {
		return fmt.Errorf("TLS client certificate: %w", err)
	}
	if t.Key, err = readPEM(ctx, t.Key, t.KeyFile); err != nil {
		return fmt.Errorf("TLS client key: %w", err)
	}
	return nil
}

func (t *TLSConfig) build() (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if err := t.load(context.Background()); err != nil {
		return nil, err
	}
	if t.CAFile != "" || t.CA != nil {
		pem := t.CA
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("TLS CA file %s holds no PEM certificate", t.CAFile)
		}
		tc.RootCAs = pool
	}
	if (t.CertFile == "") != (t.KeyFile == "") {
		return nil, errors.New("TLS client certificate and key must be given together")
	}
	if t.CertFile != "" || t.Cert != nil {
		cert, err := tls.X509KeyPair(t.Cert, t.Key)
		if err != nil {
			return nil, fmt.Errorf("TLS client certificate %s / key %s: %w", t.CertFile, t.KeyFile, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}

// String describes the configuration for logs. It never contains the SASL
// password.
func (c *cfg) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "brokers=%s client_id=%s compression=%s linger=%v max_buffered_records=%d max_buffered_bytes=%d delivery_timeout=%v",
		strings.Join(c.brokers, ","), c.clientID, c.compression, c.linger, c.maxBufferedRecords, c.maxBufferedBytes, c.deliveryTimeout)
	if c.retries < 0 {
		b.WriteString(" retries=unlimited")
	} else {
		b.WriteString(" retries=" + strconv.Itoa(c.retries))
	}
	fmt.Fprintf(&b, " connect_timeout=%v", c.connectTimeout)
	if c.tls == nil {
		b.WriteString(" tls=off")
	} else {
		b.WriteString(" tls=on")
		if c.tls.CAFile != "" {
			b.WriteString(" tls_ca=" + c.tls.CAFile)
		}
		if c.tls.CertFile != "" {
			b.WriteString(" tls_cert=" + c.tls.CertFile)
		}
	}
	if c.sasl == nil {
		b.WriteString(" sasl=off")
	} else {
		fmt.Fprintf(&b, " sasl=%s sasl_user=%s", c.sasl.mech, c.sasl.user)
	}
	return b.String()
}

// connOpts are the kgo options every client of ours needs to reach the
// brokers.
func (c *cfg) connOpts() []kgo.Opt {
	opts := []kgo.Opt{
		kgo.SeedBrokers(c.brokers...),
		kgo.ClientID(c.clientID),
		kgo.DialTimeout(c.connectTimeout),
	}
	if c.tlsCfg != nil {
		opts = append(opts, kgo.DialTLSConfig(c.tlsCfg))
	}
	if c.sasl != nil {
		opts = append(opts, kgo.SASL(c.sasl.mechanism()))
	}
	if c.logger != nil {
		opts = append(opts, kgo.WithLogger(kslog.New(c.logger)))
	}
	return opts
}

// producerOpts are the kgo options of the Kafka sink's producer.
func (c *cfg) producerOpts() []kgo.Opt {
	codec, _ := c.compression.codec()
	opts := []kgo.Opt{
		// Idempotence is kgo's default and stays on: retries never
		// duplicate or reorder records within a partition.
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerBatchCompression(codec),
		kgo.ProducerLinger(c.linger),
		// Our budget enforces the limits with a cancellable wait; kgo's
		// own limit is set above it so Produce itself never blocks.
		kgo.MaxBufferedRecords(2*c.maxBufferedRecords + 1),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)),
		kgo.RecordDeliveryTimeout(c.deliveryTimeout),
	}
	if c.retries > 0 {
		opts = append(opts, kgo.RecordRetries(c.retries))
	}
	if len(c.hooks) > 0 {
		opts = append(opts, kgo.WithHooks(c.hooks...))
	}
	return opts
}

func (s *saslCfg) mechanism() sasl.Mechanism {
	switch s.mech {
	case SASLPlain:
		return plain.Auth{User: s.user, Pass: s.password}.AsMechanism()
	case SASLScramSHA256:
		return scram.Auth{User: s.user, Pass: s.password}.AsSha256Mechanism()
	default:
		return scram.Auth{User: s.user, Pass: s.password}.AsSha512Mechanism()
	}
}

// ClientOpts returns the kgo options a reader of the topics needs to reach
// brokers with the connection settings of opts (TLS, SASL, ClientID,
// ConnectTimeout, Logger); brokers replaces any SeedBrokers and producer
// settings are ignored. The options are validated as [NewKafka] validates
// them.
func ClientOpts(brokers []string, opts ...Opt) ([]kgo.Opt, error) {
	c := defaultCfg()
	for _, o := range opts {
		o.apply(&c)
	}
	c.brokers = nil
	SeedBrokers(brokers...).apply(&c)
	if err := c.validate(); err != nil {
		return nil, err
	}
	return c.connOpts(), nil
}
