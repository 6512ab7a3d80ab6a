// Package reportfile writes the command's JSON reports (--report): checked before a run sends
// anything ([Check]), written atomically at the command's end ([Write]), never into a device
// or a FIFO. Where a report path leads, and whether it is also an input or another output of
// the run, is fileio's to say (fileio.Resolve, fileio.Check): this package only writes reports.
package reportfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/measure/report"
)

// Write writes v, a document that marshals to a JSON object (nil: an empty one), with the
// keys of m after its own (report.Meta: a key of m replaces the document's of the same name)
// as indented JSON to path atomically (fileio.Replace: a temporary file in the same
// directory, synced, then renamed), so a full disk or a crash leaves the old report or none,
// never a truncated one. A symbolic link is followed, a dangling one too: the file it names
// is written, the link stays (a link set up to put reports elsewhere keeps doing so, as a
// shell's > would follow it). A path that exists and is not a regular file (a device, a
// FIFO, a socket, or a link to one, such as /dev/null or /proc/self/fd/1) is refused
// ([Check]): the rename would replace the node itself with a regular file (as root, --report
// /dev/null replaced the host's /dev/null).
//
// Strings are written as they are, not HTML-escaped: a threshold reads "p99<50ms", not
// "p99\u003c50ms" (the bytes are json.MarshalIndent's otherwise).
func Write(path string, v any, m report.Meta) error {
	doc, err := marshal(v)
	if err != nil {
		return err
	}
	meta, err := marshal(m)
	if err != nil {
		return err
	}
	merged, err := merge(doc, meta)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, merged, "", "  "); err != nil {
		return err
	}
	b.WriteByte('\n')
	return fileio.Replace(path, b.Bytes())
}

// marshal is v as compact JSON, not HTML-escaped; nil is an empty object.
func marshal(v any) ([]byte, error) {
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
		return nil, fmt.Errorf("reportfile: the document is not a JSON object")
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

// merge is the object doc with the members of meta after its own, a member of meta replacing
// doc's of the same key where it stands.
func merge(doc, meta []byte) ([]byte, error) {
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

// Check says, before a run sends anything, whether a report can be written to path
// (fileio.CheckReplace): a report found unwritable only after a day was sent makes a
// scheduler retry and duplicate the run.
func Check(path string) error {
	if path == "-" {
		return errors.New("the report is a file; give a path")
	}
	return fileio.CheckReplace(path)
}
