package reconcile

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
)

// Run is a run that was played into topics, as [CheckRun] checks it: what was planned and
// what the sink acknowledged.
type Run struct {
	World      *world.World
	From, Days int // the run days played; Days is 0 for an endless run
	Garbage    world.Garbage
	Options    Options // the workers and the segment played
	// Hits and Orders are the topics played; "" for one that was not.
	Hits, Orders string
	// CutShort is the stop condition that ended the run before its last day ("duration",
	// "messages", …); "" for a run that played every day.
	CutShort string
	// Stats is what the sink acknowledged.
	Stats sink.Stats
}

// Topics lists the topics r played, hits first.
func (r Run) Topics() []string {
	var t []string
	for _, name := range []string{r.Hits, r.Orders} {
		if name != "" {
			t = append(t, name)
		}
	}
	return t
}

// CheckRun reads the topics r played back from brokers and says whether they hold what r
// delivered. A run of whole days is reconciled message by message against the inventory,
// never holding a topic in memory (the table goes to w; a run of one topic gets that topic's
// lines alone). A run cut short by a stop condition, which no inventory describes, is checked
// to hold exactly what was acknowledged, partition by partition ([CheckHeld]). It returns
// the problems found, one line each, and what each topic holds.
func CheckRun(ctx context.Context, w io.Writer, brokers []string, r Run) (problems []string, held map[string]int64, err error) {
	if r.CutShort != "" {
		fmt.Fprintf(w, "The run was cut short (stop condition: %s): checking that the topics hold exactly what was acknowledged.\n", r.CutShort)
		return CheckHeld(ctx, w, brokers, r.Topics(), r.Stats)
	}
	exp, err := Expect(ctx, r.World, r.From, r.Days, r.Garbage, r.Options)
	if err != nil {
		return nil, nil, err
	}
	c := exp.NewChecker()
	held = map[string]int64{}
	err = c.ReadTopics(ctx, brokers, r.Hits, r.Orders, nil, func(t string, n int64, _ time.Duration) { held[t] = n })
	if err != nil {
		return nil, nil, err
	}
	res := c.Result()
	if r.Hits != "" && r.Orders != "" {
		if err := res.WriteTable(w); err != nil {
			return nil, nil, err
		}
		if !res.OK {
			problems = []string{"the topics do not reconcile with the inventory (table above)"}
		}
		return problems, held, nil
	}
	topic := r.Hits + r.Orders // the one played
	ok, err := res.WriteTopic(w, topic)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		problems = []string{fmt.Sprintf("topic %s does not reconcile with the inventory", topic)}
	}
	return problems, held, nil
}
