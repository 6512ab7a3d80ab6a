package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/clickgen/clickgen/generator/verify/summary"
)

// result is a source's result: its own table, and its counts in the one vocabulary of
// verification (topics.Result and store.Result).
type result interface {
	WriteTable(io.Writer) error
	SummaryCounts() summary.Summary
}

// writeSummary writes s after a source's table, set apart by a blank line: the same lines in
// the same words whatever the source.
func writeSummary(w io.Writer, s summary.Summary) error {
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	return s.Write(w)
}

// withSummary is the report's document: the source's result, its keys as they were, and
// then its summary under "summary".
type withSummary struct {
	res     any
	summary summary.Summary
}

// MarshalJSON writes the result's object with a member "summary" last; strings are not
// HTML-escaped, as the report's other members.
func (d withSummary) MarshalJSON() ([]byte, error) {
	enc := func(v any) ([]byte, error) {
		var b bytes.Buffer
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(false)
		if err := e.Encode(v); err != nil {
			return nil, err
		}
		return bytes.TrimSpace(b.Bytes()), nil
	}
	res, err := enc(d.res)
	if err != nil {
		return nil, err
	}
	s, err := enc(d.summary)
	if err != nil {
		return nil, err
	}
	if len(res) < 2 || res[0] != '{' || res[len(res)-1] != '}' {
		return nil, errors.New("verify: a result that is not a JSON object")
	}
	out := append([]byte(nil), res[:len(res)-1]...)
	if len(res) > 2 {
		out = append(out, ',')
	}
	out = append(out, `"summary":`...)
	out = append(out, s...)
	return append(out, '}'), nil
}
