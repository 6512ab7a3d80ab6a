// Package storefollow measures freshness until queryable: how long after its intended send time
// a message's row can be read from the table a pipeline fills. It samples the messages a run
// acknowledged ([Follower.Acked], fed from the Kafka sink's acknowledgements): at most
// [Options.Sample] a second by their intended send times, of the topic the table holds
// (WatchID for hits, order_id for orders; only messages the stand's intake accepts, which
// become a row), polls the table every [Options.Every] until each sampled key can be read, and
// at the end waits, boundedly, for the stragglers. It hands what it measured on as raw values
// ([Result]: histograms, counts, the keys never seen, a series); generator/measure turns them
// into the report's store section.
//
// Latency of a sampled message = the time the answer of the first poll that returned its key
// was received − the message's Due (its intended send time; for an unpaced run the time it
// was handed to the producer). It is therefore at most one poll period plus one poll's round
// trip late (the figures' error bound, [Result.Every] and [Result.PollTime]), never early, and
// a pipeline that stalls is charged for every sampled message it holds back: the sampling goes
// on by send time whatever the table shows, so nothing is omitted for being slow.
//
// A row already stored before the run (a replayed day: WatchIDs and order versions are
// deterministic) is not this run's row: when the table has a _load_ts column (the stand's load
// time, set by the server), a key counts as seen only by a row loaded at or after the server's
// clock when the follower opened, less a second; a key found only in older rows waits for its
// new row and is counted in [Result.Stale]. Without _load_ts a stored row counts at once, and
// the result says so ([Result.NoLoadTime]).
//
// Memory: a sampled key not yet seen takes about 64 bytes; at most [Options.MaxPending] are
// kept (sampling pauses while the table is that far behind, and [Result.Paused] counts the
// messages it left out then).
package storefollow

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/measure/latency"
	"github.com/clickgen/clickgen/generator/verify/intake"
	"github.com/clickgen/clickgen/schema"
)

// Defaults of [Options].
const (
	DefaultEvery      = 250 * time.Millisecond
	DefaultSample     = 100.0
	DefaultMaxPending = 100_000
	// MinSample and MaxSample bound Options.Sample, per second.
	MinSample = 1e-4
	MaxSample = 1e6
	// MinEvery is the shortest poll period: each poll is a query of the table.
	MinEvery = 10 * time.Millisecond
	// LastPoll bounds the one poll [Follower.Finish] makes when it does not wait.
	LastPoll = 5 * time.Second
)

// Options configure a [Follower]. The zero value of a field means its default.
type Options struct {
	// Table is the table (or view) to read, "database.name" or "name".
	Table string
	// HitsTopic and OrdersTopic are the run's topics; the table's columns say which one it
	// holds (WatchID: hits, order_id: orders), and acknowledgements on the other are ignored.
	HitsTopic, OrdersTopic string
	// Every is the poll period, default DefaultEvery.
	Every time.Duration
	// Sample is the most messages sampled per second of intended send time, default
	// DefaultSample.
	Sample float64
	// Timeout bounds the wait at the end for the sampled keys not yet seen; zero polls once
	// (for at most LastPoll) and does not wait.
	Timeout time.Duration
	// MaxPending bounds the sampled keys not yet seen, default DefaultMaxPending.
	MaxPending int
}

// Validate checks the options, naming the field at fault (Table, Every, Sample, Timeout,
// MaxPending) in a *field.Error.
func (o Options) Validate() error {
	switch {
	case o.Table == "":
		return &field.Error{Field: "Table", Words: "table", Err: errors.New("no table to follow")}
	case checkName(o.Table) != nil:
		return &field.Error{Field: "Table", Words: "table", Value: o.Table, Err: checkName(o.Table)}
	case o.Every != 0 && o.Every < MinEvery:
		return &field.Error{Field: "Every", Words: "poll period", Value: o.Every.String(), Err: fmt.Errorf("want at least %v", MinEvery)}
	case o.Sample < 0 || o.Sample != o.Sample || o.Sample > MaxSample || o.Sample != 0 && o.Sample < MinSample:
		return &field.Error{Field: "Sample", Words: "sample rate", Value: strconv.FormatFloat(o.Sample, 'g', -1, 64),
			Err: fmt.Errorf("want a rate of at least %g/s (one in 2.8 hours) and at most %g/s", MinSample, MaxSample)}
	case o.Timeout < 0:
		return &field.Error{Field: "Timeout", Words: "timeout", Value: o.Timeout.String(), Err: errors.New("want a duration ≥ 0")}
	case o.MaxPending < 0:
		return &field.Error{Field: "MaxPending", Words: "pending keys", Value: strconv.Itoa(o.MaxPending), Err: errors.New("want at least 0")}
	}
	return nil
}

