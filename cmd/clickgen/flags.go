package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/pace"
	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
)

// worldFlags choose the world: seed, scale and catalog.
type worldFlags struct {
	fs      *pflag.FlagSet
	seed    uint64
	scale   float64
	catalog string
	maxMem  play.Bytes
}

func addWorldFlags(fs *pflag.FlagSet) *worldFlags {
	wf := &worldFlags{fs: fs}
	fs.Uint64Var(&wf.seed, "seed", world.CanonicalSeed, "world seed (env GENERATOR_SEED)")
	fs.Float64Var(&wf.scale, "scale", 1, "multiply the inflow of new visitors (and events per day) by this factor")
	fs.Var(&wf.maxMem, "max-memory", "refuse the run if its estimated memory exceeds this `SIZE` (e.g. 4GiB); the cgroup limit and available memory always apply")
	fs.StringVar(&wf.catalog, "catalog", "", "catalog CSV `FILE` (sku,name,category,brand,price[,demand]) instead of the embedded one (env GENERATOR_CATALOG)")
	return wf
}

// world builds the world for a run with garbage g (it sets the soft memory limit they need);
// a bad value or catalog is a usage error (nothing was sent).
func (wf *worldFlags) world(g world.Garbage) (*world.World, error) {
	if err := envFallback(wf.fs, "seed", "GENERATOR_SEED", "catalog", "GENERATOR_CATALOG"); err != nil {
		return nil, err
	}
	p := world.Params{Seed: wf.seed, Scale: wf.scale}
	if wf.seed == 0 {
		return nil, usagef(wf.fs.Name(), "--seed 0: %v", world.ErrZeroSeed)
	}
	if wf.scale <= 0 {
		return nil, usagef(wf.fs.Name(), "--scale %v: want a positive factor", wf.scale)
	}
	c, err := loadCatalog(wf.fs.Name(), "--catalog", wf.catalog)
	if err != nil {
		return nil, err
	}
	p.Catalog = c
	w, err := world.NewWorld(p)
	if err != nil {
		return nil, usagef(wf.fs.Name(), "%v", err)
	}
	setMemoryLimit(wf.scale, g)
	return w, nil
}

// loadCatalog reads and parses the catalog file at path (nil for ""), as a usage error
// naming what (the flag or profile field) and, for a bad file, the line and column.
func loadCatalog(verb, what, path string) (*world.Catalog, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef(verb, "%s: %v", what, err)
	}
	c, err := world.ParseCatalog(data)
	if err != nil {
		return nil, usagef(verb, "%s %s: %v", what, path, err)
	}
	return c, nil
}

// setMemoryLimit sets the soft memory limit a run at scale with garbage g needs
// ([world.SoftMemoryLimit]); GOMEMLIMIT overrides it.
func setMemoryLimit(scale float64, g world.Garbage) {
	if envSet("GOMEMLIMIT") {
		return
	}
	debug.SetMemoryLimit(world.SoftMemoryLimit(scale, g))
}

// dayFlags are --day and --days with the stand's environment fallbacks.
type dayFlags struct {
	fs   *pflag.FlagSet
	day  int
	days int
}

// addDayFlags adds --day and, unless daysHelp is empty (live plays one day), --days.
func addDayFlags(fs *pflag.FlagSet, daysHelp string) *dayFlags {
	df := &dayFlags{fs: fs, days: 1}
	fs.IntVar(&df.day, "day", 0, "first model day D (0 = Monday 2026-06-01); required (env GENERATOR_DAY)")
	if daysHelp != "" {
		fs.IntVar(&df.days, "days", 1, daysHelp+" (env GENERATOR_DAYS)")
	}
	return df
}

func (df *dayFlags) resolve() error {
	fallbacks := []string{"day", "GENERATOR_DAY"}
	if df.fs.Lookup("days") != nil {
		fallbacks = append(fallbacks, "days", "GENERATOR_DAYS")
	}
	if err := envFallback(df.fs, fallbacks...); err != nil {
		return err
	}
	env := envSet("GENERATOR_DAY")
	if !df.fs.Changed("day") && !env {
		return usagef(df.fs.Name(), "--day is required (there is no default model day)")
	}
	if df.day < 0 {
		return usagef(df.fs.Name(), "--day %d: model days start at 0", df.day)
	}
	if df.days < 1 {
		return usagef(df.fs.Name(), "--days %d: want at least 1", df.days)
	}
	return checkDays(df.fs.Name(), df.day, df.days)
}

