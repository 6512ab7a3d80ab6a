package profiles

import (
	"errors"
	"fmt"
	"strings"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/produce/world"
)

// This package names a refused value as it knows it: by the profile field that holds it
// (world.seed, as the YAML spells it) or by what it is (a profile file, an inventory file),
// never by the flag or environment variable that carried it, which only the command knows.
// Its refusals are field.Errors (or say themselves as one, field.Sayer), so the command
// words any of them in its own names with one table, without reading the text.

// ValueError is a value refused: the field that holds it (Field: world.scale, world.catalog,
// profile file), the value as written (Value, "" when Err already shows it, as the path of an
// *fs.PathError does) and why (Err: world.ErrZeroSeed, ErrScale, an *fs.PathError wrapping
// fs.ErrNotExist, ...). Its text is "Field Value: Err".
type ValueError = field.Error

// Reasons a value is refused, for errors.Is.
var (
	// ErrScale is a scale factor outside (0, world.MaxScale].
	ErrScale = fmt.Errorf("want a factor in (0, %d]", world.MaxScale)
	// ErrScaleStep is a positive scale factor too small for the world's steps of 0.001.
	ErrScaleStep = errors.New("smaller than the smallest step 0.001")
	// ErrSpeedAndRate is a replay speed and a rate shape given together as overrides.
	ErrSpeedAndRate = field.New("{pacing.speed} (replay) and {pacing.rate} (a rate shape) exclude each other")
	// ErrModeContradicts is an overriding pacing.mode (the Value of its *ValueError) other than
	// the one an overriding speed (replay) or rate (rate) implies.
	ErrModeContradicts = field.New("contradicts {pacing.speed} or {pacing.rate}")
	// ErrMixWithoutRate is a garbage mix given without a garbage rate to weigh.
	ErrMixWithoutRate = field.New("{garbage.mix} without {garbage.rate}: the mix weighs garbage that is not being made")
)

// CheckSeed refuses a seed written explicitly as 0 (an override, a flag) with
// world.ErrZeroSeed, named world.seed. A profile leaves the seed 0 to mean the canonical one
// ([world.RootSeed]); someone who writes 0 must not silently get another world. This is the
// one place the rule is written.
func CheckSeed(seed uint64) error {
	if seed == 0 {
		return &ValueError{Field: "world.seed", Value: "0", Err: world.ErrZeroSeed}
	}
	return nil
}

// CheckScale refuses a scale factor no world is built with, named world.scale: one outside
// (0, world.MaxScale] (NaN too) with ErrScale, one below the world's step of 0.001 with
// ErrScaleStep. Every road checks a scale here, so a value is refused in one wording whoever
// wrote it; a profile's 0, which means 1, is not passed here.
func CheckScale(scale float64) error {
	var why error
	switch {
	case !(scale > 0) || scale > world.MaxScale:
		why = ErrScale
	case (world.Params{Scale: scale}).Validate() != nil:
		why = ErrScaleStep
	default:
		return nil
	}
	return &ValueError{Field: "world.scale", Value: fmt.Sprint(scale), Err: why}
}

// UnknownError is a profile name that is not one of the embedded profiles. Its text lists
// them, and a caller that names the field "profile file" (a flag) offers that too.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string { return e.Say(nil) }

// Say is the refusal offering, besides the embedded profiles, a profile file by the name
// names gives the field "profile file", if any.
func (e *UnknownError) Say(names field.Names) string {
	s := fmt.Sprintf("unknown profile %q: want one of %s", e.Name, strings.Join(List(), ", "))
	if file := field.Name(names, "profile file", ""); file != "" {
		s += ", or " + file + " FILE"
	}
	return s
}

// FootprintError is [CheckFootprint]'s refusal: a run of Footprint needs more memory than
// Err's limit. Its text names the parts of the footprint that add memory, as values; the
// command names the flags that set them.
type FootprintError struct {
	Footprint world.Footprint
	Err       *MemoryError
}

// WorkersAdd reports whether the render workers add memory beyond the window the
// measurements held, and so are worth lowering.
func (e *FootprintError) WorkersAdd() bool {
	f := e.Footprint
	return (world.Footprint{Scale: f.Scale, Workers: f.Workers}).Need() > world.MemoryNeeded(f.Scale, world.Garbage{})
}

// GarbageAdds reports whether the footprint holds garbage or redeliveries.
func (e *FootprintError) GarbageAdds() bool {
	return e.Footprint.Garbage.Rate != 0 || e.Footprint.Garbage.Redeliver != 0
}

// The fields a memory refusal names: the parts of the footprint a caller can lower, and the
// limit it can raise.
const (
	FieldWorkers     = "workers"      // the render workers (PlanOptions.Workers)
	FieldMemoryLimit = "memory.limit" // an explicit limit (MemoryLimit.Explicit)
)

func (e *FootprintError) Error() string { return e.Say(nil) }

// Say is the refusal naming, with names, the fields that set each part of the footprint that
// adds memory, and the limit when it is the caller's own: the one sentence of a run that
// cannot fit in memory, however its values were given.
func (e *FootprintError) Say(names field.Names) string {
	f := e.Footprint
	n := func(key, words string) string { return field.Name(names, key, words) }
	v := func(key, words string) string { return field.ValueName(names, key, words) }
	note, lower := "", []string{n("world.scale", "the scale"), n("garbage.rate", "the garbage")}
	if e.GarbageAdds() {
		note = fmt.Sprintf(" with %s %v %s %v", v("garbage.rate", "garbage rate"), f.Garbage.Rate, v("garbage.redeliver", "redeliver"), f.Garbage.Redeliver)
	}
	if e.WorkersAdd() {
		note += fmt.Sprintf(" with %s %d", v(FieldWorkers, "render workers"), f.Workers)
		lower = append(lower, n(FieldWorkers, "the workers"))
	}
	if f.Products > 0 {
		note += fmt.Sprintf(" with a catalog of %d products (%d bytes)", f.Products, f.CatalogBytes)
		lower = append(lower, "the catalog")
	}
	return fmt.Sprintf("%s %v%s %s: lower %s, or raise %s", v("world.scale", "scale"), f.Scale, note, e.Err.Say(names),
		orList(lower), n(FieldMemoryLimit, "the limit"))
}

// Unwrap returns the memory refusal.
func (e *FootprintError) Unwrap() error { return e.Err }

// orList joins words as "a, b or c".
func orList(words []string) string {
	last := len(words) - 1
	if last < 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:last], ", ") + " or " + words[last]
}