// Follower follows one table during one run. Its methods are safe for concurrent use.
type Follower struct {
	store Store
	opt   Options
	start time.Time

	// Set by Open, read-only after.
	table      Table
	topic      string
	loadedFrom time.Time // server time; zero without _load_ts

	mu        sync.Mutex
	nextDue   int64 // the earliest due (Unix ns) of the next sample
	pending   []*sample
	sampled   int64
	seen      int64
	stale     int64 // keys first found only in rows loaded before the follower opened
	paused    int64 // messages the sampling left out while MaxPending were waiting
	notRow    int64 // messages of the topic the intake does not accept (sampled, not followed)
	intended  int64
	handed    int64
	hist      latency.Histogram // every seen key but the warm-up's
	warm      latency.Histogram // the warm-up's
	polltime  latency.Histogram // each poll's round trip
	polls     int
	errs      int
	lastErr   string
	series    []Sample
	period    time.Duration
	last      time.Duration     // the last sample's time, -1 before the first
	sinceLast latency.Histogram // latencies since the last sample

	cancel context.CancelFunc
	done   chan struct{}
}

// sample is one sampled message whose row was not seen yet.
type sample struct {
	key   Key
	due   int64 // Unix ns
	warm  bool
	stale bool // found in rows loaded before the follower opened
}

// New returns a follower reading from store; call [Follower.Open], then [Follower.Start].
func New(store Store, opt Options) (*Follower, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.Every == 0 {
		opt.Every = DefaultEvery
	}
	if opt.Sample == 0 {
		opt.Sample = DefaultSample
	}
	if opt.MaxPending == 0 {
		opt.MaxPending = DefaultMaxPending
	}
	return &Follower{store: store, opt: opt, start: time.Now(), period: max(opt.Every, time.Second), last: -1}, nil
}

// Open probes the table before the run: it must exist, be no stream engine (a read would
// consume the pipeline's messages), and hold a key column (WatchID or order_id) of a topic the
// run sends. It reads the server's clock, from which rows count as this run's (with _load_ts).
// Its errors say what is wrong with the table; the run should not start after one.
func (f *Follower) Open(ctx context.Context) error {
	t, err := f.store.Describe(ctx, f.opt.Table)
	if err != nil {
		return err
	}
	topic := f.opt.HitsTopic
	if t.Kind == Orders {
		topic = f.opt.OrdersTopic
	}
	if topic == "" {
		return fmt.Errorf("table %s: %w: it holds %s (column %s), which this run does not send", t.Name, ErrNotFollowable, t.Kind, t.Kind.Column())
	}
	var from time.Time
	if t.LoadTime {
		now, err := f.store.Now(ctx)
		if err != nil {
			return err
		}
		from = now.Add(-time.Second)
	}
	f.mu.Lock()
	f.table, f.topic, f.loadedFrom = t, topic, from
	f.mu.Unlock()
	return nil
}

// Table is the table as Open found it.
func (f *Follower) Table() Table {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.table
}

// Topic is the topic whose messages are sampled, set by Open.
func (f *Follower) Topic() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.topic
}

