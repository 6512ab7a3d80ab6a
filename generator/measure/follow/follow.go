// Package follow measures freshness: how long after its intended send time each message a run
// acknowledged was taken by a consumer group, taken meaning the group's committed offset has
// passed it. It polls the groups' committed offsets (franz-go's kadm) while the run plays,
// matches them against the acknowledged (topic, partition, offset, due) it is told of
// ([Follower.Acked], fed from the Kafka sink's acknowledgements), and at the end waits,
// boundedly, until each group has taken everything. It hands what it measured on as raw
// values ([Result]: histograms, counts, lag samples); generator/measure turns them into the
// report's follow section.
//
// Latency of a message = the time the first poll whose answer shows the group's commit past
// its offset was received − the message's Due (its intended send time; for an unpaced run the
// time it was handed to the producer). It is therefore at most one poll period (plus the
// poll's round trip) late, never early, and a consumer that stalls is charged for every
// message it holds back, however few were sent meanwhile: nothing is sampled. The messages
// of a run's warm-up (their acknowledgement says so) are measured apart ([Group.Warmup]).
//
// Memory: per group and partition, the acknowledged messages not yet taken are kept in
// offset order as runs of consecutive offsets whose dues lie within [Resolution] of the run's
// first (24 bytes a run), released as the group's commit passes them. A run therefore holds
// at most the messages sent in one millisecond: the state is bounded by the time span the
// group is behind (at most 24 B × 1000 per second of backlog per partition and group, about
// 86 MB per hour of backlog per partition), not by the rate.
package follow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/measure/latency"
)

// Resolution is how far apart the dues of messages merged into one run may lie: a message's
// latency is measured from the earliest due of its run, at most this much early.
const Resolution = time.Millisecond

// Admin is what the follower asks of Kafka; *kadm.Client has it.
type Admin interface {
	FetchOffsets(ctx context.Context, group string) (kadm.OffsetResponses, error)
}

// Options configure a [Follower]. The zero value of a field means its default.
type Options struct {
	// Groups are the consumer groups to follow; at least one.
	Groups []string
	// Topics are the run's topics; commits on other topics are ignored.
	Topics []string
	// Every is the poll period, default 250ms.
	Every time.Duration
	// Timeout bounds the wait at the end for each group to take everything, the requests in
	// flight included; zero polls once (for at most [LastPoll]) and does not wait (the CLI's
	// default is 2m).
	Timeout time.Duration
}

// MinEvery is the shortest poll period: each poll is a round trip to the group coordinator
// for every group, and a period of 1ns ran them back to back (4,922 polls in 3 s, issue 29
// N9) without measuring latency any finer than the round trip itself.
const MinEvery = 10 * time.Millisecond

// MaxGroupName bounds a group's name. Kafka sets none below its protocol's 32767 bytes, but
// a name is printed in the run's lines and report: no pipeline's group is longer than this,
// and a 40,000-character one was accepted (issue 29 N12).
const MaxGroupName = 255

// Validate checks the options, naming the field at fault (Groups, Every, Timeout) in a
// *field.Error: at least one group, each named by printable text of at most [MaxGroupName]
// characters (a newline in a name broke its lines), a poll period of at least [MinEvery]
// (zero: the default) and a timeout of at least zero.
func (o Options) Validate() error {
	switch {
	case len(o.Groups) == 0:
		return &field.Error{Field: "Groups", Words: "groups", Err: errors.New("no group to follow")}
	case o.Every != 0 && o.Every < MinEvery:
		return &field.Error{Field: "Every", Words: "poll period", Value: o.Every.String(), Err: fmt.Errorf("want at least %v", MinEvery)}
	case o.Timeout < 0:
		return &field.Error{Field: "Timeout", Words: "timeout", Value: o.Timeout.String(), Err: errors.New("want a duration ≥ 0")}
	}
	for _, g := range o.Groups {
		if err := checkGroup(g); err != nil {
			return &field.Error{Field: "Groups", Words: "group", Err: err}
		}
	}
	return nil
}

