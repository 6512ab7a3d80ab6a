package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/sink"
)

// The environment variables the sink flags fall back to, as the stand's containers set them,
// and the one that holds the SASL password: secrets never travel as flags.
const (
	sinkFileEnv     = "GENERATOR_FILE"
	sinkBrokersEnv  = "KAFKA_BOOTSTRAP_SERVERS"
	sinkTopicEnv    = "KAFKA_TOPIC"
	sinkPasswordEnv = "CLICKGEN_SASL_PASSWORD"
)

// sinkSendOnlyFlags are the sink flags that mean nothing to a verb that only reads topics
// (verify): it hides them from its help, and resolveRead refuses them.
var sinkSendOnlyFlags = []string{"file", "topic", "create-topics", "replication-factor", "compression", "linger", "flush-timeout", "metrics-addr"}

// addSettingFlags registers the sink's settings (sink.Settings) as flags on fs, with
// sink.DefaultSettings as their defaults, and remembers fs, so resolving can tell a flag
// that was given from one that was not.
func (sf *sinkFlags) addSettingFlags(fs *pflag.FlagSet) {
	s := &sf.Settings
	sf.fs, *s = fs, sink.DefaultSettings()
	fs.StringVar(&s.File, "file", "", "write messages to `PATH`, one per line ('-' is stdout) (env "+sinkFileEnv+")")
	fs.Var(&s.Brokers, "brokers", "Kafka bootstrap `HOSTS`, comma-separated (env "+sinkBrokersEnv+")")
	fs.StringVar(&s.Topic, "topic", "", "Kafka topic (env "+sinkTopicEnv+")")
	fs.BoolVar(&s.CreateTopics, "create-topics", false, "create missing topics (hits with 2 partitions, orders with 1); an existing topic is left as it is")
	fs.Int16Var(&s.Replication, "replication-factor", s.Replication, "replication factor of topics --create-topics creates; -1 is the brokers' default.replication.factor")
	fs.Var(&s.Compression, "compression", "batch compression: none, gzip, snappy, lz4 or zstd")
	fs.DurationVar(&s.Linger, "linger", s.Linger, "how long a partition waits for more records before sending a batch")
	fs.DurationVar(&s.ConnectTimeout, "connect-timeout", s.ConnectTimeout, "fail if the brokers cannot be reached within this time")
	fs.DurationVar(&s.DeliveryTimeout, "delivery-timeout", s.DeliveryTimeout, "fail the run when the brokers acknowledge nothing for this long (a broker that died)")
	fs.DurationVar(&s.FlushTimeout, "flush-timeout", s.FlushTimeout, "how long to wait for acknowledgements at the end of a day (and after Ctrl-C)")
	fs.BoolVar(&s.TLS, "tls", false, "connect to the brokers over TLS")
	fs.StringVar(&s.TLSCA, "tls-ca", "", "CA certificate `FILE` to verify the brokers with (implies --tls)")
	fs.StringVar(&s.TLSCert, "tls-cert", "", "client certificate `FILE` (implies --tls; needs --tls-key)")
	fs.StringVar(&s.TLSKey, "tls-key", "", "client key `FILE` (implies --tls; needs --tls-cert)")
	fs.StringVar(&s.SASLMechanism, "sasl-mechanism", "", "SASL mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (password from env "+sinkPasswordEnv+")")
	fs.StringVar(&s.SASLUser, "sasl-user", "", "SASL user name")
}

// resolveSettings fills what the command line left unset from the environment (env, an
// empty value counting as unset) and checks the combination for a verb that sends to one
// topic or a file (sink.Settings.Check): exactly one of --file and --brokers, a topic with
// --brokers, the connection, and no flag of another kind of sink (kindUsage). A flag beats the other sink's variable: --brokers ignores
// GENERATOR_FILE and --file ignores KAFKA_BOOTSTRAP_SERVERS; GENERATOR_FILE beats
// KAFKA_BOOTSTRAP_SERVERS. Every error is worded for the command line.
func (sf *sinkFlags) resolveSettings(env envLookup) error {
	fs := sf.fs
	if fs.Changed("file") && fs.Changed("brokers") {
		return errors.New("both --file and --brokers given: choose one sink")
	}
	// A variable that sets a flag marks it given, so GENERATOR_FILE keeps
	// KAFKA_BOOTSTRAP_SERVERS out as --file would.
	if !fs.Changed("brokers") {
		if err := setFromEnv(fs, env, "file", sinkFileEnv); err != nil {
			return err
		}
	}
	if !fs.Changed("file") {
		if err := setFromEnv(fs, env, "brokers", sinkBrokersEnv); err != nil {
			return err
		}
	}
	if err := setFromEnv(fs, env, "topic", sinkTopicEnv); err != nil {
		return err
	}
	sf.SASLPassword = sinkPassword(env)
	err := sf.Check()
	if err == nil || errors.Is(err, sink.ErrReplicationNoCreation) {
		// A flag of another kind of sink is refused as such: --replication-factor with --file
		// wants no --create-topics, which a file does not take either.
		if kerr := sf.kindUsage(); kerr != nil {
			return kerr
		}
	}
	return sf.settingsUsage(err)
}

