package field

import "errors"

// Refusal is a library's refusal of what its caller gave it, found before anything was read
// or sent: a value, a combination, an input that is not what it should be. A command line
// makes it a usage error; errors.Is and errors.As find what it wraps. An entry point that
// also fails in other ways (a broker that does not answer) marks its refusals so, and only
// them.
type Refusal struct{ Err error }

// Refuse marks err as a [Refusal]; nil stays nil, and a refusal is not marked twice.
func Refuse(err error) error {
	if err == nil || IsRefusal(err) {
		return err
	}
	return &Refusal{Err: err}
}

// IsRefusal reports whether err is, or wraps, a [Refusal].
func IsRefusal(err error) bool {
	var r *Refusal
	return errors.As(err, &r)
}

func (r *Refusal) Error() string { return r.Err.Error() }
func (r *Refusal) Unwrap() error { return r.Err }

// Say is the refusal with its fields named by names.
func (r *Refusal) Say(names Names) string { return Say(r.Err, names) }
