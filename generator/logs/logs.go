// Package logs writes clickgen's own stderr lines as they are (text, the default) or as JSON
// records of log/slog, one per line, so that a run under Kubernetes can ship structured logs.
//
// The command line and the engine's printer write plain lines ("clickgen: ...") to an
// io.Writer; in JSON each complete line becomes one record whose msg is the line without the
// "clickgen: " prefix, at level WARN for "warning: ..." lines and INFO otherwise. A caller that
// knows a line is an error says so with [Lines.Log].
package logs

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
)

// Format is how clickgen's stderr lines are written.
type Format string

// The formats of [Format].
const (
	Text Format = "text" // the lines as they are
	JSON Format = "json" // one slog JSON record per line
)

// ParseFormat parses "text" or "json".
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Text, JSON:
		return f, nil
	}
	return "", fmt.Errorf("log format %q: want text or json", s)
}

// String is the format's name.
func (f Format) String() string { return string(f) }

// Set parses s into f, for pflag and flag.
func (f *Format) Set(s string) error {
	v, err := ParseFormat(s)
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// Type names the flag value in help text.
func (f *Format) Type() string { return "text|json" }

// UnmarshalText parses text into f, for YAML and JSON.
func (f *Format) UnmarshalText(text []byte) error { return f.Set(string(text)) }

// Writer returns where lines go in format f: w itself for Text, a [*Lines] writing JSON
// records to w for JSON.
func Writer(w io.Writer, f Format) io.Writer {
	if f != JSON {
		return w
	}
	return NewJSON(w)
}

// Lines turns written lines into JSON records. It is safe for concurrent use; a line written
// in several pieces becomes one record once its newline arrives, and Flush writes a last line
// that has none.
type Lines struct {
	mu   sync.Mutex // guards buf
	buf  bytes.Buffer
	out  *lockedWriter
	info *slog.Logger // INFO and up
}

// lockedWriter serialises the records of several handlers on one writer.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Serialized returns w if it is safe for concurrent use (a file, such as os.Stderr, or
// [Lines]), else w behind a mutex: a day's model tells its progress from the goroutine
// building it while the console prints its own lines, and a caller may give a bytes.Buffer.
// A file stays a file, so the console still tells a terminal.
func Serialized(w io.Writer) io.Writer {
	switch w.(type) {
	case *os.File, *Lines, *lockedWriter:
		return w
	}
	return &lockedWriter{w: w}
}

// NewJSON returns Lines writing a JSON record per line to w.
func NewJSON(w io.Writer) *Lines {
	out := &lockedWriter{w: w}
	return &Lines{out: out, info: slog.New(slog.NewJSONHandler(out, nil))}
}

// Write takes any number of lines, complete or not.
func (l *Lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.buf.Write(p)
	var lines []string
	for {
		i := bytes.IndexByte(l.buf.Bytes(), '\n')
		if i < 0 {
			break
		}
		lines = append(lines, string(l.buf.Next(i + 1)[:i]))
	}
	l.mu.Unlock()
	for _, line := range lines {
		l.line(line)
	}
	return len(p), nil
}

// Flush writes a last line that has no newline yet.
func (l *Lines) Flush() {
	l.mu.Lock()
	rest := l.buf.String()
	l.buf.Reset()
	l.mu.Unlock()
	if rest != "" {
		l.line(rest)
	}
}

func (l *Lines) line(s string) {
	s = strings.TrimSuffix(s, "\r")
	if strings.TrimSpace(s) == "" {
		return
	}
	s = strings.TrimPrefix(s, "clickgen: ")
	level := slog.LevelInfo
	if rest, ok := strings.CutPrefix(s, "warning: "); ok {
		level, s = slog.LevelWarn, rest
	}
	l.Log(level, s)
}

// Log writes one record of msg at level.
func (l *Lines) Log(level slog.Level, msg string) { l.info.Log(context.Background(), level, msg) }

// Logger returns a logger writing JSON records with the lines, at level and above, each with
// the attribute component=name: for a library's own logs (the Kafka client's).
func (l *Lines) Logger(name string, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(l.out, &slog.HandlerOptions{Level: level})).With("component", name)
}

// Of returns w as *Lines when it is one (the JSON format), and nil otherwise.
func Of(w io.Writer) *Lines {
	l, _ := w.(*Lines)
	return l
}
