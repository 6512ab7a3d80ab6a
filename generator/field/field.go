// Package field is how clickgen's libraries refuse what a caller gave them: one error type
// that names the refused value by the field holding it, as the library spells the field
// (world.seed, pacing.speed, Linger), never by the flag, environment variable or file line
// that carried it, which only the caller knows. A caller that does know words the same
// refusal in its own names with [Say]: the command line turns world.seed into --seed with one
// table, instead of rewording each library's errors one by one.
//
// It also holds the one reading of the integers a user types ([Decimal]), so a flag, an
// environment variable and a profile file refuse the same text in the same words.
package field

import (
	"fmt"
	"strings"
)

// Names names fields for a caller: the name of the field key, or "" to leave the library's
// own words. value says whether the field is named as the holder of a value the text shows
// ("FIELD VALUE: why", "FIELD 300 needs…") rather than mentioned ("set FIELD"): a caller
// that took the value from elsewhere than its own input (a file) may name it otherwise.
type Names func(key string, value bool) string

// Sayer is an error whose text names fields, and that can say itself with each field named
// by a caller ([Say]).
type Sayer interface {
	error
	Say(names Names) string
}

// Error is a refusal naming the fields it is about. A refused value reads "FIELD VALUE: WHY"
// (Field, Value, Err); a refused combination, made by [New] or [Sentence], reads as its
// sentence, whose fields are written {key} or {key|words} (words: how the library says it,
// the key when absent; "{{" is a literal brace). Err may be an *Error too: its fields are
// named the same way.
//
// Errors made by New are comparable sentinels: errors.Is finds them as it finds any error
// value, through the *Error that wraps one as its Err.
type Error struct {
	Field string // the field's key ("world.seed"); "" for a sentence
	Words string // how the library names Field in its own text; Field when ""
	Value string // the value as written; "" when Err shows it, or there is none
	Err   error  // why; nil for a sentence

	sentence string // the text of a refused combination, with {key|words} fields
}

// New returns the refusal of a combination as a fixed sentence naming fields:
// New("{pacing.speed} (replay) and {pacing.rate} (a rate shape) exclude each other").
func New(sentence string) *Error { return &Error{sentence: sentence} }

// Sentence is New with a sentence formatted as fmt.Sprintf formats it; braces in args are
// literal, not fields.
func Sentence(format string, args ...any) *Error {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = strings.ReplaceAll(s, "{", "{{")
		}
	}
	return New(fmt.Sprintf(format, args...))
}

// Error is the refusal in the library's own words.
func (e *Error) Error() string { return e.Say(nil) }

// Unwrap returns why.
func (e *Error) Unwrap() error { return e.Err }

// Say is the refusal with each field named by names (the library's words where names gives
// "", or names is nil).
func (e *Error) Say(names Names) string {
	if e.sentence != "" {
		return expand(e.sentence, names)
	}
	words := e.Words
	if words == "" {
		words = e.Field
	}
	s := name(names, e.Field, words, true)
	if e.Value != "" {
		s += " " + e.Value
	}
	if e.Err == nil {
		return s
	}
	return s + ": " + Say(e.Err, names)
}

// Say is err's text with the fields it names named by names: a [Sayer] says itself, errors
// joined by errors.Join are each said, one per line as Join writes them, and any other error
// is its Error(). nil is "".
func Say(err error, names Names) string {
	switch e := err.(type) {
	case nil:
		return ""
	case Sayer:
		return e.Say(names)
	case interface{ Unwrap() []error }:
		var said, plain []string
		for _, x := range e.Unwrap() {
			said, plain = append(said, Say(x, names)), append(plain, x.Error())
		}
		if strings.Join(plain, "\n") == err.Error() { // errors.Join's, not fmt.Errorf's %w %w
			return strings.Join(said, "\n")
		}
	}
	return err.Error()
}

// Name is key, a field a text mentions, as names names it, or words when names does not.
func Name(names Names, key, words string) string { return name(names, key, words, false) }

// ValueName is Name for a field named as the holder of a value the text shows.
func ValueName(names Names, key, words string) string { return name(names, key, words, true) }

func name(names Names, key, words string, value bool) string {
	if names != nil {
		if n := names(key, value); n != "" {
			return n
		}
	}
	return words
}

// expand writes sentence with its {key} and {key|words} fields named by names.
func expand(sentence string, names Names) string {
	var b strings.Builder
	for s := sentence; s != ""; {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i+1:]
		if strings.HasPrefix(s, "{") {
			b.WriteByte('{')
			s = s[1:]
			continue
		}
		j := strings.IndexByte(s, '}')
		if j < 0 { // not a field: the brace as written
			b.WriteByte('{')
			continue
		}
		key, words, ok := strings.Cut(s[:j], "|")
		if !ok {
			words = key
		}
		b.WriteString(name(names, key, words, false))
		s = s[j+1:]
	}
	return b.String()
}

// Escape is s as literal text in a sentence ([New]): its braces are not fields.
func Escape(s string) string { return strings.ReplaceAll(s, "{", "{{") }
