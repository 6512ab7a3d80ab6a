package sink

import (
	"context"
	"io"
)

// stdoutKind is the sink kind that writes to the caller's stdout, one message per line, as
// a file does: it is chosen by the file "-". Stdout then holds the data and nothing else: a
// caller says its own lines on stderr (Kind.Stdout), and a report or a profile named by the
// path stdout was redirected to would replace the data (the caller checks /dev/stdout as the
// data's path). Its writer is a file's (Settings.writerOptions: the delivery timeout, the
// linger).
var stdoutKind = &Kind{
	Name: "stdout", Words: "stdout", Field: "File", choice: "{File|file} -", Stdout: true,
	chosen: func(s *Settings) bool { return s.File == "-" },
	what:   func(s *Settings) string { return "file -" },
	// As a file's: a caller cannot tell stdout from a file it names, and the connect timeout
	// given for one is accepted for the other.
	settings: []string{"File", "Topic", "Linger", "ConnectTimeout", "FlushTimeout", "DeliveryTimeout"},
	open: func(_ context.Context, s *Settings, stdout io.Writer, _ map[string]int32, _ func(PartitionsWarning), _ []Opt) (Sink, error) {
		return NewWriter(stdout, s.writerOptions())
	},
}