// sinkSettingFlags name the flag of each sink setting (the fields of sink.Settings), in the
// order of --help; the SASL password has none (env CLICKGEN_SASL_PASSWORD).
var sinkSettingFlags = []struct{ setting, flag string }{
	{"File", "file"}, {"Brokers", "brokers"}, {"Topic", "topic"}, {"CreateTopics", "create-topics"},
	{"Replication", "replication-factor"}, {"Compression", "compression"}, {"Linger", "linger"},
	{"ConnectTimeout", "connect-timeout"}, {"DeliveryTimeout", "delivery-timeout"}, {"FlushTimeout", "flush-timeout"},
	{"TLS", "tls"}, {"TLSCA", "tls-ca"}, {"TLSCert", "tls-cert"}, {"TLSKey", "tls-key"},
	{"SASLMechanism", "sasl-mechanism"}, {"SASLUser", "sasl-user"},
}

// sinkKindFlags name the flag that chooses each kind of sink (sink.Kinds).
var sinkKindFlags = map[string]string{"file": "--file", "Kafka": "--brokers"}

// kindUsage refuses a sink flag (or the variable that set it) given for a kind of sink it
// does not apply to (sink.Kind.Applies): --create-topics and --replication-factor used to be
// accepted with --file and do nothing.
func (sf *sinkFlags) kindUsage() error {
	k, err := sf.Kind()
	if err != nil {
		return nil // Check said so already
	}
	for _, f := range sinkSettingFlags {
		if !sf.fs.Changed(f.flag) || k.Applies(f.setting) {
			continue
		}
		var to []string
		for _, other := range sink.Kinds() {
			if other.Applies(f.setting) {
				to = append(to, other.Name+" ("+sinkKindFlags[other.Name]+")")
			}
		}
		return fmt.Errorf("--%s applies to %s, not to a %s (%s)", f.flag, strings.Join(to, " and "), k.Name, sinkKindFlags[k.Name])
	}
	return nil
}

// resolveRead is resolveSettings for a verb that only reads topics (verify): --brokers (or
// KAFKA_BOOTSTRAP_SERVERS) is required, and a flag that applies only to sending
// (sinkSendOnlyFlags) is refused, naming verb. topic is the first topic to be read.
func (sf *sinkFlags) resolveRead(env envLookup, verb, topic string) error {
	for _, name := range sinkSendOnlyFlags {
		if sf.fs.Changed(name) {
			return fmt.Errorf("--%s does not apply: %s only reads", name, verb)
		}
	}
	if err := setFromEnv(sf.fs, env, "brokers", sinkBrokersEnv); err != nil {
		return err
	}
	if len(sf.Brokers) == 0 {
		return errors.New("--brokers HOSTS is required (or env " + sinkBrokersEnv + ")")
	}
	sf.Topic = topic
	return sf.resolveSettings(env)
}

// validateSettings checks the connection settings alone (sink.Settings.Validate), for a verb
// that chooses the brokers itself (run), the SASL password read from env.
func (sf *sinkFlags) validateSettings(env envLookup) error {
	sf.SASLPassword = sinkPassword(env)
	return sf.settingsUsage(sf.Validate())
}