// playFlags are the flags every verb that plays into a sink shares (batch, live, snapshot):
// the world, the model days, garbage and the sink. inventory uses them without the sink.
type playFlags struct {
	fs      *pflag.FlagSet
	world   *worldFlags
	days    *dayFlags
	garbage *garbageFlags
	sink    *sinkFlags // nil without a sink
	seg     *segmentFlags
	// segment is the share of the run chosen by --segment or --segments (after parse).
	segment world.Segment
}

func addPlayFlags(fs *pflag.FlagSet, daysHelp string, withSink bool) *playFlags {
	pf := &playFlags{fs: fs, world: addWorldFlags(fs), days: addDayFlags(fs, daysHelp)}
	pf.garbage = addGarbageFlags(fs)
	pf.seg = addSegmentFlags(fs)
	if withSink {
		pf.sink = addSinkFlags(fs)
	}
	return pf
}

// parse reads args and checks every flag and environment fallback, with the verb's own
// checks (check, may be nil) after the days: any mistake is a usage error before anything
// is sent.
func (pf *playFlags) parse(args []string, out io.Writer, check func() error) (*world.World, world.Garbage, error) {
	var g world.Garbage
	if err := parseFlags(pf.fs, args, out); err != nil {
		return nil, g, err
	}
	if err := noArgs(pf.fs); err != nil {
		return nil, g, err
	}
	if err := pf.days.resolve(); err != nil {
		return nil, g, err
	}
	if check != nil {
		if err := check(); err != nil {
			return nil, g, err
		}
	}
	var err error
	if pf.segment, err = pf.seg.resolve(); err != nil {
		return nil, g, err
	}
	g, err = pf.garbage.resolve()
	if err != nil {
		return nil, g, err
	}
	if pf.sink != nil {
		if err := pf.sink.resolve(); err != nil {
			return nil, g, err
		}
	}
	if err := checkMemory(pf.fs.Name(), pf.world.scale, g, pf.world.maxMem); err != nil {
		return nil, g, err
	}
	w, err := pf.world.world(g)
	return w, g, err
}

// start opens the sink for topic kind (hits or orders: the default topic name and the
// partitions a created topic gets) and returns the player and the topic to send to.
func (pf *playFlags) start(ctx context.Context, sio *stdio, kind string) (*player, string, error) {
	topic := pf.sink.topic
	if topic == "" {
		topic = kind
	}
	if err := checkTopicKind(pf.fs.Name(), topic, kind); err != nil {
		return nil, "", err
	}
	snk, err := pf.sink.open(ctx, sio.out, sio.err, sink.DefaultTopics()[kind])
	if err != nil {
		return nil, "", err
	}
	return newPlayer(sio, snk, pf.sink.flushTimeout, 0), topic, nil
}

// sinkFlags choose where messages go: a file (or stdout) or Kafka.
type sinkFlags struct {
	fs              *pflag.FlagSet
	file            string
	brokers         sink.Brokers
	topic           string
	createTopics    bool
	compression     sink.Compression
	linger          time.Duration
	connectTimeout  time.Duration
	flushTimeout    time.Duration
	deliveryTimeout time.Duration
	tls             bool
	tlsCA           string
	tlsCert         string
	tlsKey          string
	saslMechanism   string
	saslUser        string
	report          string
	metricsAddr     string
}

// passwordEnv holds the SASL password: secrets never travel as flags.
const passwordEnv = "CLICKGEN_SASL_PASSWORD"

