package world

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clickgen/clickgen/generator/field"
)

// Range is what a run plans of a world, whole: its run days [From, From+Days) (the hits of
// those days and, for each run day X, the snapshot of day X−1), the share of the run that is
// played (Segment) and the malformed messages and redeliveries added to the clean ones
// (Garbage). Every message of a run, and so its inventory, is a pure function of the world and
// its Range. [World.Units], [World.Inventory], [World.NewInventoryBuilder], the expectation
// of reconciliation and verify take it as one value, so what is sent, counted and expected
// cannot be planned from different parts.
//
// Not in it: how many goroutines render (no byte depends on it) and the topics' partition
// counts (a property of the topics, which reconciliation is told apart).
type Range struct {
	// From is the first run day (0 is D0, Monday 2026-06-01).
	From int
	// Days is the number of run days, at least 1.
	Days int
	// Segment is the share of the run planned (see [Segment]); the zero value is the whole run.
	Segment Segment
	// Garbage is added to the clean messages of both topics; the zero value adds nothing.
	Garbage Garbage
}

// RangeError is a field of a [Range] refused by [Range.Validate]. Field is the field's name
// as Range spells it in lower case (from, days, segment, garbage), for a caller that says
// which of its inputs carried the value; the text is Err's, which names the value (a
// *field.Error for the segment and the garbage, said in a caller's names by [RangeError.Say]).
type RangeError struct {
	Field string
	Err   error
}

func (e *RangeError) Error() string { return e.Err.Error() }

// Say is Err said with the fields it names named by names (field.Say).
func (e *RangeError) Say(names field.Names) string { return field.Say(e.Err, names) }

// Unwrap returns the reason.
func (e *RangeError) Unwrap() error { return e.Err }

// Validate reports the first field of r that plans nothing, as a *[RangeError]: a first day
// before 0 or past [MaxDay], fewer than one day or days past MaxDay ([CheckDays]), a segment
// that is not I/N ([Segment.Validate]), garbage settings that describe no garbage
// ([Garbage.Validate]).
func (r Range) Validate() error {
	if err := CheckDays(r.From, r.Days); err != nil {
		field := "days"
		if r.From < 0 || r.From > MaxDay {
			field = "from"
		}
		return &RangeError{Field: field, Err: err}
	}
	if err := r.Segment.Validate(); err != nil {
		return &RangeError{Field: "segment", Err: err}
	}
	if err := r.Garbage.Validate(); err != nil {
		return &RangeError{Field: "garbage", Err: err}
	}
	return nil
}

// Name names r's run days for messages: "day 3 (2026-06-04)" for one day, "days 3…5" for
// more.
func (r Range) Name() string {
	if r.Days == 1 {
		return fmt.Sprintf("day %d (%s)", r.From, DayDate(r.From))
	}
	return fmt.Sprintf("days %d…%d", r.From, r.From+r.Days-1)
}

// Describe says what r plans, as verify's tables head it: "run days 1…1: hits of days 1…1,
// snapshots 0; garbage 0.05 (not_an_object=1,…), redeliver 0.01", or "…; no garbage, no
// redelivery". The segment is the caller's to add.
func (r Range) Describe() string {
	last := r.From + r.Days - 1
	return fmt.Sprintf("run days %d…%d: hits of days %d…%d, snapshots %s; %s", r.From, last, r.From, last, snapshotSpan(r.From, r.Days), r.Garbage.describe())
}

// snapshotSpan names the snapshot days of run days [from, from+n): "none", "5" or "0…6".
func snapshotSpan(from, n int) string {
	ds := SnapshotDays(from, n)
	switch len(ds) {
	case 0:
		return "none"
	case 1:
		return strconv.Itoa(ds[0])
	}
	return fmt.Sprintf("%d…%d", ds[0], ds[len(ds)-1])
}

// describe says g's rates and, when it names one, its mix in the garbage table's order.
func (g Garbage) describe() string {
	if g.Rate == 0 && g.Redeliver == 0 {
		return "no garbage, no redelivery"
	}
	s := fmt.Sprintf("garbage %g", g.Rate)
	if g.Mix != nil {
		var parts []string
		for _, c := range AllGarbageClasses() {
			if w, ok := g.Mix[c]; ok {
				parts = append(parts, fmt.Sprintf("%s=%d", c, w))
			}
		}
		s += " (" + strings.Join(parts, ",") + ")"
	}
	return s + fmt.Sprintf(", redeliver %g", g.Redeliver)
}