// Start polls every Options.Every until ctx ends or [Follower.Finish] is called.
func (f *Follower) Start(ctx context.Context) {
	ctx, f.cancel = context.WithCancel(ctx)
	f.done = make(chan struct{})
	go func() {
		defer close(f.done)
		t := time.NewTicker(f.opt.Every)
		defer t.Stop()
		for {
			f.poll(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// stop ends the polling goroutine, if started.
func (f *Follower) stop() {
	if f.cancel != nil {
		f.cancel()
		<-f.done
		f.cancel = nil
	}
}

// Ack is one acknowledged message, as the producer's acknowledgement says it (the command
// converts the Kafka sink's sink.Ack into it).
type Ack struct {
	Topic string
	// Due is the message's intended send time, or the time it was handed to the producer
	// when it had none; Intended says which.
	Due      time.Time
	Intended bool
	// Warmup says the message belongs to the run's warm-up: its latency is measured apart.
	Warmup bool
	// Value is the message's bytes, read only during the call.
	Value []byte
}

// Acked hears one acknowledged message. It is called on the producer's acknowledgement
// goroutine: a message of another topic, or within 1/Sample of the last sample's due, costs
// a comparison; a sampled one a parse of its bytes.
func (f *Follower) Acked(a Ack) {
	if a.Topic != f.topic || f.topic == "" {
		return
	}
	due := a.Due.UnixNano()
	f.mu.Lock()
	defer f.mu.Unlock()
	if due < f.nextDue {
		return
	}
	if len(f.pending) >= f.opt.MaxPending {
		f.nextDue = due + int64(float64(time.Second)/f.opt.Sample)
		f.paused++
		return
	}
	k, ok := keyOf(f.table.Kind, a.Value)
	if !ok {
		f.notRow++ // garbage: the next message of the topic is tried instead
		return
	}
	f.nextDue = due + int64(float64(time.Second)/f.opt.Sample)
	if a.Intended {
		f.intended++
	} else {
		f.handed++
	}
	f.sampled++
	f.pending = append(f.pending, &sample{key: k, due: due, warm: a.Warmup})
}

// keyOf is the key of a message the stand's intake accepts as a row of a table of kind; ok
// is false for one it refuses (garbage, which never becomes a row there) or whose key is not
// written as the pipeline's own rows carry it (an id in quotes, which 26.x reads and 18.16
// refuses).
func keyOf(kind Kind, v []byte) (Key, bool) {
	switch kind {
	case Hits:
		row, ok := intake.AcceptedHitRow(v)
		if !ok || !plainID(v, row.WatchID) {
			return Key{}, false
		}
		return Key{WatchID: row.WatchID, Date: row.EventDate}, true
	case Orders:
		id, ok := intake.OrderDedupKey(v)
		if !ok {
			return Key{}, false
		}
		d, ok := snapshotDate(v)
		if !ok {
			return Key{}, false
		}
		return Key{OrderID: id, Date: d}, true
	}
	return Key{}, false
}

// plainID says whether v spells "WatchID":id with id in plain decimal digits, as every clean
// message does.
func plainID(v []byte, id uint64) bool {
	want := strconv.AppendUint([]byte(`"WatchID":`), id, 10)
	i := indexOf(v, want)
	return i >= 0 && i+len(want) < len(v) && (v[i+len(want)] == ',' || v[i+len(want)] == '}')
}

func indexOf(v, sub []byte) int {
	for i := 0; i+len(sub) <= len(v); i++ {
		if string(v[i:i+len(sub)]) == string(sub) {
			return i
		}
	}
	return -1
}

// snapshotDate is the snapshot_date an accepted order message carries.
func snapshotDate(v []byte) (schema.Date, bool) {
	want := []byte(`"snapshot_date":"`)
	i := indexOf(v, want)
	if i < 0 || i+len(want)+10 > len(v) {
		return 0, false
	}
	s := string(v[i+len(want) : i+len(want)+10])
	t, err := time.Parse(time.DateOnly, s)
	if err != nil || t.Year() < 1970 || t.Year() > 2149 {
		return 0, false
	}
	return schema.Date(t.Unix() / 86400), true
}

// lookupChunk bounds the keys of one query: their literals stay well under ClickHouse's
// max_query_size (256 KiB).
const lookupChunk = 4000

// poll asks the table once for every pending key and records those it returns.
func (f *Follower) poll(ctx context.Context) {
	f.mu.Lock()
	keys := make([]Key, len(f.pending))
	for i, s := range f.pending {
		keys[i] = s.key
	}
	t, from := f.table, f.loadedFrom
	f.mu.Unlock()
	begin := time.Now()
	var found []Found
	var err error
	for len(keys) > 0 && err == nil {
		n := min(len(keys), lookupChunk)
		rctx, cancel := context.WithTimeout(ctx, max(10*time.Second, 4*f.opt.Every))
		var got []Found
		got, err = f.store.Lookup(rctx, t, keys[:n], from)
		cancel()
		found = append(found, got...)
		keys = keys[n:]
	}
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.polls++
	f.polltime.Record(now.Sub(begin))
	if err != nil && ctx.Err() == nil {
		f.errs++
		f.lastErr = err.Error()
	}
	f.record(found, now)
	f.sample(now.Sub(f.start), false)
}

// record removes the pending keys found fresh, recording their latency as of now, and marks
// those found only in older rows. Call with mu held.
func (f *Follower) record(found []Found, now time.Time) {
	if len(found) == 0 {
		return
	}
	byKey := make(map[Key][]Found, len(found))
	for _, x := range found {
		byKey[x.Key.id()] = append(byKey[x.Key.id()], x)
	}
	kept := f.pending[:0]
	for _, s := range f.pending {
		var ok, fresh bool
		for _, x := range byKey[s.key.id()] {
			if f.table.Kind == Orders && f.table.Date && x.Key.Date < s.key.Date {
				continue // an older version of the order
			}
			ok, fresh = true, fresh || x.Fresh
		}
		switch {
		case ok && fresh:
			d := now.Sub(time.Unix(0, s.due))
			if s.warm {
				f.warm.Record(d)
			} else {
				f.hist.Record(d)
			}
			f.sinceLast.Record(d)
			f.seen++
			continue
		case ok && !s.stale:
			s.stale = true
			f.stale++
		}
		kept = append(kept, s)
	}
	clear(f.pending[len(kept):])
	f.pending = kept
}

// maxSamples bounds the series: past it, every other sample is dropped and the period doubles.
const maxSamples = 1200

// sample adds the state at t to the series, if a period has passed or force says so. Call
// with mu held.
func (f *Follower) sample(t time.Duration, force bool) {
	if f.last >= 0 && t-f.last < f.period && !force {
		return
	}
	s := Sample{At: t, Sampled: f.sampled, Seen: f.seen, Pending: int64(len(f.pending)), Latency: f.sinceLast}
	f.sinceLast = latency.Histogram{}
	if n := len(f.series); n > 0 && t <= f.last {
		s.Latency.Merge(f.series[n-1].Latency)
		f.series[n-1] = s
		return
	}
	f.last = t
	f.series = append(f.series, s)
	if len(f.series) >= maxSamples {
		kept := f.series[:0]
		for i := 0; i < len(f.series); i += 2 {
			x := f.series[i]
			if i+1 < len(f.series) {
				y := f.series[i+1]
				y.Latency.Merge(x.Latency)
				x = y
			}
			kept = append(kept, x)
		}
		f.series = kept
		f.period *= 2
	}
}

// State is the follower's figures now: the latency of every key seen so far (the warm-up's
// too), and the keys sampled and not yet seen.
type State struct {
	Latency          latency.Histogram
	Sampled, Seen    int64
	Pending          int64
	Table, KeyColumn string
}

// State returns the follower's [State] now.
func (f *Follower) State() State {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := State{Sampled: f.sampled, Seen: f.seen, Pending: int64(len(f.pending)), Table: f.table.Name, KeyColumn: f.table.Kind.Column()}
	st.Latency.Merge(f.hist)
	st.Latency.Merge(f.warm)
	return st
}

// Finish ends the following once the run has flushed every message: it polls until every
// sampled key was seen, at most Options.Timeout, and no longer than ctx lives (a signal ends
// the wait at once). waiting, when set, is told how many keys are still unseen and the longest
// the wait may take before it begins; a wait that is not needed is not announced. When the
// run was interrupted, or the timeout is zero, Finish polls once, for at most LastPoll.
func (f *Follower) Finish(ctx context.Context, interrupted bool, waiting func(unseen int, max time.Duration)) Result {
	f.stop()
	begin := time.Now()
	res := Result{Timeout: f.opt.Timeout, Interrupted: interrupted}
	pending := func() int {
		f.mu.Lock()
		defer f.mu.Unlock()
		return len(f.pending)
	}
	if interrupted || f.opt.Timeout == 0 {
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), LastPoll)
		f.poll(pctx)
		cancel()
	} else {
		deadline := begin.Add(f.opt.Timeout)
		wctx, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		for announced := false; ; announced = true {
			f.poll(wctx)
			n := pending()
			if n == 0 || wctx.Err() != nil {
				break
			}
			if !announced && waiting != nil {
				waiting(n, f.opt.Timeout)
			}
			t := time.NewTimer(min(f.opt.Every, time.Until(deadline)))
			select {
			case <-t.C:
			case <-wctx.Done():
			}
			t.Stop()
		}
		res.Interrupted = ctx.Err() != nil
	}
	res.Waited = time.Since(begin)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sample(time.Since(f.start), true)
	res.Table, res.Topic, res.KeyColumn, res.Every, res.Sample = f.table.Name, f.topic, f.table.Kind.Column(), f.opt.Every, f.opt.Sample
	res.Sampled, res.Seen, res.Stale, res.Paused, res.NotRow = f.sampled, f.seen, f.stale, f.paused, f.notRow
	res.NoLoadTime = !f.table.LoadTime
	res.Latency.Merge(f.hist)
	res.Warmup.Merge(f.warm)
	res.PollTime.Merge(f.polltime)
	res.Polls, res.PollErrors, res.LastPollError = f.polls, f.errs, f.lastErr
	res.Series = slices.Clone(f.series)
	res.MeasuredFrom = measuredFrom(f.intended, f.handed)
	res.UnseenCount = int64(len(f.pending))
	for i, s := range f.pending {
		if i == MaxUnseenKeys {
			break
		}
		res.Unseen = append(res.Unseen, s.key)
	}
	return res
}

// MaxUnseenKeys bounds the unseen keys a Result lists; UnseenCount counts them all.
const MaxUnseenKeys = 1000

// measuredFrom names what latency is measured from.
func measuredFrom(intended, handed int64) string {
	switch {
	case handed == 0:
		return "intended send time"
	case intended == 0:
		return "handed to producer"
	}
	return fmt.Sprintf("intended send time (%d messages), handed to producer (%d)", intended, handed)
}

// Result is what following the table measured by the end of the run.
type Result struct {
	// Table is the table read, Topic the topic sampled, KeyColumn its key (WatchID, order_id).
	Table, Topic, KeyColumn string
	// Every is the poll period: with PollTime's round trip, the error bound of every latency.
	Every time.Duration
	// Sample is the most messages sampled per second of intended send time.
	Sample float64
	// Sampled counts the messages sampled, Seen those whose row was read; UnseenCount the
	// others, Unseen the first MaxUnseenKeys of them in sampling order.
	Sampled, Seen, UnseenCount int64
	Unseen                     []Key
	// Latency is the time until queryable of every seen key but the warm-up's, which
	// Warmup holds.
	Latency, Warmup latency.Histogram
	// Stale counts the sampled keys first found only in rows loaded before the run (a day
	// played again): they waited for their own row. NoLoadTime says the table has no _load_ts,
	// so such rows could not be told apart and counted as seen at once.
	Stale      int64
	NoLoadTime bool
	// Paused counts the messages the sampling left out while MaxPending keys were waiting;
	// NotRow the sampled messages the intake does not accept as a row (garbage), not followed.
	Paused, NotRow int64
	// MeasuredFrom says what latency is measured from, as generator/measure/follow says it.
	MeasuredFrom string
	// Series samples the keys sampled, seen and pending over the run and the wait at its end,
	// with the latency of the keys seen since the sample before.
	Series []Sample
	// PollTime is the round trip of each poll; Polls and PollErrors count them.
	PollTime      latency.Histogram
	Polls         int
	PollErrors    int
	LastPollError string
	// Timeout is the bound of the wait (Options.Timeout); Waited how long Finish took.
	Timeout, Waited time.Duration
	// Interrupted says the wait did not run its course: the run was interrupted, or ctx ended
	// it (a signal).
	Interrupted bool
}

// Sample is the follower's state At after it started.
type Sample struct {
	At                     time.Duration
	Sampled, Seen, Pending int64
	// Latency holds the keys seen since the sample before.
	Latency latency.Histogram
}
