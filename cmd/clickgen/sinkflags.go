package main

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/reportfile"
	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/produce/sink"
)

// sinkFlags are the sink's settings (generator/produce/sink) with the run's outputs: --report,
// --metrics-addr, --metrics-linger and following consumer groups.
type sinkFlags struct {
	sink.Settings
	verb          string
	report        string
	reportArmed   bool // the report is written at the verb's end (checkFiles)
	reportDoc     any  // the report's document so far (keepReport)
	metricsAddr   string
	metricsLinger time.Duration
	follow        *followFlags
	verdict       *verdictFlags // nil on a verb without --threshold and --warmup
	storeFollow   *storeFollowFlags
}

// sinkKindField names the setting that chooses each kind of sink (sink.Kinds).
var sinkKindField = map[string]string{"file": "File", "Kafka": "Brokers"}

// checkSink checks the sink flags of a verb that sends to one topic or a file
// (sink.Settings.Check, the environment already read): exactly one of --file and --brokers,
// a topic with --brokers, the connection, no flag of another kind of sink (kindUsage), and
// then the run's outputs (checkOutputs). --replication-factor given without --create-topics
// is refused even at its default, -1, which the settings cannot tell from no choice: a flag
// given that does nothing is a mistake. Refusals name the flags.
func (b *binding) checkSink() error {
	s := &b.v.sink
	err := s.Check()
	if err == nil || errors.Is(err, sink.ErrReplicationNoCreation) {
		// A flag of another kind of sink is refused as such: --replication-factor with --file
		// wants no --create-topics, which a file does not take either.
		if kerr := b.kindUsage(); kerr != nil {
			return b.usage(kerr)
		}
	}
	if err == nil && b.set("replication-factor") && !s.CreateTopics {
		err = sink.ErrReplicationNoCreation
	}
	if err != nil {
		return b.refuse(err)
	}
	return b.checkOutputs()
}

// checkRunSink checks the sink flags of run, which chooses its brokers itself (--brokers,
// KAFKA_BOOTSTRAP_SERVERS or an embedded broker): the connection settings alone
// (sink.Settings.Validate), TLS and SASL only with brokers of the user's, and the outputs.
func (b *binding) checkRunSink() error {
	s := &b.v.sink
	if !s.Kafka() && (s.TLS || s.TLSCA != "" || s.TLSCert != "" || s.SASLMechanism != "") {
		return usagef(s.verb, "TLS and SASL flags need --brokers: the embedded broker speaks plaintext")
	}
	err := s.Validate()
	if err == nil && b.set("replication-factor") && !s.CreateTopics {
		err = sink.ErrReplicationNoCreation
	}
	if err != nil {
		return b.refuse(err)
	}
	return b.checkOutputs()
}

// settingFields are the fields of sink.Settings a flag can set.
var settingFields = func() map[string]bool {
	m := map[string]bool{}
	for f := range reflect.TypeFor[sink.Settings]().Fields() {
		m[f.Name] = f.IsExported()
	}
	return m
}()

// kindUsage refuses a sink flag (or the variable that set it) given for a kind of sink it
// does not apply to (sink.Kind.Applies): --create-topics and --replication-factor used to be
// accepted with --file and do nothing.
func (b *binding) kindUsage() error {
	k, err := b.v.sink.Kind()
	if err != nil {
		return nil // Check said so already
	}
	for _, r := range b.rows {
		if r.name == "" || !settingFields[r.field] || !b.set(r.name) || k.Applies(r.field) {
			continue
		}
		var to []string
		for _, other := range sink.Kinds() {
			if other.Applies(r.field) {
				to = append(to, other.Name+" ("+b.name(sinkKindField[other.Name])+")")
			}
		}
		return fmt.Errorf("--%s applies to %s, not to a %s (%s)", r.name, strings.Join(to, " and "), k.Name, b.name(sinkKindField[k.Name]))
	}
	return nil
}

// checkOutputs checks the run's outputs before anything is sent: an unwritable report must
// not be found only after a day was sent (a scheduler then retries and duplicates the run);
// whether it is also the data file or an input is checkPaths' to say, with the run's other
// files. Then --metrics-linger, the followed groups and --metrics-addr.
func (b *binding) checkOutputs() error {
	s := &b.v.sink
	if s.report != "" {
		if err := reportfile.Check(s.report); err != nil {
			return usagef(s.verb, "--report %s: %v", s.report, err)
		}
	}
	// The data file is checked the same way, so that one on a read-only filesystem is exit 2
	// before anything is sent, as a report there is (it was exit 1 once the run was planned).
	if s.File != "" && s.File != "-" {
		if err := fileio.CheckWrite(s.File); err != nil {
			return usagef(s.verb, "--file %s: %v", s.File, err)
		}
	}
	switch {
	case s.metricsLinger < 0:
		return usagef(s.verb, "--metrics-linger %v: want a duration ≥ 0", s.metricsLinger)
	case s.metricsLinger > 0 && s.metricsAddr == "":
		return usagef(s.verb, "--metrics-linger needs --metrics-addr: there is nothing to serve")
	}
	if b.row("follow-group") != nil {
		kind, _ := s.Kind()
		if err := b.checkFollow(kind); err != nil {
			return err
		}
		if err := b.checkStoreFollow(); err != nil {
			return err
		}
	}
	return b.usage(checkMetricsAddr(s.metricsAddr))
}

// kafkaCauseHint names the flags that fix a failed connection check told by its cause
// (sink.ProtocolError, sink.CertificateError); "" for other errors.
func kafkaCauseHint(err error) string {
	var pe *sink.ProtocolError
	var ce *sink.CertificateError
	switch {
	case errors.As(err, &pe) && pe.Mismatch == sink.MismatchClientTLS:
		return "drop --tls, --tls-ca, --tls-cert and --tls-key, or give the TLS listener's port in --brokers"
	case errors.As(err, &pe) && pe.Mismatch == sink.MismatchListenerTLS:
		return "add --tls (and --tls-ca when a CA of your own signed its certificate), or give the listener without TLS in --brokers"
	case errors.As(err, &pe):
		return "--sasl-mechanism and --sasl-user, the password in env " + sinkPasswordEnv
	case errors.As(err, &ce) && ce.Client:
		return "--tls-cert and --tls-key give this client's certificate"
	case errors.As(err, &ce):
		return "--tls-ca names the CA that signed the brokers' certificate"
	}
	return ""
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
	if hint := kafkaCauseHint(err); hint != "" {
		return fmt.Errorf("%w (%s)", err, hint)
	}
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