// checkGroup refuses a group name that is empty, too long or not printable text.
func checkGroup(g string) error {
	switch n := utf8.RuneCountInString(g); {
	case g == "":
		return errors.New("an empty group name")
	case n > MaxGroupName:
		return fmt.Errorf("%q… is %d characters long, want at most %d", string([]rune(g)[:20]), n, MaxGroupName)
	case !utf8.ValidString(g) || strings.IndexFunc(g, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		return fmt.Errorf("%q: want printable characters only", g)
	}
	return nil
}

// Follower follows consumer groups during one run. Its methods are safe for concurrent use.
type Follower struct {
	adm    Admin
	opt    Options
	topics map[string]bool
	start  time.Time

	mu       sync.Mutex
	groups   []*group
	intended int64 // acks measured from their intended send time
	handed   int64 // acks measured from the time they were handed to the producer
	unknown  int64 // acks on a topic not in Topics

	cancel context.CancelFunc
	done   chan struct{}
}

// New returns a follower asking adm; call [Follower.Start] to begin polling.
func New(adm Admin, opt Options) (*Follower, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if opt.Every == 0 {
		opt.Every = 250 * time.Millisecond
	}
	f := &Follower{adm: adm, opt: opt, topics: map[string]bool{}, start: time.Now()}
	for _, t := range opt.Topics {
		f.topics[t] = true
	}
	for _, g := range slices.Compact(slices.Sorted(slices.Values(opt.Groups))) {
		f.groups = append(f.groups, newGroup(g, max(opt.Every, time.Second)))
	}
	return f, nil
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

// Ack is one acknowledged record, as the producer's acknowledgement says it (the Kafka sink's
// sink.Ack has the same fields, so the command converts one into the other).
type Ack struct {
	Topic     string
	Partition int32
	Offset    int64
	// Due is the message's intended send time, or the time it was handed to the producer
	// when it had none; Intended says which.
	Due      time.Time
	Intended bool
	// Warmup says the message belongs to the run's warm-up: its latency is measured apart.
	Warmup bool
	// Key and Value are the message's bytes, which the follower does not read (they keep Ack
	// sink.Ack's twin).
	Key, Value []byte
}

// Acked hears one acknowledged record. It is called on the producer's acknowledgement
// goroutine and only takes the follower's lock.
func (f *Follower) Acked(a Ack) {
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.topics[a.Topic] {
		f.unknown++
		return
	}
	if a.Intended {
		f.intended++
	} else {
		f.handed++
	}
	for _, g := range f.groups {
		g.part(tp{a.Topic, a.Partition}).add(a.Offset, a.Due.UnixNano(), a.Warmup, now, g.hists(a.Topic))
	}
}

// poll asks each group's committed offsets once and releases what they passed.
func (f *Follower) poll(ctx context.Context) {
	for _, g := range f.groups {
		rctx, cancel := context.WithTimeout(ctx, max(10*time.Second, 4*f.opt.Every))
		resp, err := f.adm.FetchOffsets(rctx, g.name)
		cancel()
		if err == nil {
			err = resp.Error()
		}
		if errors.Is(err, kerr.GroupIDNotFound) {
			err = nil // no such group yet: it has committed nothing
		}
		now := time.Now()
		f.mu.Lock()
		g.polls++
		if err != nil {
			if ctx.Err() == nil {
				g.errors++
				g.lastErr = err.Error()
			}
			f.mu.Unlock()
			continue
		}
		resp.Each(func(o kadm.OffsetResponse) {
			if !f.topics[o.Topic] || o.Err != nil || o.At < 0 {
				return
			}
			g.read[o.Topic] = true
			g.part(tp{o.Topic, o.Partition}).commit(o.At, now, g.hists(o.Topic))
		})
		var runs int64
		for _, p := range g.parts {
			runs += int64(len(p.runs) - p.head)
		}
		g.peakRuns = max(g.peakRuns, runs)
		g.sample(now.Sub(f.start), f.followed(g), false)
		f.mu.Unlock()
	}
}

// followed returns the partitions of g that count: those of the topics g has committed on, or
// of every topic when it has committed on none (it took nothing). Call with mu held.
func (f *Follower) followed(g *group) []tp {
	var out []tp
	for k := range g.parts {
		if len(g.read) == 0 || g.read[k.topic] {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, cmpTP)
	return out
}

// untaken returns g's followed partitions that still hold messages, and their counts. Call
// with mu held.
func (f *Follower) untaken(g *group) map[string]int64 {
	out := map[string]int64{}
	for _, k := range f.followed(g) {
		if n := g.parts[k].pending; n > 0 {
			out[k.String()] = n
		}
	}
	return out
}

// LastPoll bounds the one poll [Follower.Finish] makes when it does not wait: after an
// interrupted run, or with a zero Options.Timeout.
const LastPoll = time.Second

// Finish ends the following once the run has flushed every message: it waits for each group
// to take everything the run acknowledged, at most Options.Timeout (the requests in flight
// included: frozen brokers do not stretch it), and no longer than ctx lives (a signal ends the
// wait at once). waiting, when set, is told the groups still behind and the longest the wait
// may take before it begins; a wait that is not needed (every group drained at the first
// poll) is not announced. When the run was interrupted, Finish does not wait: it polls once,
// for at most [LastPoll]. The lag series ends with the groups' state at the end (0 for a
// group that drained). The Result says what each group took and how the wait ended; its Err
// names the groups that did not drain.
func (f *Follower) Finish(ctx context.Context, interrupted bool, waiting func(behind []string, max time.Duration)) Result {
	f.stop()
	begin := time.Now()
	res := Result{Timeout: f.opt.Timeout, Interrupted: interrupted}
	drained := map[string]time.Duration{}
	// settled records the groups that have drained by now, and returns those still behind.
	settled := func(now time.Time) []string {
		f.mu.Lock()
		defer f.mu.Unlock()
		var behind []string
		for _, g := range f.groups {
			if _, ok := drained[g.name]; ok {
				continue
			}
			if len(f.untaken(g)) == 0 {
				drained[g.name] = now.Sub(begin)
			} else {
				behind = append(behind, g.name)
			}
		}
		return behind
	}
	if interrupted || f.opt.Timeout == 0 {
		// No wait: one poll, on a context of its own (an interrupted run's is done already).
		pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), LastPoll)
		f.poll(pctx)
		cancel()
		settled(time.Now())
	} else {
		deadline := begin.Add(f.opt.Timeout)
		wctx, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		for announced := false; ; announced = true {
			f.poll(wctx)
			behind := settled(time.Now())
			if len(behind) == 0 || wctx.Err() != nil {
				break
			}
			if !announced && waiting != nil {
				waiting(behind, f.opt.Timeout)
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
	res.MeasuredFrom = f.measuredFrom()
	end := time.Since(f.start)
	for _, g := range f.groups {
		g.sample(end, f.followed(g), true) // the last sample is the state at the end
		r := Group{Name: g.name, Polls: g.polls, PollErrors: g.errors, LastPollError: g.lastErr,
			PeakStateBytes: g.peakRuns * int64(unsafe.Sizeof(run{})), Lag: slices.Clone(g.samples)}
		r.Latency.Merge(g.hist)
		r.Warmup.Merge(g.warm)
		for _, p := range g.parts {
			r.Reordered += p.reordered
			r.Late += p.late
		}
		for t := range f.topics {
			if len(g.read) > 0 && !g.read[t] {
				r.NotRead = append(r.NotRead, t)
			}
		}
		slices.Sort(r.NotRead)
		if d, ok := drained[g.name]; ok {
			r.Drained, r.DrainedAfter = true, d
		} else {
			r.Untaken = f.untaken(g)
		}
		res.Groups = append(res.Groups, r)
	}
	return res
}

// Result is what following measured by the end of the run, and how the wait at the end went.
type Result struct {
	// Groups are the followed groups, by name.
	Groups []Group
	// MeasuredFrom says what latency is measured from: "intended send time" (paced runs),
	// "handed to producer" (unpaced runs), or both with their counts.
	MeasuredFrom string
	// Timeout is the bound of the wait (Options.Timeout); Waited how long Finish took.
	Timeout, Waited time.Duration
	// Interrupted says the wait did not run its course: the run was interrupted, or ctx ended
	// the wait (a signal).
	Interrupted bool
}

// Err is a *[NotDrainedError] naming each group that did not take everything within the
// timeout; nil when every group drained, or when the wait was interrupted (then nothing was
// waited for, and the interruption is the run's outcome).
func (r Result) Err() error {
	var failed []string
	for _, g := range r.Groups {
		if !g.Drained {
			failed = append(failed, fmt.Sprintf("group %s (lag %s)", g.Name, g.LagText()))
		}
	}
	if len(failed) == 0 || r.Interrupted {
		return nil
	}
	return &NotDrainedError{Groups: failed, Timeout: r.Timeout}
}

// Group is what following one consumer group measured, as raw values.
type Group struct {
	Name string
	// Latency is the pipeline latency of every run message the group took but the warm-up's,
	// which Warmup holds (empty without a warm-up); a message taken is in one of them.
	Latency, Warmup latency.Histogram
	// Drained says the group took everything the run acknowledged, DrainedAfter how long
	// after the start of Finish (the end of the run's flush).
	Drained      bool
	DrainedAfter time.Duration
	// Untaken counts, per partition ("topic/partition"), the messages not taken at the end of
	// a group that did not drain.
	Untaken map[string]int64
	// NotRead lists the run's topics the group committed nothing on while it committed on
	// others: they do not count toward draining.
	NotRead []string
	// Lag samples the untaken messages per partition over the run and the wait at its end.
	Lag []LagSample
	// Reordered counts acknowledgements that came below a later offset of their partition;
	// Late those the group had already committed past.
	Reordered, Late int64
	// PeakStateBytes is the most memory the group's untaken messages took at a poll.
	PeakStateBytes int64
	Polls          int
	PollErrors     int
	LastPollError  string
}

// LagText spells the group's untaken messages in partition order: "hits/0 12, hits/1 7".
func (g Group) LagText() string { return lagText(g.Untaken) }

// LagSample is the untaken messages per partition ("topic/partition") At after the follower
// started.
type LagSample struct {
	At         time.Duration
	Partitions map[string]int64
}

// NotDrainedError is Finish's error when a group did not take everything the run sent
// within the follower's timeout: each of Groups reads "group NAME (lag TOPIC/P N, …)".
type NotDrainedError struct {
	Groups  []string
	Timeout time.Duration
}

func (e *NotDrainedError) Error() string {
	return fmt.Sprintf("follow: %s did not take everything the run sent within %v", strings.Join(e.Groups, ", "), e.Timeout)
}

// State is one group's figures at a moment of the run: the latency of every message it has
// taken so far (the warm-up's too) and the messages acknowledged but not yet taken (the lag,
// over the partitions that count), in all and by topic. A caller measures an interval as the
// difference of two states (Histogram.Since).
type State struct {
	Latency latency.Histogram
	Untaken int64
	// Topics holds the same by topic, for the topics that count (those the group has
	// committed on, or all of them while it has committed on none).
	Topics map[string]TopicState
}

// TopicState is a group's figures on one topic.
type TopicState struct {
	Latency latency.Histogram
	Untaken int64
}

// States returns each group's [State] now, keyed by group.
func (f *Follower) States() map[string]State {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]State, len(f.groups))
	for _, g := range f.groups {
		st := State{Topics: map[string]TopicState{}}
		st.Latency.Merge(g.hist) // a copy: the follower goes on recording into g.hist
		st.Latency.Merge(g.warm)
		for t := range f.topics {
			if len(g.read) == 0 || g.read[t] {
				var ts TopicState
				if h := g.byTopic[t]; h != nil {
					ts.Latency.Merge(*h)
				}
				st.Topics[t] = ts
			}
		}
		for _, k := range f.followed(g) {
			st.Untaken += g.parts[k].pending
			ts := st.Topics[k.topic]
			ts.Untaken += g.parts[k].pending
			st.Topics[k.topic] = ts
		}
		out[g.name] = st
	}
	return out
}

// measuredFrom names what latency is measured from. Call with mu held.
func (f *Follower) measuredFrom() string {
	switch {
	case f.handed == 0:
		return "intended send time"
	case f.intended == 0:
		return "handed to producer"
	}
	return fmt.Sprintf("intended send time (%d messages), handed to producer (%d)", f.intended, f.handed)
}

// lagText spells untaken counts in partition order: "hits/0 12, hits/1 7".
func lagText(m map[string]int64) string {
	keys := slices.Collect(maps.Keys(m))
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, m[k])
	}
	return b.String()
}

