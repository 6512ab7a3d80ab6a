// Package follow measures freshness: how long after its intended send time each message a run
// acknowledged was taken by a consumer group, taken meaning the group's committed offset has
// passed it. It polls the groups' committed offsets (franz-go's kadm) while the run plays,
// matches them against the acknowledged (topic, partition, offset, due) the Kafka sink hears
// ([sink.OnAck]), and at the end waits, boundedly, until each group has taken everything.
//
// Latency of a message = the time the first poll whose answer shows the group's commit past
// its offset was received − the message's Due (its intended send time; for an unpaced run the
// time it was handed to the producer). It is therefore at most one poll period (plus the
// poll's round trip) late, never early, and a consumer that stalls is charged for every
// message it holds back, however few were sent meanwhile: nothing is sampled.
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
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/clickgen/clickgen/generator/metrics"
	"github.com/clickgen/clickgen/generator/report"
	"github.com/clickgen/clickgen/generator/sink"
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
	// Timeout bounds the wait at the end for each group to take everything; zero polls once
	// and does not wait (the CLI's default is 2m).
	Timeout time.Duration
}

// Validate checks the options.
func (o Options) Validate() error {
	switch {
	case len(o.Groups) == 0:
		return fmt.Errorf("no group to follow")
	case o.Every < 0: // zero: the default
		return fmt.Errorf("poll period %v: want a positive duration", o.Every)
	case o.Timeout < 0:
		return fmt.Errorf("timeout %v: want a duration ≥ 0", o.Timeout)
	}
	for _, g := range o.Groups {
		if g == "" {
			return fmt.Errorf("an empty group name")
		}
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

// Acked hears one acknowledged record; it is the sink's [sink.OnAck] function.
func (f *Follower) Acked(a sink.Ack) {
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
		g.part(tp{a.Topic, a.Partition}).add(a.Offset, a.Due.UnixNano(), now, &g.hist, g.topicHist(a.Topic))
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
			g.part(tp{o.Topic, o.Partition}).commit(o.At, now, &g.hist, g.topicHist(o.Topic))
		})
		var runs int64
		for _, p := range g.parts {
			runs += int64(len(p.runs) - p.head)
		}
		g.peakRuns = max(g.peakRuns, runs)
		g.sample(now.Sub(f.start), f.followed(g))
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

// Finish ends the following once the run has flushed every message: it waits up to
// Options.Timeout (not at all when interrupted) for each group to take everything the run
// acknowledged, prints one line per group on w and returns its part of the report file
// (report.Report.Follow), keyed by group, and
// an error naming each group that did not finish and its lag.
func (f *Follower) Finish(w io.Writer, interrupted bool) (map[string]report.FollowGroup, error) {
	f.stop()
	begin := time.Now()
	deadline := begin.Add(f.opt.Timeout)
	if interrupted {
		deadline = begin
	}
	drained := map[string]time.Duration{}
	for {
		f.poll(context.Background())
		now := time.Now()
		f.mu.Lock()
		for _, g := range f.groups {
			if _, ok := drained[g.name]; !ok && len(f.untaken(g)) == 0 {
				drained[g.name] = now.Sub(begin)
			}
		}
		f.mu.Unlock()
		if len(drained) == len(f.groups) || !now.Before(deadline) {
			break
		}
		time.Sleep(min(f.opt.Every, time.Until(deadline)))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	from := f.measuredFrom()
	rep := map[string]report.FollowGroup{}
	var failed []string
	for _, g := range f.groups {
		r := report.FollowGroup{
			LatencyMS: percentiles(g.hist), LatencyDistributionMS: g.hist.Distribution(), Taken: int64(g.hist.Count()), MeasuredFrom: from,
			Lag: g.samples, PeakStateBytes: g.peakRuns * int64(unsafe.Sizeof(run{})), Polls: g.polls, PollErrors: g.errors, LastPollError: g.lastErr,
		}
		for _, p := range g.parts {
			r.Reordered += p.reordered
			r.Late += p.late
		}
		if r.Lag == nil {
			r.Lag = []report.LagSample{}
		}
		for t := range f.topics {
			if len(g.read) > 0 && !g.read[t] {
				r.NotRead = append(r.NotRead, t)
			}
		}
		slices.Sort(r.NotRead)
		if d, ok := drained[g.name]; ok {
			s := d.Seconds()
			r.DrainedS = &s
			fmt.Fprintf(w, "follow %s: %d taken, drained %.2fs after the run; pipeline latency %s (measured from: %s)\n",
				g.name, r.Taken, s, percentilesLine(r.LatencyMS), from)
		} else {
			r.Untaken = f.untaken(g)
			lag := lagText(r.Untaken)
			fmt.Fprintf(w, "follow %s: NOT drained within %v: untaken %s; %d taken, pipeline latency %s (measured from: %s)\n",
				g.name, f.opt.Timeout, lag, r.Taken, percentilesLine(r.LatencyMS), from)
			failed = append(failed, fmt.Sprintf("group %s (lag %s)", g.name, lag))
		}
		if len(r.NotRead) > 0 {
			fmt.Fprintf(w, "follow %s: topic(s) %s not followed: the group committed nothing on them\n", g.name, strings.Join(r.NotRead, ", "))
		}
		if g.errors > 0 {
			fmt.Fprintf(w, "follow %s: %d of %d polls failed, last: %s\n", g.name, g.errors, g.polls, g.lastErr)
		}
		rep[g.name] = r
	}
	if len(failed) > 0 && !interrupted {
		return rep, &NotDrainedError{Groups: failed, Timeout: f.opt.Timeout}
	}
	return rep, nil
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
// taken so far and the messages acknowledged but not yet taken (the lag, over the partitions
// that count), in all and by topic. A caller measures an interval as the difference of two
// states (Histogram.Since).
type State struct {
	Latency metrics.Histogram
	Untaken int64
	// Topics holds the same by topic, for the topics that count (those the group has
	// committed on, or all of them while it has committed on none).
	Topics map[string]TopicState
}

// TopicState is a group's figures on one topic.
type TopicState struct {
	Latency metrics.Histogram
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

// percentiles is h's pipeline latency as the report keeps it.
func percentiles(h metrics.Histogram) report.Percentiles {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return report.Percentiles{P50: ms(h.Quantile(0.5)), P90: ms(h.Quantile(0.9)), P99: ms(h.Quantile(0.99)),
		P999: ms(h.Quantile(0.999)), Max: ms(h.Max())}
}

// percentilesLine is p as the console's follow line spells it.
func percentilesLine(p report.Percentiles) string {
	if p.Max == 0 && p.P50 == 0 {
		return "none (nothing taken)"
	}
	d := func(ms float64) string {
		return time.Duration(ms * float64(time.Millisecond)).Round(100 * time.Microsecond).String()
	}
	return fmt.Sprintf("p50 %s p90 %s p99 %s p99.9 %s max %s", d(p.P50), d(p.P90), d(p.P99), d(p.P999), d(p.Max))
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
	hist     metrics.Histogram             // every message taken
	byTopic  map[string]*metrics.Histogram // the same by topic
	samples  []report.LagSample
	period   time.Duration // between lag samples
	last     time.Duration // the last sample's time, -1 before the first
	polls    int
	errors   int
	peakRuns int64 // the most runs held at a poll
	lastErr  string
}

func newGroup(name string, period time.Duration) *group {
	return &group{name: name, parts: map[tp]*part{}, read: map[string]bool{}, byTopic: map[string]*metrics.Histogram{}, period: period, last: -1}
}

// topicHist is the latency histogram of g's messages on topic t.
func (g *group) topicHist(t string) *metrics.Histogram {
	h := g.byTopic[t]
	if h == nil {
		h = &metrics.Histogram{}
		g.byTopic[t] = h
	}
	return h
}

func (g *group) part(k tp) *part {
	p := g.parts[k]
	if p == nil {
		p = &part{committed: -1}
		g.parts[k] = p
	}
	return p
}

// sample records the lag of the partitions of keys at t, if a period has passed.
func (g *group) sample(t time.Duration, keys []tp) {
	if g.last >= 0 && t-g.last < g.period {
		return
	}
	g.last = t
	s := report.LagSample{T: t.Seconds(), Partitions: map[string]int64{}}
	for _, k := range keys {
		s.Partitions[k.String()] = g.parts[k].pending
	}
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
	}
}

// run is a stretch of consecutive offsets acknowledged with dues within Resolution of due.
type run struct {
	first int64
	n     int64
	due   int64 // Unix nanoseconds, the earliest of the run
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

// add records an acknowledged message at offset with due (Unix ns), heard at now; a message
// already taken has its latency recorded into each of hs.
func (p *part) add(offset, due int64, now time.Time, hs ...*metrics.Histogram) {
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
		for _, h := range hs {
			h.Record(at.Sub(time.Unix(0, due)))
		}
		return
	}
	p.pending++
	live := p.runs[p.head:]
	if n := len(live); n > 0 {
		last := &live[n-1]
		switch {
		case offset == last.first+last.n && due-last.due < int64(Resolution) && last.due-due < int64(Resolution):
			last.n++
			last.due = min(last.due, due)
			return
		case offset < last.first+last.n:
			// Out of offset order: insert in place.
			p.reordered++
			i := p.head + sort.Search(n, func(i int) bool { return live[i].first > offset })
			p.runs = slices.Insert(p.runs, i, run{first: offset, n: 1, due: due})
			return
		}
	}
	if p.head > 0 && p.head >= len(p.runs)/2 {
		p.runs = append(p.runs[:0], p.runs[p.head:]...)
		p.head = 0
	}
	p.runs = append(p.runs, run{first: offset, n: 1, due: due})
}

// commit applies a committed offset (the next offset the group will read) seen at now,
// recording the latency of every message it passes into each of hs.
func (p *part) commit(at int64, now time.Time, hs ...*metrics.Histogram) {
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
		take := min(r.n, at-r.first)
		for _, h := range hs {
			h.RecordN(now.Sub(time.Unix(0, r.due)), take)
		}
		p.pending -= take
		if take == r.n {
			p.head++
			continue
		}
		r.first += take
		r.n -= take
		break
	}
	if p.head == len(p.runs) {
		p.runs, p.head = p.runs[:0], 0
	}
}
