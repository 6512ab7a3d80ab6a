package sink

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/fileio"
)

// Kind is a kind of sink, one row of the table [Kinds]: how [Settings] choose it, which of the
// settings apply to it, what it needs of the sink's caller, and how it opens. Adding a kind
// of sink is adding a row (and its test); a caller that binds settings to its own inputs asks
// the table instead of naming kinds.
type Kind struct {
	// Name names the kind in messages: "file", "stdout", "Kafka"; Words is how a sentence
	// says one: "a file".
	Name, Words string
	// Field is the setting whose value chooses the kind ("File", "Brokers"): settings that
	// choose different kinds exclude each other.
	Field string
	// Partitions reports whether the kind's topics have partitions that keys are placed on
	// (murmur2), consumer groups that read them, and can be created: a file has none of these.
	// Such a topic is real: it must be named ([Settings.TopicOf]).
	Partitions bool
	// Client reports whether the kind's client wants a core of its own for record encoding
	// and compression (play.Workers renders on one core fewer).
	Client bool
	// Stdout reports whether the kind writes to the caller's stdout, which then holds data
	// and nothing else.
	Stdout bool

	chosen   func(s *Settings) bool   // the settings choose this kind
	choice   string                   // how the settings choose it, as a field sentence: "{File|file}"
	what     func(s *Settings) string // how the settings choose it, with the value: "file x"
	settings []string                 // the fields of Settings that apply to it
	ready    func(s *Settings) error  // what it checks before anything is sent, nil for nothing
	open     func(ctx context.Context, s *Settings, stdout io.Writer, want map[string]int32, warn func(PartitionsWarning), extra []Opt) (Sink, error)
}

// kinds is the table of sink kinds: a file, stdout (stdout.go) and Kafka.
var kinds = [...]*Kind{
	{
		Name: "file", Words: "a file", Field: "File", choice: "{File|file}",
		chosen: func(s *Settings) bool { return s.File != "" && s.File != "-" },
		what:   func(s *Settings) string { return "file " + s.File },
		// The topic names what the messages are counted under; the connect timeout bounds the
		// wait for a FIFO's reader, the delivery timeout a blocked write, the linger how long a
		// line waits in the buffer.
		settings: []string{"File", "Topic", "Linger", "ConnectTimeout", "FlushTimeout", "DeliveryTimeout"},
		// A file on a read-only filesystem was found only when the sink opened it, after
		// the run was planned: a failure, where a report there is a refusal.
		ready: func(s *Settings) error {
			if err := fileio.CheckWrite(s.File); err != nil {
				return &field.Error{Field: "File", Words: "file", Value: s.File, Err: err}
			}
			return nil
		},
		open: openFile,
	},
	stdoutKind,
	{
		Name: "Kafka", Words: "Kafka", Field: "Brokers", choice: "{Brokers|brokers}", Partitions: true, Client: true,
		chosen: func(s *Settings) bool { return len(s.Brokers) > 0 },
		what:   func(s *Settings) string { return "brokers " + s.Brokers.String() },
		// TLS and SASL are Kafka's, and only Kafka's: the row says so once.
		settings: []string{"Brokers", "Topic", "CreateTopics", "Replication", "Compression", "Linger", "ConnectTimeout",
			"FlushTimeout", "DeliveryTimeout", "TLS", "TLSCA", "TLSCert", "TLSKey", "SASLMechanism", "SASLUser", "SASLPassword"},
		open: openKafka,
	},
}

// Kinds returns the kinds of sink, in the order [Settings.Kind] considers them.
func Kinds() []*Kind { return slices.Clone(kinds[:]) }

// Applies reports whether the field of [Settings] named setting (as the struct spells it:
// "CreateTopics") means anything to a sink of kind k. A caller that binds settings to its own
// inputs refuses one given for a kind it does not apply to.
func (k *Kind) Applies(setting string) bool { return slices.Contains(k.settings, setting) }

// Refuse is the refusal of setting (a field of [Settings], as the struct spells it) given
// for a sink of kind k it does not apply to, naming the kinds it applies to and how each is
// chosen ("CreateTopics applies to Kafka (brokers), not to a file (file)"), as a *field.Error
// whose fields a caller names its own way.
func (k *Kind) Refuse(setting string) error {
	var to []string
	for _, other := range kinds {
		if other.Applies(setting) {
			to = append(to, other.Name+" ("+other.choice+")")
		}
	}
	return field.New(fmt.Sprintf("{%s} applies to %s, not to %s (%s)", setting, strings.Join(to, " and "), k.Words, k.choice))
}

// Kind returns the kind of sink the settings choose: exactly one must be chosen (a file,
// stdout, or brokers), or the error is [ErrTwoSinks] (wrapped with how each was chosen) or
// [ErrNoSink].
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

// CheckReady says, before anything is sent, whether the chosen kind of sink can take the
// messages (a file can be written), in a *field.Error naming the setting; nothing for a kind
// that finds out only when it opens (Kafka's brokers), or settings that choose none.
func (s *Settings) CheckReady() error {
	if k, err := s.Kind(); err == nil && k.ready != nil {
		return k.ready(s)
	}
	return nil
}

// openFile opens the file sink. A write that blocks (a pipe whose reader stopped reading)
// fails after the delivery timeout, as an unacknowledged Kafka message does.
func openFile(ctx context.Context, s *Settings, _ io.Writer, _ map[string]int32, _ func(PartitionsWarning), _ []Opt) (Sink, error) {
	w, err := OpenFile(ctx, s.File, s.writerOptions(), s.ConnectTimeout)
	if err != nil {
		return nil, &FileError{Err: err}
	}
	return w, nil
}

// writerOptions are the options of a file's or stdout's writer: a write that blocks fails
// after the delivery timeout; a line waits at most the linger before it is written, as a
// record waits for its batch (Kafka's default 10 ms), so a paced run streams into a file or
// a pipe. A linger of 0 waits for no more lines than came while the last write was under
// way, as for Kafka.
func (s *Settings) writerOptions() WriterOptions {
	return WriterOptions{WriteTimeout: s.DeliveryTimeout, Linger: max(s.Linger, time.Nanosecond)}
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