// maxSamples bounds a group's lag samples: past it, every other one is dropped and the
// sampling period doubles.
const maxSamples = 1200

type tp struct {
	topic string
	part  int32
}

func (k tp) String() string { return fmt.Sprintf("%s/%d", k.topic, k.part) }

func cmpTP(a, b tp) int {
	if c := strings.Compare(a.topic, b.topic); c != 0 {
		return c
	}
	return int(a.part - b.part)
}

// group is one followed group's state; the follower's mu guards it.
type group struct {
	name     string
	parts    map[tp]*part
	read     map[string]bool               // topics the group has committed on
	hist     latency.Histogram             // every message taken but the warm-up's
	warm     latency.Histogram             // the warm-up's messages taken
	byTopic  map[string]*latency.Histogram // all of them by topic
	samples  []LagSample
	period   time.Duration // between lag samples
	last     time.Duration // the last sample's time, -1 before the first
	polls    int
	errors   int
	peakRuns int64 // the most runs held at a poll
	lastErr  string
}

func newGroup(name string, period time.Duration) *group {
	return &group{name: name, parts: map[tp]*part{}, read: map[string]bool{}, byTopic: map[string]*latency.Histogram{}, period: period, last: -1}
}

// topicHist is the latency histogram of g's messages on topic t.
func (g *group) topicHist(t string) *latency.Histogram {
	h := g.byTopic[t]
	if h == nil {
		h = &latency.Histogram{}
		g.byTopic[t] = h
	}
	return h
}

