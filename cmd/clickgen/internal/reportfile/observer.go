package reportfile

import (
	"context"

	"github.com/clickgen/clickgen/generator/produce/play"
)

// Observer is the run's observer that keeps its report's document at the run's end: the
// document Report returns (generator/measure's, once every observer before this one in the
// list has added to it) goes to Keep. The command writes it ([Write]) at its own end, when
// its outcome is known: a threshold crossed, a group that did not drain, a check after the run
// that failed make the report's ok false.
type Observer struct {
	play.Base
	Report func() any
	Keep   func(doc any)
}

// RunEnded keeps the report's document.
func (o *Observer) RunEnded(context.Context, *play.End) error {
	o.Keep(o.Report())
	return nil
}
