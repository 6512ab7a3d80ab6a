package profiles

import (
	"errors"
	"fmt"
	"strings"

	"github.com/clickgen/clickgen/generator/world"
)

// This package names a refused value as it knows it: by the profile field that holds it
// (world.seed, as the YAML spells it) or by what it is (a catalog, a profile file), never by
// the flag or environment variable that carried it, which only the command knows. The
// refusals are typed so the command can say that instead, without reading the text.

// ValueError is a value refused. Its text is Name, then Value unless it is "", then ": " and
// Err; a caller that knows where the value came from may copy it with another Name (a flag)
// and keep the rest.
type ValueError struct {
	Name  string // the profile field (world.scale) or what the value is (catalog, profile file)
	Value string // the value as written; "" when Err already shows it (the path of an *fs.PathError)
	Err   error  // why: world.ErrZeroSeed, ErrScale, an *fs.PathError wrapping fs.ErrNotExist, …
}

func (e *ValueError) Error() string {
	if e.Value == "" {
		return e.Name + ": " + e.Err.Error()
	}
	return e.Name + " " + e.Value + ": " + e.Err.Error()
}

// Unwrap returns the reason, so errors.Is finds world.ErrZeroSeed or fs.ErrNotExist.
func (e *ValueError) Unwrap() error { return e.Err }

// Reasons a value is refused, for errors.Is.
var (
	// ErrScale is a scale factor outside (0, world.MaxScale].
	ErrScale = fmt.Errorf("want a factor in (0, %d]", world.MaxScale)
	// ErrScaleStep is a positive scale factor too small for the world's steps of 0.001.
	ErrScaleStep = errors.New("smaller than the smallest step 0.001")
	// ErrSpeedAndRate is a replay speed and a rate shape given together as overrides.
	ErrSpeedAndRate = errors.New("pacing.speed (replay) and pacing.rate (a rate shape) exclude each other")
	// ErrModeContradicts is an overriding pacing.mode (the Value of its *ValueError) other than
	// the one an overriding speed (replay) or rate (rate) implies.
	ErrModeContradicts = errors.New("contradicts pacing.speed or pacing.rate")
	// ErrMixWithoutRate is a garbage mix given without a garbage rate to weigh.
	ErrMixWithoutRate = errors.New("garbage.mix without garbage.rate: the mix weighs garbage that is not being made")
)

// CheckSeed refuses a seed written explicitly as 0 (an override, a flag) with
// world.ErrZeroSeed, named world.seed. A profile leaves the seed 0 to mean the canonical one
// ([world.RootSeed]); someone who writes 0 must not silently get another world. This is the
// one place the rule is written.
func CheckSeed(seed uint64) error {
	if seed == 0 {
		return &ValueError{Name: "world.seed", Value: "0", Err: world.ErrZeroSeed}
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
	return &ValueError{Name: "world.scale", Value: fmt.Sprint(scale), Err: why}
}

// UnknownError is a profile name that is not one of the embedded profiles.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown profile %q: want one of %s", e.Name, strings.Join(List(), ", "))
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

func (e *FootprintError) Error() string {
	f := e.Footprint
	note, lower := "", []string{"the scale", "the garbage"}
	if e.GarbageAdds() {
		note = fmt.Sprintf(" with garbage rate %v, redeliver %v", f.Garbage.Rate, f.Garbage.Redeliver)
	}
	if e.WorkersAdd() {
		note += fmt.Sprintf(" with %d render workers", f.Workers)
		lower = append(lower, "the workers")
	}
	if f.Products > 0 {
		note += fmt.Sprintf(" with a catalog of %d products (%d bytes)", f.Products, f.CatalogBytes)
		lower = append(lower, "the catalog")
	}
	return fmt.Sprintf("scale %v%s %v: lower %s, or raise the limit", f.Scale, note, e.Err, orList(lower))
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