func addSinkFlags(fs *pflag.FlagSet) *sinkFlags {
	sf := &sinkFlags{fs: fs, compression: sink.CompressionLZ4}
	fs.StringVar(&sf.file, "file", "", "write messages to `PATH`, one per line ('-' is stdout) (env GENERATOR_FILE)")
	fs.Var(&sf.brokers, "brokers", "Kafka bootstrap `HOSTS`, comma-separated (env KAFKA_BOOTSTRAP_SERVERS)")
	fs.StringVar(&sf.topic, "topic", "", "Kafka topic (env KAFKA_TOPIC)")
	fs.BoolVar(&sf.createTopics, "create-topics", false, "create missing topics (hits with 2 partitions, orders with 1)")
	fs.Var(&sf.compression, "compression", "batch compression: none, gzip, snappy, lz4 or zstd")
	fs.DurationVar(&sf.linger, "linger", 10*time.Millisecond, "how long a partition waits for more records before sending a batch")
	fs.DurationVar(&sf.connectTimeout, "connect-timeout", 10*time.Second, "fail if the brokers cannot be reached within this time")
	fs.DurationVar(&sf.deliveryTimeout, "delivery-timeout", 2*time.Minute, "fail the run when the brokers acknowledge nothing for this long (a broker that died)")
	fs.DurationVar(&sf.flushTimeout, "flush-timeout", 60*time.Second, "how long to wait for acknowledgements at the end of a day (and after Ctrl-C)")
	fs.BoolVar(&sf.tls, "tls", false, "connect to the brokers over TLS")
	fs.StringVar(&sf.tlsCA, "tls-ca", "", "CA certificate `FILE` to verify the brokers with (implies --tls)")
	fs.StringVar(&sf.tlsCert, "tls-cert", "", "client certificate `FILE` (implies --tls; needs --tls-key)")
	fs.StringVar(&sf.tlsKey, "tls-key", "", "client key `FILE` (implies --tls; needs --tls-cert)")
	fs.StringVar(&sf.saslMechanism, "sasl-mechanism", "", "SASL mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (password from env "+passwordEnv+")")
	fs.StringVar(&sf.saslUser, "sasl-user", "", "SASL user name")
	fs.StringVar(&sf.report, "report", "", "write the final report as JSON to `FILE`")
	addMetricsFlag(fs, &sf.metricsAddr)
	return sf
}

// resolve applies the environment fallbacks and checks the combination: exactly one of --file
// and --brokers, and a topic with --brokers.
func (sf *sinkFlags) resolve() error {
	verb := sf.fs.Name()
	envFile := envSet("GENERATOR_FILE")
	envBrokers := envSet("KAFKA_BOOTSTRAP_SERVERS")
	if sf.fs.Changed("file") && sf.fs.Changed("brokers") {
		return usagef(verb, "both --file and --brokers given: choose one sink")
	}
	if !sf.fs.Changed("brokers") && !(envBrokers && sf.fs.Changed("file")) {
		if err := envFallback(sf.fs, "file", "GENERATOR_FILE"); err != nil {
			return err
		}
	}
	if !sf.fs.Changed("file") && !(envFile && sf.fs.Changed("brokers")) {
		if err := envFallback(sf.fs, "brokers", "KAFKA_BOOTSTRAP_SERVERS"); err != nil {
			return err
		}
	}
	if err := envFallback(sf.fs, "topic", "KAFKA_TOPIC"); err != nil {
		return err
	}
	switch {
	case sf.file != "" && len(sf.brokers) > 0:
		return usagef(verb, "both a file (%s) and brokers (%s) are set, by flags or environment: choose one sink", sf.file, sf.brokers)
	case sf.file == "" && len(sf.brokers) == 0:
		return usagef(verb, "no sink: give --file PATH (or '-' for stdout) or --brokers HOSTS --topic T")
	case len(sf.brokers) > 0 && sf.topic == "":
		return usagef(verb, "--brokers needs --topic (or env KAFKA_TOPIC)")
	}
	if (sf.tlsCert == "") != (sf.tlsKey == "") {
		return usagef(verb, "--tls-cert and --tls-key go together")
	}
	if sf.saslMechanism != "" {
		if sf.saslUser == "" {
			return usagef(verb, "--sasl-mechanism needs --sasl-user")
		}
		if !envSet(passwordEnv) {
			return usagef(verb, "--sasl-mechanism needs the password in env %s", passwordEnv)
		}
	}
	if sf.connectTimeout <= 0 || sf.flushTimeout <= 0 || sf.deliveryTimeout <= 0 {
		return usagef(verb, "--connect-timeout, --delivery-timeout and --flush-timeout must be positive")
	}
	if err := checkSinkFlags(verb, sf); err != nil {
		return err
	}
	return checkMetricsAddr(verb, sf.metricsAddr)
}

// workers is the number of render workers for --workers n: n itself when set, otherwise
// what suits the sink (all cores but one when a Kafka client needs one, see play.Workers).
// It is decided from the flags, not from the sink's type, so wrapping the sink (metrics)
// does not change it.
func (sf *sinkFlags) workers(n int) int {
	if n > 0 {
		return n
	}
	return play.Workers(len(sf.brokers) > 0)
}

