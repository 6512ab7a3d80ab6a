package fileio

// A report is a JSON document a run or a verification writes at its end (a command's
// --report): checked before a run sends anything ([CheckReport]), written atomically at its
// end ([WriteReport]), never into a device or a FIFO, and written whatever the end was
// ([Report]: a failing run or verify left the previous "ok": true report in place, issue 35).
// Where a report path leads, and whether it is also an input or another output of the run,
// is [Check]'s to say.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/clickgen/clickgen/generator/field"
)

// ReportMeta is what every report file carries besides its document, whichever command wrote
// it (a run, a stand verb, verify): whether the command succeeded, its error when it did not,
// when the file was written and the command with its settings. A command that fails writes
// its report too — ok false, the error, and the document as far as it got (none when it
// failed before it had one) — so a report left by an earlier success never stays as this
// one's. Its keys come after the document's; ok replaces a document's own (a verify
// result's), so that it always says how the command ended.
type ReportMeta struct {
	// OK says the command succeeded (exit code 0).
	OK bool `json:"ok"`
	// Error is the command's error, as it said it; absent when OK.
	Error string `json:"error,omitempty"`
	// WrittenAt is when the file was written: RFC 3339 in UTC, milliseconds.
	WrittenAt string `json:"written_at"`
	// Command is the command ("run", "batch", "verify", …).
	Command string `json:"command"`
	// Settings holds every setting of the command by name, as text; a secret never:
	// passwords are never settings, and a user's password in a URL or a broker address is
	// masked by the caller.
	Settings map[string]string `json:"settings"`
}

// Report is a command's report file through the command's life. It is armed ([Report.Arm])
// once the command's files were checked ([Check]: before that the path may be an input of the
// run or another of its outputs); the command keeps its document as it gets one
// ([Report.Keep]); and at the command's very end [Report.Finish] writes it, whatever the
// outcome, with [ReportMeta]'s keys. A zero Path writes nothing.
type Report struct {
	// Path is the report file; "" writes none.
	Path string
	// Command and Settings are the report's ReportMeta.Command and Settings.
	Command  string
	Settings map[string]string

	armed bool
	doc   any
}

// Arm says the command's files were checked: the report is written at its end.
func (r *Report) Arm() {
	if r != nil {
		r.armed = r.Path != ""
	}
}

// Keep keeps doc as the report's document (a value that marshals to a JSON object).
func (r *Report) Keep(doc any) {
	if r != nil {
		r.doc = doc
	}
}

// Finish writes the report, when armed, for the command's end err: ok, or the error as
// names name its fields (field.Say). A refusal (a field.Refusal: the caller's usage error),
// which touched no file, writes none, unless it is a read the system failed ([ReadFailed]).
// It returns err, joined with the report's own failure, named as names name the field
// Report.
func (r *Report) Finish(err error, names field.Names) error {
	if r == nil || !r.armed || field.IsRefusal(err) && !ReadFailed(err) {
		return err
	}
	m := ReportMeta{OK: err == nil, WrittenAt: time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00"), Command: r.Command, Settings: r.Settings}
	if err != nil {
		m.Error = field.Say(err, names)
	}
	if werr := WriteReport(r.Path, r.doc, m); werr != nil {
		return errors.Join(err, fmt.Errorf("%s: %w", field.Name(names, "Report", "report"), werr))
	}
	return err
}

// WriteReport writes doc, a document that marshals to a JSON object (nil: an empty one), with
// the keys of m after its own (a key of m replaces the document's of the same name, where it
// stands) as indented JSON to path atomically ([Replace]: a temporary file in the same
// directory, synced, then renamed), so a full disk or a crash leaves the old report or none,
// never a truncated one. A symbolic link is followed, a dangling one too: the file it names
// is written, the link stays (a link set up to put reports elsewhere keeps doing so, as a
// shell's > would follow it). A path that exists and is not a regular file (a device, a
// FIFO, a socket, or a link to one, such as /dev/null or /proc/self/fd/1) is refused
// ([CheckReport]): the rename would replace the node itself with a regular file (as root,
// --report /dev/null replaced the host's /dev/null).
//
// Strings are written as they are, not HTML-escaped: a threshold reads "p99<50ms", not
// "p99\u003c50ms" (the bytes are json.MarshalIndent's otherwise).
func WriteReport(path string, doc any, m ReportMeta) error {
	d, err := marshalObject(doc)
	if err != nil {
		return err
	}
	meta, err := marshalObject(m)
	if err != nil {
		return err
	}
	merged, err := mergeObjects(d, meta)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, merged, "", "  "); err != nil {
		return err
	}
	b.WriteByte('\n')
	return Replace(path, b.Bytes())
}

// marshalObject is v as compact JSON, not HTML-escaped; nil is an empty object.
func marshalObject(v any) ([]byte, error) {
	if v == nil {
		return []byte("{}"), nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
}

// member is one key of a JSON object and its value, as written.
type member struct {
	key   string
	value json.RawMessage
}

// members are the keys of the JSON object b in their order.
func members(b []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("the report's document is not a JSON object")
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key: t.(string), value: v})
	}
	return out, nil
}

// mergeObjects is the object doc with the members of meta after its own, a member of meta
// replacing doc's of the same key where it stands.
func mergeObjects(doc, meta []byte) ([]byte, error) {
	d, err := members(doc)
	if err != nil {
		return nil, err
	}
	m, err := members(meta)
	if err != nil {
		return nil, err
	}
	byKey := make(map[string]json.RawMessage, len(m))
	for _, x := range m {
		byKey[x.key] = x.value
	}
	var b bytes.Buffer
	b.WriteByte('{')
	write := func(x member) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(x.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(x.value)
	}
	for _, x := range d {
		if v, ok := byKey[x.key]; ok {
			x.value = v
			delete(byKey, x.key)
		}
		write(x)
	}
	for _, x := range m {
		if _, ok := byKey[x.key]; ok {
			write(x)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// CheckReport says, before a run sends anything, whether a report can be written to path
// ([CheckReplace]): a report found unwritable only after a day was sent makes a scheduler
// retry and duplicate the run.
func CheckReport(path string) error {
	if path == "-" {
		return errors.New("the report is a file; give a path")
	}
	return CheckReplace(path)
}
