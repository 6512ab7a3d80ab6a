package sink

import (
	"errors"
	"fmt"

	"github.com/clickgen/clickgen/generator/field"
)

// Explain words err, a failure to connect to Kafka or to find its topics, for a caller that
// names the settings its own way (names, as field.Names: Brokers, CreateTopics,
// SASLMechanism, ConnectTimeout): what to drop or add, and which setting bounds a wait that
// ran out. Other errors are returned as they are; errors.Is and errors.As still find err.
func Explain(err error, names field.Names) error {
	var nl *NoSASLListenerError
	var mt *MissingTopicsError
	var ll *LeaderlessError
	if hint := CauseHint(err, names); hint != "" {
		return &explained{fmt.Sprintf("%v (%s)", err, hint), err}
	}
	switch {
	case errors.As(err, &nl):
		return &explained{fmt.Sprintf("Kafka at %s %s (mechanism %s, user %q) and answers without SASL: it has no SASL listener on this port (drop %s, or give the SASL listener's port): %v",
			nl.Brokers, nl.What, nl.Mechanism, nl.User, field.Name(names, "SASLMechanism", "the SASL mechanism"), nl.Err), err}
	case errors.As(err, &mt):
		return &explained{fmt.Sprintf("sink: topic(s) %s missing on %s: create them, or use %s", mt.List(), mt.Brokers,
			field.Name(names, "CreateTopics", "topic creation")), err}
	case errors.As(err, &ll):
		return &explained{fmt.Sprintf("%v (%s bounds the wait)", err, field.Name(names, "ConnectTimeout", "the connect timeout")), err}
	}
	return err
}

// CauseHint names the settings that fix a failed connection told by its cause
// ([ProtocolError], [CertificateError]), as names names them; "" for other errors.
func CauseHint(err error, names field.Names) string {
	var pe *ProtocolError
	var ce *CertificateError
	n := func(key, words string) string { return field.Name(names, key, words) }
	switch {
	case errors.As(err, &pe) && pe.Mismatch == MismatchClientTLS:
		return fmt.Sprintf("drop %s, %s, %s and %s, or give the TLS listener's port in %s",
			n("TLS", "TLS"), n("TLSCA", "the CA"), n("TLSCert", "the certificate"), n("TLSKey", "the key"), n("Brokers", "the brokers"))
	case errors.As(err, &pe) && pe.Mismatch == MismatchListenerTLS:
		return fmt.Sprintf("add %s (and %s when a CA of your own signed its certificate), or give the listener without TLS in %s",
			n("TLS", "TLS"), n("TLSCA", "the CA"), n("Brokers", "the brokers"))
	case errors.As(err, &pe):
		return fmt.Sprintf("%s and %s, %s", n("SASLMechanism", "the SASL mechanism"), n("SASLUser", "the SASL user"), n("SASLPassword", "the SASL password"))
	case errors.As(err, &ce) && ce.Client:
		return fmt.Sprintf("%s and %s give this client's certificate", n("TLSCert", "the certificate"), n("TLSKey", "the key"))
	case errors.As(err, &ce):
		return fmt.Sprintf("%s names the CA that signed the brokers' certificate", n("TLSCA", "the CA"))
	}
	return ""
}

// ClearTextWarning is the warning, naming the settings as names names them, that the
// settings send the SASL password in clear text ([Settings.ClearTextPassword]); "" when they
// do not. A caller says it once, before the first connection.
func (s *Settings) ClearTextWarning(names field.Names) string {
	if !s.ClearTextPassword() {
		return ""
	}
	return fmt.Sprintf("warning: SASL PLAIN without TLS sends %s to %s in clear text: add %s, or use SCRAM-SHA-256 or SCRAM-SHA-512",
		field.Name(names, "SASLPassword", "the SASL password"), s.Brokers, field.Name(names, "TLS", "TLS"))
}

// explained is an error in its caller's words; it wraps the error it explains.
type explained struct {
	text string
	err  error
}

func (e *explained) Error() string { return e.text }
func (e *explained) Unwrap() error { return e.err }

// Say is w in a caller's words, naming the settings by names (field.Names): which settings
// would have created the topic and how a reader of the topic checks it.
func (w PartitionsWarning) Say(names field.Names) string {
	if names == nil {
		return w.String()
	}
	return fmt.Sprintf("topic %s has %d partitions, want %d: keys are placed by murmur2 over %d partitions, not the %d the stand expects "+
		"(an existing topic is left as it is, with %s too); clickgen verify checks it with %s %d (%s %d for orders)",
		w.Topic, w.Has, w.Want, w.Has, w.Want, field.Name(names, "CreateTopics", "topic creation"),
		field.Name(names, "HitPartitions", "a hits partition count of"), w.Has, field.Name(names, "OrderPartitions", "an orders partition count of"), w.Has)
}