// hists are where the latency of g's messages on topic t goes.
func (g *group) hists(t string) hists { return hists{&g.hist, &g.warm, g.topicHist(t)} }

// hists are the histograms a taken message's latency is recorded into: after, or warm for a
// message of the warm-up, and topic for both.
type hists struct{ after, warm, topic *latency.Histogram }

// record records n messages taken d after their due; warm says they are the warm-up's.
func (h hists) record(d time.Duration, n int64, warm bool) {
	if warm {
		h.warm.RecordN(d, n)
	} else {
		h.after.RecordN(d, n)
	}
	h.topic.RecordN(d, n)
}

func (g *group) part(k tp) *part {
	p := g.parts[k]
	if p == nil {
		p = &part{committed: -1}
		g.parts[k] = p
	}
	return p
}

// sample records the lag of the partitions of keys at t, if a period has passed or force says
// so (the state at the end).
func (g *group) sample(t time.Duration, keys []tp, force bool) {
	if g.last >= 0 && t-g.last < g.period && !force {
		return
	}
	s := LagSample{At: t, Partitions: map[string]int64{}}
	for _, k := range keys {
		s.Partitions[k.String()] = g.parts[k].pending
	}
	if n := len(g.samples); n > 0 && t <= g.last {
		g.samples[n-1] = s // the end, at the moment of the last sample: the end's state wins
		return
	}
	g.last = t
	g.samples = append(g.samples, s)
	if len(g.samples) >= maxSamples {
		kept := g.samples[:0]
		for i, s := range g.samples {
			if i%2 == 0 {
				kept = append(kept, s)
			}
		}
		g.samples = kept
		g.period *= 2
		if force {
			g.samples = append(g.samples, s) // the state at the end is kept, whatever its index
		}
	}
}

