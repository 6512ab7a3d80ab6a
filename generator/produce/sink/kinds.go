package sink

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Kind is a kind of sink, one row of the table [Kinds]: how [Settings] choose it, which of
// the settings apply to it, whether it has topics with partitions and consumer groups, and how
// it opens. Adding a kind of sink is adding a row (and its test).
type Kind struct {
	// Name names the kind in messages: "file", "Kafka".
	Name string
	// Partitions reports whether the kind's topics have partitions that keys are placed on
	// (murmur2), consumer groups that read them, and can be created: a file has none of these.
	Partitions bool

	chosen   func(s *Settings) bool   // the settings choose this kind
	what     func(s *Settings) string // how the settings choose it, for messages: "file x"
	settings []string                 // the fields of Settings that apply to it
	check    func(s *Settings) error  // what else it needs of the settings, nil for nothing
	open     func(ctx context.Context, s *Settings, stdout io.Writer, want map[string]int32, warn func(PartitionsWarning), extra []Opt) (Sink, error)
}

// kinds is the table of sink kinds. Stdout is the file "-".
var kinds = [...]*Kind{
	{
		Name:   "file",
		chosen: func(s *Settings) bool { return s.File != "" },
		what:   func(s *Settings) string { return "file " + s.File },
		// The topic names what the messages are counted under; the connect timeout bounds the
		// wait for a FIFO's reader, the delivery timeout a blocked write, the linger how long a
		// line waits in the buffer.
		settings: []string{"File", "Topic", "Linger", "ConnectTimeout", "FlushTimeout", "DeliveryTimeout"},
		open:     openFile,
	},
	{
		Name:       "Kafka",
		Partitions: true,
		chosen:     func(s *Settings) bool { return len(s.Brokers) > 0 },
		what:       func(s *Settings) string { return "brokers " + s.Brokers.String() },
		settings: []string{"Brokers", "Topic", "CreateTopics", "Replication", "Compression", "Linger", "ConnectTimeout",
			"FlushTimeout", "DeliveryTimeout", "TLS", "TLSCA", "TLSCert", "TLSKey", "SASLMechanism", "SASLUser", "SASLPassword"},
		check: func(s *Settings) error {
			if s.Topic == "" {
				return ErrNoTopic
			}
			return nil
		},
		open: openKafka,
	},
}

// Kinds returns the kinds of sink, in the order [Settings.Kind] considers them.
func Kinds() []*Kind { return slices.Clone(kinds[:]) }

// Applies reports whether the field of [Settings] named setting (as the struct spells it:
// "CreateTopics") means anything to a sink of kind k. A caller that binds settings to its own
// inputs refuses one given for a kind it does not apply to.
func (k *Kind) Applies(setting string) bool { return slices.Contains(k.settings, setting) }

// Kind returns the kind of sink the settings choose: exactly one must be chosen (a file, or
// brokers), or the error is [ErrTwoSinks] (wrapped with how each was chosen) or [ErrNoSink].
func (s *Settings) Kind() (*Kind, error) {
	var chosen []*Kind
	for _, k := range kinds {
		if k.chosen(s) {
			chosen = append(chosen, k)
		}
	}
	switch len(chosen) {
	case 0:
		return nil, ErrNoSink
	case 1:
		return chosen[0], nil
	}
	whats := make([]string, len(chosen))
	for i, k := range chosen {
		whats[i] = k.what(s)
	}
	return nil, fmt.Errorf("%s: %w", strings.Join(whats, " and "), ErrTwoSinks)
}

// openFile opens the file sink: stdout for "-". A write that blocks (a pipe whose reader
// stopped reading) fails after the delivery timeout, as an unacknowledged Kafka message does.
// A line waits at most the linger before it is written, as a record waits for its batch
// (Kafka's default 10 ms): a paced run streams into a file or a pipe. A linger of 0 waits for
// no more lines than came while the last write was under way, as for Kafka.
func openFile(ctx context.Context, s *Settings, stdout io.Writer, _ map[string]int32, _ func(PartitionsWarning), _ []Opt) (Sink, error) {
	wo := WriterOptions{WriteTimeout: s.DeliveryTimeout, Linger: max(s.Linger, time.Nanosecond)}
	if s.File == "-" {
		return NewWriter(stdout, wo)
	}
	w, err := OpenFile(ctx, s.File, wo, s.ConnectTimeout)
	if err != nil {
		return nil, &FileError{Err: err}
	}
	return w, nil
}

// openKafka opens the Kafka sink through [Dial], checking the topics of want (creating them
// with CreateTopics).
func openKafka(ctx context.Context, s *Settings, _ io.Writer, want map[string]int32, warn func(PartitionsWarning), extra []Opt) (Sink, error) {
	if err := s.LoadTLS(ctx); err != nil {
		return nil, err
	}
	k, err := Dial(ctx, s.CreateTopics, want, warn, append(s.Opts(), extra...)...)
	if err != nil {
		return nil, err // not a nil *Kafka in a non-nil Sink
	}
	return k, nil
}
