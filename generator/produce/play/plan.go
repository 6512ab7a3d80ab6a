package play

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/clickgen/clickgen/generator/produce/sink"

	"github.com/clickgen/clickgen/generator/measure/latency"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// Plan is what one Run plays. The zero value of every optional field means "not used":
// no garbage, unpaced, no stop condition, GOMAXPROCS workers.
type Plan struct {
	World *world.World // the world to play; required
	// Range is what is played of the world, the value the inventory and verify take: the run
	// days [From, From+Days), the segment and the garbage, read as plan.From, plan.Days,
	// plan.Segment and plan.Garbage.
	//
	// Days 0 plays on from From until a stop condition (a run without one is endless) or the
	// last model day ([StopLastDay]). Garbage is added to the clean messages of both topics.
	// Segment plays only the messages that share of the run owns (see [world.Segment]); the
	// zero value plays the whole run. Run does not divide the pace: a rate shape given to N
	// segments is the run's total, so the caller builds a segment's Runner from its share,
	// [pace.Share](shape, Segment.I, Segment.N), whose due times are the shape's interleaved
	// (a ceiling likewise divided by N), and the N segments together send at the shape's rate.
	world.Range
	// Hits is the topic the days' hits go to; "" sends no hits.
	Hits string
	// Orders is the topic the run days' snapshots go to; "" sends no snapshots.
	Orders string
	Pacing Pacing
	Stop   Stop
	// Workers render batches of events in parallel; 0 means GOMAXPROCS. See [Workers]; at
	// most [world.MaxWorkers].
	Workers int
	// FlushTimeout bounds each flush, independently of ctx, so an interrupted run still gets
	// the chance to deliver what it queued; 0 means [DefaultFlushTimeout].
	FlushTimeout time.Duration
	// Warmup, when positive, makes the run's first Warmup its warm-up: its messages are sent
	// as any other, flagged [sink.Message.Warmup], so that the sink (and whoever hears its
	// acknowledgements) measures them apart. A paced run's warm-up begins with its pacing
	// ([Result.PacedFrom]) and holds every message intended before PacedFrom+Warmup, exactly,
	// by its intended send time (a message that leaves late is still the warm-up's); an
	// unpaced run's begins with its first message and holds those handed to the sink before
	// the warm-up's end. Messages without an intended time in a paced run (snapshots) belong
	// to it when they are handed over before its end, or before the pacing began. 0 has no
	// warm-up; it must be shorter than Stop.Duration, if any.
	Warmup time.Duration
}

// DefaultFlushTimeout is the flush timeout of a Plan that sets none.
const DefaultFlushTimeout = 60 * time.Second

// Pacing says when hits go. The zero value sends them as fast as the sink takes them.
type Pacing struct {
	// Runner releases each hit message at its due time; nil is unpaced. The caller builds it
	// (with its progress callback and ceiling) and may read its Snapshot during the run.
	Runner *pace.Runner
	// ByCount makes every message, malformed and re-sent ones too, wait its turn, as a rate
	// shape counts them; otherwise (model-time replay) extras ride with the event before
	// them. A run paced by count is not flushed per day, so the pace never stalls at a day
	// boundary; it is flushed at its end.
	ByCount bool
	// Shape is the rate shape of a ByCount run before any cut at Stop.Duration. It tells a
	// schedule that ended by itself ([StopSchedule]) from one cut by the duration
	// ([StopDuration]); nil counts every end of the schedule as the duration's.
	Shape pace.Pacer
}

// Stop holds the conditions that end a run early, cleanly.
type Stop struct {
	// Messages ends the hits after this many hit messages (events, garbage and re-sends);
	// 0 is no limit.
	Messages int64
	// Duration ends the sending after this much wall-clock time; 0 is no limit. A ByCount
	// run is expected to have its Runner's shape cut at Duration already (pace.Until), which
	// ends it exactly; if the sink cannot keep up, the sink takes no message later than
	// Duration (plus a grace of 1 %, between 50 ms and 1 s) after the first one was due:
	// messages due before the end and not yet released are not sent. Other runs stop at a
	// deadline from the start of Run. What is in flight when the sending ends is then
	// flushed (Result.FinalFlush), within FlushTimeout: Duration bounds the sending, not the
	// delivery of what was sent.
	Duration time.Duration
}

// StopReason says what ended a run.
type StopReason string

// The reasons a run ends.
const (
	StopDays     StopReason = "days"     // every planned day was played
	StopMessages StopReason = "messages" // Stop.Messages was reached
	StopDuration StopReason = "duration" // Stop.Duration ran out
	StopSchedule StopReason = "schedule" // the rate schedule ended by itself
	// StopLastDay: an endless plan played the last model day the wire formats carry
	// ([world.MaxDay]); it used to go on with UTCEventTime wrapped to 1970.
	StopLastDay StopReason = "last_day"
)

