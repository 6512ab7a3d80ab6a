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
