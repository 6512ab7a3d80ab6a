// Package reportfile writes the command's JSON reports (--report): checked before a run sends
// anything ([Check]), written atomically at its end ([Write]), never into a device or a FIFO.
// Where a report path leads, and whether it is also an input or another output of the run,
// is fileio's to say (fileio.Resolve, fileio.Check): this package only writes reports.
package reportfile

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/clickgen/clickgen/generator/fileio"
)

// Write writes v as indented JSON to path atomically (fileio.Replace: a temporary file in
// the same directory, synced, then renamed), so a full disk or a crash leaves the old report
// or none, never a truncated one. A symbolic link is followed, a dangling one too: the file
// it names is written, the link stays (a link set up to put reports elsewhere keeps doing
// so, as a shell's > would follow it). A path that exists and is not a regular file (a
// device, a FIFO, a socket, or a link to one, such as /dev/null or /proc/self/fd/1) is
// refused ([Check]): the rename would replace the node itself with a regular file (as root,
// --report /dev/null replaced the host's /dev/null).
//
// Strings are written as they are, not HTML-escaped: a threshold reads "p99<50ms", not
// "p99\u003c50ms" (the bytes are json.MarshalIndent's otherwise).
func Write(path string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return fileio.Replace(path, b.Bytes())
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
