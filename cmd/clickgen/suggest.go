package main

import (
	"errors"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// didYouMean is "; did you mean a or b?" for the names a user who typed word probably meant
// among candidates (field.Nearest: rnu for run, --rat for --rate alone), each written with
// prefix; "" for none.
func didYouMean(word string, candidates []string, prefix string) string {
	s := field.Nearest(word, candidates)
	if len(s) == 0 {
		return ""
	}
	return "; did you mean " + orList(prefixed(prefix, s)) + "?"
}

// suggestFor is didYouMean for a name a library refused as unknown (a garbage class of
// --garbage-mix or of a profile's garbage.mix), "" for any other error.
func suggestFor(err error) string {
	if uc := (*world.UnknownClassError)(nil); errors.As(err, &uc) {
		return didYouMean(uc.Name, world.AllGarbageClasses(), "")
	}
	return ""
}