// dial connects Kafka with the flags' options and extra, checking (or with --create-topics
// creating) the topics of want; warnings go to stderr, bad options are usage errors.
func (sf *sinkFlags) dial(ctx context.Context, want map[string]int32, stderr io.Writer, extra []sink.Opt) (sink.Sink, error) {
	k, err := sink.Dial(ctx, sf.createTopics, want, func(w string) { fmt.Fprintf(stderr, "clickgen: warning: %s\n", w) },
		append(sf.kafkaOpts(), extra...)...)
	var ce *sink.ConfigError
	if errors.As(err, &ce) {
		return nil, usagef(sf.fs.Name(), "%v", ce.Err)
	}
	if err != nil {
		return nil, err
	}
	return k, nil
}

// kafkaOpts are the connection options of --brokers and the TLS/SASL flags.
func (sf *sinkFlags) kafkaOpts() []sink.Opt {
	opts := []sink.Opt{
		sink.SeedBrokers(sf.brokers...),
		sink.BatchCompression(sf.compression),
		sink.Linger(sf.linger),
		sink.ConnectTimeout(sf.connectTimeout),
		sink.DeliveryTimeout(sf.deliveryTimeout),
	}
	if sf.tls || sf.tlsCA != "" || sf.tlsCert != "" {
		opts = append(opts, sink.TLS(sink.TLSConfig{CAFile: sf.tlsCA, CertFile: sf.tlsCert, KeyFile: sf.tlsKey}))
	}
	if sf.saslMechanism != "" {
		opts = append(opts, sink.SASL(sink.SASLMechanism(sf.saslMechanism), sf.saslUser, os.Getenv(passwordEnv)))
	}
	return opts
}

// open connects the sink, serving its metrics with --metrics-addr. partitions is what the
// topic should have when it is created.
func (sf *sinkFlags) open(ctx context.Context, stdout, stderr io.Writer, partitions int32) (sink.Sink, error) {
	return withMetrics(sf.fs.Name(), sf.metricsAddr, stderr, func(extra ...sink.Opt) (sink.Sink, error) {
		return sf.openSink(ctx, stdout, stderr, partitions, extra...)
	})
}

func (sf *sinkFlags) openSink(ctx context.Context, stdout, stderr io.Writer, partitions int32, extra ...sink.Opt) (sink.Sink, error) {
	if sf.file != "" {
		if sf.file == "-" {
			return sink.NewWriter(stdout, sink.WriterOptions{})
		}
		w, err := sink.CreateFile(sf.file, sink.WriterOptions{})
		if err != nil {
			return nil, fmt.Errorf("--file: %w", err)
		}
		return w, nil
	}
	return sf.dial(ctx, map[string]int32{sf.topic: partitions}, stderr, extra)
}

// garbageFlags add malformed messages and redeliveries to the clean streams. The flags fill
// the garbage settings directly; --garbage-mix is parsed when it is set.
type garbageFlags struct {
	fs *pflag.FlagSet
	g  world.Garbage
}

func addGarbageFlags(fs *pflag.FlagSet) *garbageFlags {
	gf := &garbageFlags{fs: fs}
	fs.Float64Var(&gf.g.Rate, "garbage", 0, "add this many malformed messages per clean message (0.01 = one in a hundred)")
	fs.Var(&gf.g.Mix, "garbage-mix", "weights of garbage classes, e.g. not_an_object=2,keyset_mismatch=1,field_invalid=1; classes: "+
		strings.Join(world.AllGarbageClasses(), ", ")+" (accepted_bad and vanishing only when named)")
	fs.Float64Var(&gf.g.Redeliver, "redeliver", 0, "add this many byte-identical re-sends per clean message (at-least-once delivery)")
	return gf
}

func (gf *garbageFlags) resolve() (world.Garbage, error) {
	if gf.fs.Changed("garbage-mix") && gf.g.Rate == 0 {
		return gf.g, usagef(gf.fs.Name(), "--garbage-mix without --garbage: the mix weighs garbage that is not being made")
	}
	if err := gf.g.Validate(); err != nil {
		return gf.g, usagef(gf.fs.Name(), "%v", err)
	}
	return gf.g, nil
}

// addMaxRateFlag adds --max-rate, a ceiling on the rate; zero (the default) means none.
func addMaxRateFlag(fs *pflag.FlagSet, r *pace.Rate, usage string) {
	fs.Var(r, "max-rate", usage)
	// No ceiling is the zero Rate, whose String is "0/s"; the help should not offer it as a
	// default rate.
	fs.Lookup("max-rate").DefValue = ""
}
