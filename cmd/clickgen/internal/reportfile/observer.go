package reportfile

import (
	"context"
	"fmt"

	"github.com/clickgen/clickgen/generator/produce/play"
)

// Observer is the run's observer that writes its report at the end: the document report
// returns (generator/measure's, once every observer before this one in the list has added to
// it) goes to Path with [Write]. A failure fails the run, naming --report.
type Observer struct {
	play.Base
	Path   string
	Report func() any
}

// RunEnded writes the report.
func (o *Observer) RunEnded(context.Context, *play.End) error {
	if err := Write(o.Path, o.Report()); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	return nil
}
