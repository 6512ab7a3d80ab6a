package play

import (
	"context"
	"errors"
	"fmt"

	"github.com/clickgen/clickgen/generator/field"
)

// Interruption is a step of a run (the run itself, reading topics back, computing an
// expectation) ended by the first signal, saying what it had done by then: a bare "context
// canceled" said neither (issue 31). It wraps the context's error, so errors.Is finds
// context.Canceled; a caller says whose step it was ("batch: interrupted…").
type Interruption struct {
	Did string // what follows "interrupted": " after …: nothing was printed", ": the summary above …"
	Err error  // wraps context.Canceled
}

func (e *Interruption) Error() string { return "interrupted" + e.Did }
func (e *Interruption) Unwrap() error { return e.Err }

// What is what the step had done, as it follows "interrupted".
func (e *Interruption) What() string { return e.Did }

// Interrupted says that a step was interrupted, with what it did (what follows
// "interrupted") built from format and args, when err is a signal's interruption (it wraps
// context.Canceled); any other error (nil too), and an Interruption already, is returned as
// it is. Errors joined to the interruption (a delivery failure, a report not written) are
// failures of their own: they are said too, each named by names.
func Interrupted(err error, names field.Names, format string, args ...any) error {
	var ie *Interruption
	if !errors.Is(err, context.Canceled) || errors.As(err, &ie) {
		return err
	}
	did := fmt.Sprintf(format, args...)
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if e != nil && !errors.Is(e, context.Canceled) {
				did += "; and " + field.Say(e, names)
			}
		}
	}
	return &Interruption{Did: did, Err: err}
}