// Validate says what is wrong with the plan, if anything.
func (p *Plan) Validate() error {
	var errs []error
	if p.World == nil {
		errs = append(errs, errors.New("no world"))
	}
	if p.Hits == "" && p.Orders == "" {
		errs = append(errs, errors.New("nothing to send: no hits topic and no orders topic"))
	}
	if p.Days < 0 {
		errs = append(errs, fmt.Errorf("days %d: want 0 (endless) or more", p.Days))
	} else if err := p.played().Validate(); err != nil {
		errs = append(errs, err)
	}
	if p.Days == 0 && p.Orders != "" {
		errs = append(errs, errors.New("snapshots need a bounded range of days"))
	}
	if p.Stop.Messages < 0 || p.Stop.Duration < 0 {
		errs = append(errs, errors.New("stop conditions must not be negative"))
	}
	if err := world.CheckWorkers(p.Workers); err != nil {
		errs = append(errs, err)
	}
	if p.FlushTimeout < 0 {
		errs = append(errs, errors.New("flush timeout must not be negative"))
	}
	switch {
	case p.Warmup < 0:
		errs = append(errs, fmt.Errorf("warmup %v: want a duration ≥ 0", p.Warmup))
	case p.Warmup > 0 && p.Stop.Duration > 0 && p.Warmup >= p.Stop.Duration:
		errs = append(errs, fmt.Errorf("warmup %v is not shorter than the stop duration %v: nothing would be measured after it", p.Warmup, p.Stop.Duration))
	}
	if p.Pacing.ByCount && p.Pacing.Runner == nil {
		errs = append(errs, errors.New("pacing by count needs a runner"))
	}
	return errors.Join(errs...)
}

// played is the range Run plays: the plan's, an endless one (Days 0) running to the last
// model day the wire formats carry ([world.MaxDay]).
func (p *Plan) played() world.Range {
	r := p.Range
	if r.Days == 0 {
		r.Days = max(world.MaxDay-r.From+1, 1)
	}
	return r
}

// Workers is the number of render workers that suits a sink: all cores for a file or
// stdout, all but one when a Kafka client needs a core of its own for record encoding and
// compression (rendering on every core made the Kafka path ~10 % slower).
func Workers(kafka bool) int {
	n := min(runtime.GOMAXPROCS(0), world.MaxWorkers)
	if kafka {
		return max(1, n-1)
	}
	return n
}

// Topics are the topics p writes, each with the partitions a topic of its kind gets when it
// is created ([sink.DefaultTopics]: hits 2, orders 1), for [sink.Settings.Open] to check or
// create.
func (p Plan) Topics() map[string]int32 {
	want := map[string]int32{}
	for kind, topic := range map[string]string{"hits": p.Hits, "orders": p.Orders} {
		if topic != "" {
			want[topic] = sink.DefaultTopics()[kind]
		}
	}
	return want
}

// Result is what a Run did.
type Result struct {
	Stopped  StopReason // what ended the run, when it ended without error
	Sent     int64      // hit messages handed to the sink (events, garbage and re-sends)
	Snaps    int        // snapshots sent whole
	FirstDay int        // the first run day
	LastDay  int        // the last model day with a hit message sent; FirstDay−1 if none
	// PacedFrom is the intended time of the first paced message (zero when unpaced): the
	// start of the time a rate is achieved over.
	PacedFrom time.Time
	// WarmupUntil is the end of the run's warm-up ([Plan.Warmup]): PacedFrom+Warmup, or for
	// an unpaced run the first message's hand-over plus Warmup. Zero without a warm-up, or
	// when the run ended before it began. It may lie after the run's end (a run stopped or
	// interrupted within its warm-up).
	WarmupUntil time.Time
	// SendingEnded is when the run stopped sending and began its final flush, FinalFlush how
	// long that flush took: the one after a stop condition, or after the last unit of a run
	// paced by count (zero when the run ended otherwise). With Stop.Duration, a run paced by
	// count ends its sending by Duration plus its grace after PacedFrom; the flush, the
	// delivery of what was in flight then, is bounded by FlushTimeout, not by Duration.
	SendingEnded time.Time
	FinalFlush   time.Duration
}

// UnitKind says what a unit holds: the world's kinds of planned unit.
type UnitKind = world.UnitKind

// The kinds of unit a run sends.
const (
	HitsUnit     = world.HitsUnit     // one model day's hits
	SnapshotUnit = world.SnapshotUnit // the order snapshot of one model day
)

// Unit is one planned unit: a model day's hits, or the snapshot of a model day, with the
// malformed messages and re-sends added to it.
type Unit struct {
	Kind   UnitKind
	Day    int // the model day (for a snapshot: the day it is the snapshot of)
	Clean  int // clean messages: events, or order rows
	Extras int // malformed messages and re-sends added
	// Garbage counts the malformed messages among Extras by garbage class; the rest of
	// Extras are byte-identical re-sends. Nil when there are none.
	Garbage map[string]int
}

// unitOf summarises a planned unit of the world.
func unitOf(w *world.Unit) Unit {
	u := Unit{Kind: w.Kind, Day: w.Day, Clean: w.Len, Extras: len(w.Extras)}
	for i := range w.Extras {
		if c := w.Extras[i].Class; c != "" {
			if u.Garbage == nil {
				u.Garbage = make(map[string]int)
			}
			u.Garbage[c]++
		}
	}
	return u
}

// Redelivered is how many of the unit's extras are byte-identical re-sends.
func (u Unit) Redelivered() int {
	n := u.Extras
	for _, c := range u.Garbage {
		n -= c
	}
	return n
}

// Name is how logs and errors name the unit: "day 3 (2026-06-04)", "snapshot of day 2 (…)".
func (u Unit) Name() string {
	s := fmt.Sprintf("day %d (%s)", u.Day, world.DayDate(u.Day))
	if u.Kind == SnapshotUnit {
		s = "snapshot of " + s
	}
	return s
}

// UnitResult is what was done with one unit.
type UnitResult struct {
	Unit
	Sent    int64         // messages of the unit handed to the sink
	Bytes   int64         // value bytes of its clean messages
	Played  time.Duration // from the unit's start to its last message handed to the sink
	Flushed bool          // the unit was flushed (and so acknowledged whole)
	Flush   time.Duration // how long the flush took
	// Lateness is how late each paced message of the unit was handed to the sink against its
	// intended time (empty when unpaced).
	Lateness latency.Histogram
}
