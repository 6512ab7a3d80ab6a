package topics

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// Run is a run that was played into topics, as [CheckRun] checks it: what was planned, what
// the sink acknowledged, and what its source (a profile) says the topics must hold.
type Run struct {
	World *world.World
	// Range is what was played; its Days is 0 for an endless run (which CutShort then names).
	Range world.Range
	// Options are the expectation's: the workers, and the partition counts (the stand's by
	// default).
	Options Options
	// Hits and Orders are the topics played; "" for one that was not.
	Hits, Orders string
	// CutShort is the stop condition that ended the run before its last day ("duration",
	// "messages", …); "" for a run that played every day.
	CutShort string
	// Stats is what the sink acknowledged.
	Stats sink.Stats
	// Want is what the topics must hold in all, as the run's source states it; checked for
	// the whole run only (a segment holds its share).
	Want Counts
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

// CheckRun says whether the topics r played hold what r delivered, reading them back from
// brokers (the embedded broker's, which only this run wrote to); with no brokers it trusts
// what was acknowledged. A run of whole days is reconciled message by message against the
// inventory, never holding a topic in memory (the table goes to w; a run of one topic gets
// that topic's lines alone). A run cut short by a stop condition, which no inventory
// describes, is checked to hold exactly what was acknowledged, partition by partition
// ([CheckHeld]). Then, for the whole run, what each topic holds is compared with r.Want
// ([Counts.Check]). It returns the problems found, one line each, and what each topic holds;
// err is a failure to read back.
func CheckRun(ctx context.Context, w io.Writer, brokers []string, r Run) (problems []string, held map[string]int64, err error) {
	switch {
	case brokers == nil:
		held = map[string]int64{}
		for _, t := range r.Topics() {
			held[t] = r.Stats.Topics[t].Acked
		}
	case r.CutShort != "":
		fmt.Fprintf(w, "The run was cut short (stop condition: %s): checking that the topics hold exactly what was acknowledged.\n", r.CutShort)
		problems, held, err = CheckHeld(ctx, w, brokers, r.Topics(), r.Stats)
	default:
		problems, held, err = r.reconcile(ctx, w, brokers)
	}
	if err != nil {
		return nil, nil, err
	}
	if r.Range.Segment.Whole() {
		problems = append(problems, r.Want.Check(w, held)...)
	}
	return problems, held, nil
}

// reconcile reads r's topics back from brokers into the expectation of r's range.
func (r Run) reconcile(ctx context.Context, w io.Writer, brokers []string) (problems []string, held map[string]int64, err error) {
	exp, err := Expect(ctx, r.World, r.Range, r.Options)
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

// Counts are exact message counts the topics must hold after a run, as something states them
// (a profile's expect:). The zero value states nothing.
type Counts struct {
	// Source names what states the counts, in messages: "profile smoke".
	Source string
	// Hits and Orders are what topics hits and orders must hold; nil states nothing.
	Hits, Orders *int64
}

// Check compares what each topic holds (held) with the counts, writing a line per stated
// topic to w ("expect hits: 120 messages, profile smoke says 120: ok"). It returns a problem
// line for each count that differs; none when c states nothing.
func (c Counts) Check(w io.Writer, held map[string]int64) (problems []string) {
	for _, e := range []struct {
		topic string
		want  *int64
	}{{TopicHits, c.Hits}, {TopicOrders, c.Orders}} {
		if e.want == nil {
			continue
		}
		verdict := "ok"
		if held[e.topic] != *e.want {
			verdict = "DIFFERS"
			problems = append(problems, fmt.Sprintf("%s holds %d messages, %s expects %d", e.topic, held[e.topic], c.Source, *e.want))
		}
		fmt.Fprintf(w, "expect %s: %d messages, %s says %d: %s\n", e.topic, held[e.topic], c.Source, *e.want, verdict)
	}
	return problems
}