// TopicFor is the topic verb sends kind ("hits" or "orders") to: --topic, or else kind's
// own name (sink.Settings.TopicOf); the other kind's topic is refused, naming --topic.
func (sf *sinkFlags) TopicFor(verb, kind string) (string, error) {
	topic, err := sf.TopicOf(kind)
	if te := (*sink.TopicError)(nil); errors.As(err, &te) {
		return "", fmt.Errorf("--topic %s: %s sends %s, and topic %s is for %s", te.Topic, verb, te.Kind, te.Topic, te.For)
	}
	return topic, err
}

// settingsUsage words err, sink.Settings' refusal of the settings, for the command line:
// which flags (or variables) carried the values it names. --replication-factor given
// without --create-topics is refused even at its default, -1, which the settings cannot
// tell from no choice: a flag given that does nothing is a mistake.
func (sf *sinkFlags) settingsUsage(err error) error {
	s := &sf.Settings
	if err == nil && sf.fs.Changed("replication-factor") && !s.CreateTopics {
		err = sink.ErrReplicationNoCreation
	}
	var msg string
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sink.ErrTwoSinks):
		msg = fmt.Sprintf("both a file (%s) and brokers (%s) are set, by flags or environment: choose one sink", s.File, s.Brokers)
	case errors.Is(err, sink.ErrNoSink):
		msg = "no sink: give --file PATH (or '-' for stdout) or --brokers HOSTS --topic T"
	case errors.Is(err, sink.ErrNoTopic):
		msg = "--brokers needs --topic (or env " + sinkTopicEnv + ")"
	case errors.Is(err, sink.ErrTLSPair):
		msg = "--tls-cert and --tls-key go together"
	case errors.Is(err, sink.ErrSASLNoUser):
		msg = "--sasl-mechanism needs --sasl-user"
	case errors.Is(err, sink.ErrSASLNoPassword):
		msg = "--sasl-mechanism needs the password in env " + sinkPasswordEnv
	case errors.Is(err, sink.ErrTimeouts):
		msg = "--connect-timeout, --delivery-timeout and --flush-timeout must be positive"
	case errors.Is(err, sink.ErrLinger):
		msg = fmt.Sprintf("--linger %v: want 0 or more", s.Linger)
	case errors.Is(err, sink.ErrReplication):
		msg = fmt.Sprintf("--replication-factor %d: want at least 1, or -1 for the brokers' default", s.Replication)
	case errors.Is(err, sink.ErrReplicationNoCreation):
		msg = "--replication-factor applies to the topics --create-topics creates: add --create-topics"
	case errors.Is(err, sink.ErrSecureFile):
		msg = "TLS and SASL flags apply to --brokers, not --file"
	case errors.Is(err, sink.ErrSASLNoMechanism):
		msg = "--sasl-user needs --sasl-mechanism (PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512)"
	default:
		return err
	}
	return errors.New(msg)
}

// sinkWarning words w, a topic Kafka has with another partition count, for the command
// line: which flag verify then needs.
func sinkWarning(w sink.PartitionsWarning) string {
	return fmt.Sprintf("topic %s has %d partitions, want %d: keys are placed by murmur2 over %d partitions, not the %d the stand expects "+
		"(an existing topic is left as it is, with --create-topics too); clickgen verify checks it with --hits-partitions %d (--orders-partitions %d for orders)",
		w.Topic, w.Has, w.Want, w.Has, w.Want, w.Has, w.Has)
}

// sinkError words err, a failure to connect to Kafka or to find its topics, for the
// command line: the flag to drop or add. Other errors stay as they are.
func sinkError(err error) error {
	var nl *sink.NoSASLListenerError
	var mt *sink.MissingTopicsError
	var ll *sink.LeaderlessError
	switch {
	case errors.As(err, &nl):
		return fmt.Errorf("Kafka at %s %s (mechanism %s, user %q) and answers without SASL: it has no SASL listener on this port (drop --sasl-mechanism, or give the SASL listener's port): %w",
			nl.Brokers, nl.What, nl.Mechanism, nl.User, nl.Err)
	case errors.As(err, &mt):
		return fmt.Errorf("sink: topic(s) %s missing on %s: create them, or use --create-topics", mt.List(), mt.Brokers)
	case errors.As(err, &ll):
		return fmt.Errorf("%w (--connect-timeout bounds the wait)", err)
	}
	return err
}

// sinkPassword is the SASL password from env's CLICKGEN_SASL_PASSWORD ("" when unset).
func sinkPassword(env envLookup) string {
	v, _ := env(sinkPasswordEnv)
	return v
}
