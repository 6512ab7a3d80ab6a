package profiles

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// PlanOptions are what turning a profile into a plan needs besides the profile.
type PlanOptions struct {
	// Workers renders batches in parallel (play.Plan.Workers).
	Workers int
	// ReplayEvery and ReplayProgress, for a replayed profile, are how often and to whom the
	// runner reports its progress (nil: no reports).
	ReplayEvery    time.Duration
	ReplayProgress func(pace.Snapshot)
	// Segment plays that share of the profile (the plan's world.Range.Segment). A rate shape and a
	// pacing.max_rate are the whole run's: the segment paces its share of them (rate/N),
	// computed here and nowhere else.
	Segment world.Segment
	// HitsTopic and OrdersTopic name the topics the hits and the snapshots go to, when the
	// profile sends them; "" is the stand's own, hits and orders.
	HitsTopic, OrdersTopic string
}

// Plan turns p, with its defaults applied and validated, into the engine's plan for world
// w: its days, topics (hits, orders), garbage, stop conditions and pacing, the runner built
// (a rate shape cut at stop.duration, a ceiling at pacing.max_rate). The topics are
// opt's, by default the stand's: hits and orders.
func (p Profile) Plan(w *world.World, opt PlanOptions) (play.Plan, error) {
	plan := play.Plan{World: w, Range: world.Range{From: p.Play.Day, Days: p.Play.Days, Segment: opt.Segment, Garbage: p.Garbage},
		Stop: play.Stop{Messages: p.Stop.Messages, Duration: p.Stop.Duration}, Workers: opt.Workers}
	if err := opt.Segment.Validate(); err != nil {
		return plan, err
	}
	parts := max(1, opt.Segment.N)
	if p.Play.Endless {
		plan.Days = 0
	}
	if p.Play.Send == SendHits || p.Play.Send == SendBoth {
		plan.Hits = cmp.Or(opt.HitsTopic, "hits")
	}
	if p.Play.Send == SendSnapshots || p.Play.Send == SendBoth {
		plan.Orders = cmp.Or(opt.OrdersTopic, "orders")
	}
	var schedule pace.Schedule
	var opts []pace.Opt
	if r := p.Pacing.MaxRate; r != 0 {
		opts = append(opts, pace.WithMaxRate(r/pace.Rate(parts)))
		schedule = func(uint64, time.Duration) (time.Duration, bool) { return 0, true } // only the ceiling
	}
	switch p.Pacing.Mode {
	case PaceReplay:
		s, err := pace.Replay(p.Pacing.Speed)
		if err == nil && !p.Play.Endless {
			// Every day of the run must be due within a time.Duration, not only the first.
			err = pace.CheckReplay(p.Pacing.Speed, time.Duration(p.Play.Days)*24*time.Hour)
		}
		if err != nil {
			return plan, fmt.Errorf("pacing.speed: %w", err)
		}
		schedule = s
		if opt.ReplayProgress != nil {
			opts = append(opts, pace.WithProgress(opt.ReplayEvery, opt.ReplayProgress))
		}
	case PaceRate:
		shape, err := pace.Share(p.Shape().Pacer, opt.Segment.I, parts)
		if err != nil {
			return plan, err
		}
		cut := shape
		if p.Stop.Duration > 0 {
			var err error
			if cut, err = pace.Until(shape, p.Stop.Duration); err != nil {
				return plan, fmt.Errorf("stop.duration: %w", err)
			}
		}
		schedule = pace.ByCount(cut)
		plan.Pacing = play.Pacing{ByCount: true, Shape: shape}
	}
	if schedule != nil {
		runner, err := pace.NewRunner(schedule, opts...)
		if err != nil {
			return plan, err
		}
		plan.Pacing.Runner = runner
	}
	return plan, plan.Validate()
}

// Describe says in one line what p plays: days, topics, world, pacing, garbage, stop
// conditions.
func (p Profile) Describe() string {
	var b strings.Builder
	if p.Play.Endless {
		fmt.Fprintf(&b, "model days from %d on", p.Play.Day)
	} else {
		fmt.Fprintf(&b, "model days %d-%d", p.Play.Day, p.Play.Day+p.Play.Days-1)
	}
	fmt.Fprintf(&b, " (%s), seed %d, scale %g", p.Play.Send, p.World.Seed, p.World.Scale)
	switch p.Pacing.Mode {
	case PaceReplay:
		fmt.Fprintf(&b, ", replayed at x%g", p.Pacing.Speed)
	case PaceRate:
		fmt.Fprintf(&b, ", paced at %s", pace.ShapeName(p.Shape().Pacer))
	default:
		b.WriteString(", unpaced")
	}
	if p.Pacing.MaxRate != 0 {
		fmt.Fprintf(&b, " under %s", p.Pacing.MaxRate)
	}
	if p.Garbage.Rate > 0 || p.Garbage.Redeliver > 0 {
		fmt.Fprintf(&b, ", garbage %g, redeliver %g", p.Garbage.Rate, p.Garbage.Redeliver)
	}
	if p.Stop.Duration > 0 {
		fmt.Fprintf(&b, ", for %v", p.Stop.Duration)
	}
	if p.Stop.Messages > 0 {
		fmt.Fprintf(&b, ", at most %d messages", p.Stop.Messages)
	}
	return b.String()
}
