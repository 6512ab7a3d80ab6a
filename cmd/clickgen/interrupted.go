package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/clickgen/clickgen/generator/produce/sink"
)

// interruptedError is a verb ended by the first signal (Ctrl-C, SIGTERM or SIGHUP), saying what it
// had done by then: a bare "context canceled" said neither (issue 31). It is exit 130, as
// every error wrapping context.Canceled is.
type interruptedError struct {
	verb string
	did  string // what follows "interrupted": " after …: nothing was printed", ": the summary above …"
	err  error  // wraps context.Canceled
}

func (e *interruptedError) Error() string { return e.verb + ": interrupted" + e.did }
func (e *interruptedError) Unwrap() error { return e.err }

// interrupted says that verb was interrupted, with did (what follows "interrupted") built
// from format and args, when err is a signal's interruption; any other error (nil too) is
// returned as it is.
func interrupted(verb string, err error, format string, args ...any) error {
	var ie *interruptedError
	if !errors.Is(err, context.Canceled) || errors.As(err, &ie) {
		return err
	}
	did := fmt.Sprintf(format, args...)
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		// Errors joined to the interruption (a delivery failure, a report not written) are
		// failures of their own: they are said too.
		for _, e := range j.Unwrap() {
			if e != nil && !errors.Is(e, context.Canceled) {
				did += "; and " + e.Error()
			}
		}
	}
	return &interruptedError{verb: verb, did: did, err: err}
}

// interruptedVerb is the last word on verb's error: an interruption the verb did not put in
// its own words yet says that it was interrupted and, from the error, where; the rest is
// returned as it is.
func interruptedVerb(verb string, err error) error {
	var ce *sink.ConnectError
	var pe *fs.PathError
	var said interface{ What() string } // a library's interruption (play.Interruption), in its words
	switch {
	case errors.As(err, &said):
		return interrupted(verb, err, "%s", said.What())
	case errors.As(err, &ce) && ce.Interrupted:
		return interrupted(verb, err, " after %.2fs while reaching Kafka at %s, before anything was sent or read", ce.Waited.Seconds(), ce.Brokers)
	case errors.As(err, &pe) && errors.Is(pe.Err, context.Canceled):
		return interrupted(verb, err, " while reading %s", pe.Path)
	case errors.Is(err, context.Canceled):
		where := strings.TrimSuffix(err.Error(), ": "+context.Canceled.Error())
		if where == context.Canceled.Error() {
			return interrupted(verb, err, " before it finished")
		}
		return interrupted(verb, err, " before it finished (%s)", where)
	}
	return err
}
