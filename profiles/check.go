package profiles

import (
	"context"
	"io"

	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/reconcile"
	"github.com/clickgen/clickgen/generator/sink"
)

// CheckRun says whether a run of p, played as plan with result out into topics whose
// acknowledgements are st, delivered what it should. With brokers (the embedded broker's,
// which only this run wrote to) it reads the topics back ([reconcile.CheckRun], its table to
// w); with none it trusts what was acknowledged. The counts p expects are then compared with
// what the topics hold ([Profile.CheckExpect]), for the whole run only: a segment holds its
// share. It returns the problems found, one line each; err is a failure to read back.
func (p Profile) CheckRun(ctx context.Context, w io.Writer, brokers []string, plan play.Plan, out play.Result, st sink.Stats) (problems []string, err error) {
	run := reconcile.Run{World: plan.World, From: plan.From, Days: plan.Days, Garbage: plan.Garbage,
		Options: reconcile.Options{Workers: plan.Workers, Segment: plan.Segment}, Hits: plan.Hits, Orders: plan.Orders, Stats: st}
	if out.Stopped != play.StopDays || plan.Days == 0 {
		run.CutShort = string(out.Stopped)
	}
	held := map[string]int64{}
	if brokers == nil {
		for _, t := range run.Topics() {
			held[t] = st.Topics[t].Acked
		}
	} else if problems, held, err = reconcile.CheckRun(ctx, w, brokers, run); err != nil {
		return nil, err
	}
	if plan.Segment.Whole() {
		problems = append(problems, p.CheckExpect(w, held)...)
	}
	return problems, nil
}
