package fileio

// A report is a JSON document a run or a verification writes at its end (a command's
// --report): checked before a run sends anything ([CheckReport]), written atomically at its
// end ([WriteReport]), never into a device or a FIFO. Where a report path leads, and whether
// it is also an input or another output of the run, is [Check]'s to say.

import (
	"bytes"
	"encoding/json"
	"errors"
)

// WriteReport writes v as indented JSON to path atomically ([Replace]: a temporary file in
// the same directory, synced, then renamed), so a full disk or a crash leaves the old report
// or none, never a truncated one. A symbolic link is followed, a dangling one too: the file
// it names is written, the link stays (a link set up to put reports elsewhere keeps doing
// so, as a shell's > would follow it). A path that exists and is not a regular file (a
// device, a FIFO, a socket, or a link to one, such as /dev/null or /proc/self/fd/1) is
// refused ([CheckReport]): the rename would replace the node itself with a regular file (as root,
// --report /dev/null replaced the host's /dev/null).
//
// Strings are written as they are, not HTML-escaped: a threshold reads "p99<50ms", not
// "p99\u003c50ms" (the bytes are json.MarshalIndent's otherwise).
func WriteReport(path string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return Replace(path, b.Bytes())
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
