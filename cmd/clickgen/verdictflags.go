package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/play"
)

// verdictFlags are --threshold and --warmup (run, batch, live): a pass/fail verdict on the
// run's final figures, and its first seconds measured apart (generator/measure). A crossed
// threshold ends a run that otherwise completed with exit code 3 (exitCode).
type verdictFlags struct {
	thresholds measure.Thresholds
	warmup     time.Duration
}

// check refuses, before anything is sent, what the run could not judge: a rate threshold on
// a run with no target rate (one not paced by a rate shape, live having its model day's:
// hasTarget), a freshness threshold without groups to follow, a negative warm-up or one that
// leaves nothing of plan's duration. Nil flags (a verb without them) check nothing.
func (vf *verdictFlags) check(verb string, plan play.Plan, hasTarget bool, groups int) error {
	if vf == nil {
		return nil
	}
	switch d := plan.Stop.Duration; {
	case vf.warmup < 0:
		return usagef(verb, "--warmup %v: want a duration ≥ 0", vf.warmup)
	case vf.warmup > 0 && d > 0 && vf.warmup >= d:
		return usagef(verb, "--warmup %v is not shorter than the run's duration %v (--duration): nothing would be measured after it", vf.warmup, d)
	case vf.warmup > 0 && plan.Pacing.ByCount && plan.Pacing.Shape != nil:
		// A rate shape that ends by itself (a ramp or steps down to 0/s), or --messages at a
		// rate, ends the run before any --duration: a warm-up as long measured everything
		// apart and judged the thresholds on nothing.
		if end, ok := pace.End(plan.Pacing.Shape, uint64(max(plan.Stop.Messages, 0))); ok && vf.warmup >= end {
			return usagef(verb, "--warmup %v is not shorter than the run: its last message is due %v after the first (the rate shape%s): nothing would be measured after it",
				vf.warmup, end, messagesWord(plan.Stop.Messages))
		}
	}
	for _, t := range vf.thresholds {
		switch {
		case t.NeedsTarget() && !plan.Pacing.ByCount && !hasTarget:
			return usagef(verb, "--threshold %s: the run has no target rate to compare with: it is not paced by a rate (run --rate, or the stress profile)", t)
		case t.Freshness && groups == 0:
			return usagef(verb, "--threshold %s: freshness is measured by following a consumer group: give --follow-group", t)
		}
	}
	return nil
}

// messagesWord names --messages when it bounds the run.
func messagesWord(n int64) string {
	if n > 0 {
		return fmt.Sprintf(" and --messages %d", n)
	}
	return ""
}

// warmupOf is the warm-up the flags ask for (0 without the flags).
func (vf *verdictFlags) warmupOf() time.Duration {
	if vf == nil {
		return 0
	}
	return vf.warmup
}

// observer judges the thresholds at the run's end on m's figures, printing each verdict on w;
// nil without thresholds.
func (vf *verdictFlags) observer(w io.Writer, m *measure.Run) play.Observer {
	if vf == nil || len(vf.thresholds) == 0 {
		return nil
	}
	return &verdictObserver{l: vf.thresholds, m: m, w: w}
}

// verdictObserver judges a run's thresholds at its end, after the measurement and the
// follower (their figures and the groups' freshness are final): each verdict is printed, held
// or crossed with its figure, and goes into the report (measure.Run.Judge). A run that
// otherwise completed ends with a *measure.CrossedError when one was crossed; a run that
// failed or was interrupted keeps its own error (its exit code wins).
type verdictObserver struct {
	play.Base
	l measure.Thresholds
	m *measure.Run
	w io.Writer
}

// RunEnded judges the thresholds.
func (o *verdictObserver) RunEnded(_ context.Context, e *play.End) error {
	vs := o.m.Judge(o.l)
	for _, v := range vs {
		fmt.Fprintf(o.w, "clickgen: threshold %s\n", v)
	}
	crossed := measure.Crossed(vs)
	if len(crossed) == 0 || e.Err != nil {
		return nil
	}
	return &measure.CrossedError{Verdicts: crossed}
}