// run is a stretch of consecutive offsets acknowledged with dues within Resolution of due,
// all of the warm-up or none.
type run struct {
	first int64
	due   int64 // Unix nanoseconds, the earliest of the run
	n     int32 // a millisecond's messages: far below 2^31
	warm  bool
}

// advance is one poll that saw the committed offset move.
type advance struct {
	at        time.Time
	committed int64
}

// historyLen is how many commit advances a partition remembers, for acknowledgements that
// arrive after the group had already taken them.
const historyLen = 64

// part is one partition's state for one group.
type part struct {
	runs      []run // in offset order from runs[head]
	head      int
	pending   int64 // messages in runs
	committed int64 // the last committed offset seen; -1 none
	history   []advance
	// late counts acknowledgements of offsets the group had already committed past;
	// reordered those that arrived below a later offset.
	late, reordered int64
}

// add records an acknowledged message at offset with due (Unix ns), heard at now; warm says it
// is the warm-up's. A message already taken has its latency recorded into hs.
func (p *part) add(offset, due int64, warm bool, now time.Time, hs hists) {
	if offset < p.committed {
		// Taken before its acknowledgement reached us: the first poll that saw it taken is
		// the earliest remembered advance past it.
		p.late++
		at := now
		for _, a := range p.history {
			if a.committed > offset {
				at = a.at
				break
			}
		}
		hs.record(at.Sub(time.Unix(0, due)), 1, warm)
		return
	}
	p.pending++
	live := p.runs[p.head:]
	if n := len(live); n > 0 {
		last := &live[n-1]
		switch {
		case offset == last.first+int64(last.n) && due-last.due < int64(Resolution) && last.due-due < int64(Resolution) &&
			warm == last.warm && last.n < math.MaxInt32:
			last.n++
			last.due = min(last.due, due)
			return
		case offset < last.first+int64(last.n):
			// Out of offset order: insert in place.
			p.reordered++
			i := p.head + sort.Search(n, func(i int) bool { return live[i].first > offset })
			p.runs = slices.Insert(p.runs, i, run{first: offset, n: 1, due: due, warm: warm})
			return
		}
	}
	if p.head > 0 && p.head >= len(p.runs)/2 {
		p.runs = append(p.runs[:0], p.runs[p.head:]...)
		p.head = 0
	}
	p.runs = append(p.runs, run{first: offset, n: 1, due: due, warm: warm})
}

// commit applies a committed offset (the next offset the group will read) seen at now,
// recording the latency of every message it passes into hs.
func (p *part) commit(at int64, now time.Time, hs hists) {
	if at <= p.committed {
		return
	}
	p.committed = at
	if len(p.history) == historyLen {
		p.history = append(p.history[:0], p.history[1:]...)
	}
	p.history = append(p.history, advance{at: now, committed: at})
	for p.head < len(p.runs) {
		r := &p.runs[p.head]
		if r.first >= at {
			break
		}
		take := min(int64(r.n), at-r.first)
		hs.record(now.Sub(time.Unix(0, r.due)), take, r.warm)
		p.pending -= take
		if take == int64(r.n) {
			p.head++
			continue
		}
		r.first += take
		r.n -= int32(take)
		break
	}
	if p.head == len(p.runs) {
		p.runs, p.head = p.runs[:0], 0
	}
}
