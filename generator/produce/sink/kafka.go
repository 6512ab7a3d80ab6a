package sink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Kafka is a [Sink] producing to Kafka with franz-go: idempotent, acks=all,
// keys placed by murmur2 exactly as Kafka's Java client places them (see
// [schema.PartitionForKey]), record timestamps set to the real send time. Build it
// with [NewKafka]; all methods are safe for concurrent use.
type Kafka struct {
	cfg    cfg
	cl     *kgo.Client
	adm    *kadm.Client
	rec    *recorder
	budget *budget

	closed    atomic.Bool
	closeOnce sync.Once
}

var _ Sink = (*Kafka)(nil)

// NewKafka validates opts and returns a Kafka sink. It does not contact the
// brokers: call [Kafka.CheckConnect] to fail early, and [Kafka.EnsureTopics]
// to check the topics.
func NewKafka(opts ...Opt) (*Kafka, error) {
	c := defaultCfg()
	for _, o := range opts {
		o.apply(&c)
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	cl, err := kgo.NewClient(append(c.connOpts(), c.producerOpts()...)...)
	if err != nil {
		return nil, fmt.Errorf("sink: Kafka client: %w", err)
	}
	return &Kafka{
		cfg:    c,
		cl:     cl,
		adm:    kadm.NewClient(cl),
		rec:    newRecorder(),
		budget: newBudget(int64(c.maxBufferedRecords), int64(c.maxBufferedBytes)),
	}, nil
}

// String describes the sink's configuration. It never contains the SASL
// password.
func (k *Kafka) String() string { return "kafka " + k.cfg.String() }

// pending is one record in flight: the kgo record and what its promise
// needs to account for it.
type pending struct {
	k   *Kafka
	tc  *topicCounters
	due time.Time
	tag uint32
	// intended says due is the message's own Due, not the time Send handed it on.
	intended bool
	warm     bool  // the message's Warmup
	hold     *Hold // the message's Hold, released once kgo is done with the record
	r        kgo.Record
}

// done is the record's promise. kgo calls promises serially from one
// goroutine; this only touches atomics (and the recorder's mutex on
// failure).
func (p *pending) done(r *kgo.Record, err error) {
	size := int64(len(r.Key) + len(r.Value))
	if err != nil {
		p.k.rec.fail(p.tc, p.tag, p.warm, err)
	} else {
		p.k.rec.ack(p.tc, r.Partition, len(r.Value), time.Since(p.due), p.warm)
		if f := p.k.cfg.onAck; f != nil {
			f(Ack{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Due: p.due, Intended: p.intended, Warmup: p.warm, Key: r.Key, Value: r.Value})
		}
	}
	if p.hold != nil {
		p.hold.Release() // kgo no longer refers to the key and value
	}
	// Released last, so a Flush that sees the budget drained also sees
	// this record's counters.
	p.k.budget.release(size)
	// kgo reads nothing of a record once its promise has returned (it took
	// the record's size before calling it): the memory serves the next one.
	*p = pending{}
	pendings.Put(p)
}

// pendings recycles the records in flight: one allocation per message was
// a third of the allocations of a batch run, and of its collections.
var pendings = sync.Pool{New: func() any { return new(pending) }}

// Send queues m; see [Sink.Send]. The record's timestamp is the time Send
// hands it to the client.
func (k *Kafka) Send(ctx context.Context, m Message) error {
	if err := m.validate(); err != nil {
		return err
	}
	if k.closed.Load() {
		return ErrClosed
	}
	if err := k.rec.err(); err != nil {
		return err
	}
	if err := k.rec.stalled(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	size := int64(len(m.Key) + len(m.Value))
	if !k.budget.tryAcquire(size) {
		if err := k.waitRoom(ctx, size); err != nil {
			return err
		}
	}
	now := time.Now()
	p := pendings.Get().(*pending)
	*p = pending{k: k, tc: k.rec.topic(m.Topic), due: m.Due, tag: m.Tag, intended: !m.Due.IsZero(), warm: m.Warmup, hold: m.Hold}
	if p.due.IsZero() {
		p.due = now
	}
	p.r = kgo.Record{Topic: m.Topic, Key: m.Key, Value: m.Value, Timestamp: now}
	p.tc.sent.Add(1)
	if p.hold != nil {
		p.hold.Acquire()
	}
	// The record's context is not ctx: stopping the sender must not fail
	// records already queued (see budget).
	k.cl.Produce(context.Background(), &p.r, p.done)
	return nil
}

// waitRoom waits for room in the in-flight budget for a record of size
// bytes. Room comes back with every acknowledgement or failure, so a wait
// longer than the delivery timeout means the brokers answered nothing for
// that long: a dead broker keeps kgo retrying (with the idempotent producer
// it never fails a record whose request may have reached the broker), and
// without this bound Send would wait as long as ctx lets it, which for a
// batch run is forever. The stall is sticky: every later Send fails too.
func (k *Kafka) waitRoom(ctx context.Context, size int64) error {
	wctx, cancel := context.WithTimeoutCause(ctx, k.cfg.deliveryTimeout, errStalled)
	defer cancel()
	err := k.budget.acquire(wctx, size)
	if err == nil || ctx.Err() != nil {
		return err
	}
	err = &IncompleteError{InFlight: k.budget.inFlight(), Waited: k.cfg.deliveryTimeout, Cause: context.Cause(wctx)}
	k.rec.stall(err)
	return err
}

var errStalled = errors.New("no acknowledgement or failure from the brokers (the delivery timeout)")

// Flush waits for every queued record; see [Sink.Flush]. When ctx ends the
// wait, the error is an [*IncompleteError] (joined with any
// [*DeliveryError]) saying how many messages are unaccounted for.
func (k *Kafka) Flush(ctx context.Context) error {
	if err := k.rec.stalled(); err != nil {
		// Send already waited the delivery timeout for a single
		// acknowledgement: waiting again only doubles the time to exit.
		return errors.Join(err, k.rec.err())
	}
	start := time.Now()
	err := k.cl.Flush(ctx)
	if err == nil {
		// kgo counts a record done just before its promise runs;
		// wait for our promises too.
		err = k.budget.drained(ctx)
	}
	if err != nil {
		err = &IncompleteError{InFlight: k.budget.inFlight(), Waited: time.Since(start).Round(time.Millisecond), Cause: err}
		return errors.Join(err, k.rec.err())
	}
	return k.rec.err()
}

// Close fails whatever is still queued and stops the client and all its
// goroutines. It is idempotent and always returns nil.
func (k *Kafka) Close() error {
	k.closeOnce.Do(func() {
		k.closed.Store(true)
		k.cl.Close()
		// Close fails every buffered record; wait (boundedly) for
		// their promises so the final Stats add up.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = k.budget.drained(ctx)
	})
	return nil
}

// KeepsHolds reports that k counts [Message.Hold]: a message's hold is released when its
// promise has run (acknowledged or failed), after which kgo no longer refers to its bytes.
func (k *Kafka) KeepsHolds() bool { return true }

// Stats returns a snapshot of the counters; see [Stats].
func (k *Kafka) Stats() Stats { return k.rec.snapshot() }

// brokerList names the seed brokers in errors.
func (k *Kafka) brokerList() string { return strings.Join(k.cfg.brokers, ",") }

// CheckConnect asks the brokers for metadata, failing within the connect
// timeout (see [ConnectTimeout]) or when ctx is done, whichever is first,
// asking again while no broker accepts the connection (refused, unreachable, a
// name not resolved yet: a broker started a moment ago may not listen yet) and
// never again once one answered, whatever it answered (TLS, SASL),
// with a *[ConnectError] naming the brokers (and, when ctx ended it, how long it
// had tried: an interrupt is not the timeout). It also proves TLS and SASL work: a
// port without a SASL listener is a *[NoSASLListenerError].
//
// Brokers that keep it waiting for [ConnectNoticeAfter] are told to the function of
// [OnConnectWait]. Its errors name Kafka, not the sink: a verb that reads topics meets them
// too.
func (k *Kafka) CheckConnect(ctx context.Context) error {
	parent, start := ctx, time.Now()
	ctx, cancel := context.WithTimeout(ctx, k.cfg.connectTimeout)
	defer cancel()
	var notice func()
	if f := k.cfg.onConnectWait; f != nil && k.cfg.connectTimeout > ConnectNoticeAfter {
		notice = func() { f(ConnectWait{Brokers: k.brokerList(), Bound: k.cfg.connectTimeout}) }
	}
	stop := noticeAfter(ConnectNoticeAfter, notice)
	attempts, err := k.pingUntilReachable(ctx)
	stop()
	if err != nil {
		if parent.Err() == nil {
			if cause := k.certificateCause(err); cause != nil {
				return cause
			}
			if cause := k.protocolCause(ctx, err, false); cause != nil {
				return cause
			}
		}
		if s := k.cfg.sasl; s != nil && (errors.Is(err, io.EOF) || errors.Is(err, kerr.IllegalSaslState)) && k.answersWithoutSASL(ctx) {
			// The broker hung up on the handshake (kfake) or refused it (Kafka's PLAINTEXT
			// listener: ILLEGAL_SASL_STATE), and answers a client without SASL: the port has
			// no SASL listener, and the password was never checked.
			what := "refused the SASL handshake"
			if errors.Is(err, io.EOF) {
				what = "closed the connection during the SASL handshake"
			}
			return &NoSASLListenerError{Brokers: k.brokerList(), What: what, Mechanism: string(s.mech), User: s.user, Err: err}
		}
		if s := k.cfg.sasl; s != nil && (errors.Is(err, kerr.SaslAuthenticationFailed) || errors.Is(err, io.EOF) ||
			errors.Is(err, kerr.UnsupportedSaslMechanism) || errors.Is(err, kerr.IllegalSaslState)) {
			// The broker answered and then refused or hung up on the authentication
			// (Kafka closes the connection after a failed SASL handshake): the
			// network is fine, the credentials are not.
			return fmt.Errorf("Kafka at %s refused the SASL credentials (mechanism %s, user %q; check the user, the mechanism and the password): %w",
				k.brokerList(), s.mech, s.user, err)
		}
		// The check's own deadline ran out on a request (not on retries of a refused
		// connection): a port that accepts and never answers, or one no connection reaches.
		noAnswer := parent.Err() == nil && ctx.Err() != nil && !unreachable(err)
		if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("%w (last error: %w)", ctx.Err(), err)
		}
		ce := &ConnectError{Brokers: k.brokerList(), Timeout: k.cfg.connectTimeout, Waited: time.Since(start),
			Attempts: attempts, Interrupted: parent.Err() != nil, NoAnswer: noAnswer, Err: err}
		if noAnswer {
			ce.Accepted = k.accepts(parent)
		}
		if ce.Accepted {
			if cause := k.protocolCause(parent, err, true); cause != nil {
				return cause
			}
		}
		return ce
	}
	return nil
}

// answersWithoutSASL reports whether the brokers answer a client with the same settings but
// no SASL within ctx: after a SASL handshake that ended in EOF, that tells a port without a
// SASL listener from credentials the broker refused (Kafka hangs up after either).
func (k *Kafka) answersWithoutSASL(ctx context.Context) bool {
	c := k.cfg
	c.sasl = nil
	cl, err := kgo.NewClient(c.connOpts()...)
	if err != nil {
		return false
	}
	defer cl.Close()
	return cl.Ping(ctx) == nil
}

// EnsureTopics checks that every topic of want exists, want mapping a topic
// to its partition count (see [DefaultTopics]). Missing topics are a
// *[MissingTopicsError], unless create is true: then each is created with
// the wanted partitions and the configured [ReplicationFactor] (by default the
// brokers' own). A topic that exists with a different partition count is left
// as it is and is not an error (every message is still delivered, and a stress
// cluster may want more partitions), but keys then land on other partitions
// than the stand expects: each such topic gives a [PartitionsWarning]. Each
// request is bounded by the connect timeout. Topics it creates are told to the
// function of [OnCreate], and waited for until every broker knows a leader for
// each of their partitions, within the connect timeout (a *[LeaderlessError]
// after it) and ctx.
func (k *Kafka) EnsureTopics(ctx context.Context, create bool, want map[string]int32) (warnings []PartitionsWarning, err error) {
	names := slices.Sorted(maps.Keys(want))
	if len(names) == 0 {
		return nil, nil
	}
	// A plain metadata request, not kadm.ListTopics: kadm answers from
	// the client's metadata cache (up to 5 s old), which would still miss
	// a topic created a moment ago.
	req := kmsg.NewPtrMetadataRequest()
	req.AllowAutoTopicCreation = false
	for _, t := range names {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	lctx, cancel := context.WithTimeout(ctx, k.cfg.connectTimeout)
	resp, err := req.RequestWith(lctx, k.cl)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("sink: list topics on %s: %w", k.brokerList(), err)
	}
	found := make(map[string]kmsg.MetadataResponseTopic, len(resp.Topics))
	for _, t := range resp.Topics {
		if t.Topic != nil {
			found[*t.Topic] = t
		}
	}
	var missing []string
	for _, t := range names {
		d, ok := found[t]
		err := kerr.ErrorForCode(d.ErrorCode)
		switch {
		case !ok || errors.Is(err, kerr.UnknownTopicOrPartition):
			missing = append(missing, t)
		case err != nil:
			return nil, fmt.Errorf("sink: topic %s on %s: %w", t, k.brokerList(), err)
		case int32(len(d.Partitions)) != want[t]:
			warnings = append(warnings, PartitionsWarning{Topic: t, Has: int32(len(d.Partitions)), Want: want[t]})
		}
	}
	if len(missing) == 0 {
		return warnings, nil
	}
	if !create {
		parts := make([]int32, len(missing))
		for i, t := range missing {
			parts[i] = want[t]
		}
		return warnings, &MissingTopicsError{Topics: missing, Partitions: parts, Brokers: k.brokerList()}
	}
	for _, t := range missing {
		cctx, cancel := context.WithTimeout(ctx, k.cfg.connectTimeout)
		resp, err := k.adm.CreateTopic(cctx, want[t], k.cfg.replicationFactor, nil, t)
		cancel()
		switch {
		case errors.Is(err, kerr.TopicAlreadyExists):
			// Another process created it since it was found missing: it is waited for all
			// the same, but it is not this run's to announce.
		case err != nil:
			return warnings, fmt.Errorf("sink: create topic %s (%d partitions, replication factor %d) on %s: %w",
				t, want[t], k.cfg.replicationFactor, k.brokerList(), err)
		case k.cfg.onCreated != nil:
			c := Created{Topic: t, Partitions: resp.NumPartitions, Replication: resp.ReplicationFactor}
			if c.Partitions <= 0 { // a broker too old to say
				c.Partitions = want[t]
			}
			if c.Replication <= 0 {
				c.Replication = k.cfg.replicationFactor
			}
			k.cfg.onCreated(c)
		}
	}
	return warnings, k.waitLeaders(ctx, missing, want)
}

// Dial is how a run opens Kafka: [NewKafka] with opts, [Kafka.CheckConnect], then
// [Kafka.EnsureTopics] for want (creating missing topics when create is set). warn, if set,
// hears each [PartitionsWarning]. On any error the sink is closed and nil returned; invalid options are a
// [*ConfigError].
func Dial(ctx context.Context, create bool, want map[string]int32, warn func(PartitionsWarning), opts ...Opt) (*Kafka, error) {
	k, err := NewKafka(opts...)
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	if err := k.CheckConnect(ctx); err != nil {
		k.Close()
		return nil, err
	}
	warnings, err := k.EnsureTopics(ctx, create, want)
	for _, w := range warnings {
		if warn != nil {
			warn(w)
		}
	}
	if err != nil {
		k.Close()
		return nil, err
	}
	return k, nil
}

// NoSASLListenerError is [Kafka.CheckConnect]'s finding that Brokers hung up on or refused
// the SASL handshake (What says which) and answer a client without SASL: the port has no
// SASL listener, and the password was never checked. Err is the handshake's error.
type NoSASLListenerError struct {
	Brokers, What, Mechanism, User string
	Err                            error
}

func (e *NoSASLListenerError) Error() string {
	return fmt.Sprintf("Kafka at %s %s (mechanism %s, user %q) and answers without SASL: it has no SASL listener on this port (drop the SASL mechanism, or give the SASL listener's port): %v",
		e.Brokers, e.What, e.Mechanism, e.User, e.Err)
}

func (e *NoSASLListenerError) Unwrap() error { return e.Err }

// MissingTopicsError is [Kafka.EnsureTopics]' refusal when Topics (sorted, wanted with
// Partitions each) do not exist on Brokers and it may not create them.
type MissingTopicsError struct {
	Topics     []string
	Partitions []int32
	Brokers    string
}

// List names the missing topics with the partitions each was wanted with: "hits (2
// partitions), orders (1 partitions)".
func (e *MissingTopicsError) List() string {
	var b strings.Builder
	for i, t := range e.Topics {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%d partitions)", t, e.Partitions[i])
	}
	return b.String()
}

func (e *MissingTopicsError) Error() string {
	return fmt.Sprintf("sink: topic(s) %s missing on %s: create them, or have them created", e.List(), e.Brokers)
}

// PartitionsWarning is [Kafka.EnsureTopics]' note that Topic exists with Has partitions, not
// the Want asked for. The topic is left as it is (every message is still delivered), but keys
// land on other partitions than the stand expects, and a reader that checks them must place
// them over Has partitions.
type PartitionsWarning struct {
	Topic     string
	Has, Want int32
}

func (w PartitionsWarning) String() string {
	return fmt.Sprintf("topic %s has %d partitions, want %d: keys are placed by murmur2 over %d partitions, not the %d the stand expects "+
		"(an existing topic is left as it is, even when topics are created); a reader must check them against %d partitions",
		w.Topic, w.Has, w.Want, w.Has, w.Want, w.Has)
}

// ConfigError is a [Dial] failure caused by the options themselves, not by the cluster.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }
