package pace

import (
	"errors"
	"strings"
)

// Rates and shapes as values: each is parsed once, where it enters the program (a flag, a
// profile field), and held parsed from then on. Both types implement encoding.TextMarshaler
// and encoding.TextUnmarshaler (so YAML and JSON decoders fill them) and pflag.Value (so
// flags do), with one text syntax: that of [ParseRate] and [ParseShape].

// ErrRate and ErrShape mark the errors of [Rate.UnmarshalText] and [Shape.UnmarshalText] (and
// of Set), so that a decoder of many values can say which field held the bad text:
// errors.Is(err, pace.ErrShape). The error's message is that of ParseRate or ParseShape.
var (
	ErrRate  = errors.New("not a rate")
	ErrShape = errors.New("not a rate shape")
)

// textError is a parse error marked with ErrRate or ErrShape; it reads as the parse error.
type textError struct{ kind, err error }

func (e textError) Error() string   { return e.err.Error() }
func (e textError) Unwrap() []error { return []error{e.kind, e.err} }

// MarshalText returns r in the syntax of ParseRate, as String does, and the zero Rate as the
// empty text: where a Rate is optional (a ceiling), zero means none.
func (r Rate) MarshalText() ([]byte, error) {
	if r == 0 {
		return []byte{}, nil
	}
	return []byte(r.String()), nil
}

// UnmarshalText sets r from text in the syntax of ParseRate. The empty text (or only
// spaces) is the zero Rate, "none"; any other text must be a positive rate of at most 1e9/s.
func (r *Rate) UnmarshalText(text []byte) error {
	if strings.TrimSpace(string(text)) == "" {
		*r = 0
		return nil
	}
	v, err := ParseRate(string(text))
	if err != nil {
		return textError{ErrRate, err}
	}
	*r = v
	return nil
}

// Set implements pflag.Value: it is UnmarshalText, so --max-rate "" clears a ceiling.
func (r *Rate) Set(s string) error { return r.UnmarshalText([]byte(s)) }

// Type implements pflag.Value; it names the value in a flag's help.
func (*Rate) Type() string { return "rate" }

// Shape is a rate shape held as a value: a [Pacer] parsed once from the syntax of ParseShape
// (or built with Constant, Ramp, Steps or Sine and wrapped). The zero Shape holds no pacer;
// it is what an empty text decodes to, and callers give it their own meaning (a profile's
// default rate). A Shape is immutable and safe for concurrent use; calling Due on the zero
// Shape panics.
type Shape struct{ Pacer }

// IsZero reports whether s holds no pacer.
func (s Shape) IsZero() bool { return s.Pacer == nil }

// String returns s in the syntax of ParseShape, a constant shape as a bare rate (20000/s),
// and the zero Shape as "". Parsing it gives back an equal shape.
func (s Shape) String() string {
	if s.Pacer == nil {
		return ""
	}
	return strings.TrimPrefix(s.Pacer.String(), "constant:")
}

// MarshalText returns s.String().
func (s Shape) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText sets s from text in the syntax of ParseShape. The empty text (or only
// spaces) is the zero Shape.
func (s *Shape) UnmarshalText(text []byte) error {
	if strings.TrimSpace(string(text)) == "" {
		*s = Shape{}
		return nil
	}
	p, err := ParseShape(string(text))
	if err != nil {
		return textError{ErrShape, err}
	}
	*s = Shape{p}
	return nil
}

// Set implements pflag.Value. Unlike UnmarshalText it refuses the empty text: a flag given
// on the command line must name a shape.
func (s *Shape) Set(text string) error {
	p, err := ParseShape(text)
	if err != nil {
		return textError{ErrShape, err}
	}
	*s = Shape{p}
	return nil
}

// Type implements pflag.Value; it names the value in a flag's help.
func (*Shape) Type() string { return "shape" }
