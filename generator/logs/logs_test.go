package logs

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// records parses b as one JSON object per line.
func records(t *testing.T, b string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(b, "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON record: %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// TestJSONLines: every line, however it was split into writes, becomes one record with the
// prefix dropped and the level its words say; blank lines vanish; Flush writes a last line
// without a newline.
func TestJSONLines(t *testing.T) {
	var b bytes.Buffer
	l := NewJSON(&b)
	for _, p := range []string{"clickgen: embedded broker on 127.0.0.1:1 (topics hits/2)\nclick", "gen: warning: topic hits has 3 partitions\n",
		"\n", "stress  1.0s: 5 records sent\nclickgen: tail without newline"} {
		l.Write([]byte(p))
	}
	l.Flush()
	l.Log(slog.LevelError, "run: interrupted")
	got := records(t, b.String())
	want := []struct{ level, msg string }{
		{"INFO", "embedded broker on 127.0.0.1:1 (topics hits/2)"},
		{"WARN", "topic hits has 3 partitions"},
		{"INFO", "stress  1.0s: 5 records sent"},
		{"INFO", "tail without newline"},
		{"ERROR", "run: interrupted"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d:\n%s", len(got), len(want), b.String())
	}
	for i, w := range want {
		if got[i]["level"] != w.level || got[i]["msg"] != w.msg || got[i]["time"] == nil {
			t.Errorf("record %d = %v, want level %s msg %q and a time", i, got[i], w.level, w.msg)
		}
	}
}

// TestLoggerShares: a library's logger writes whole records among the lines, at its level and
// up, tagged with its component, also when both write at once.
func TestLoggerShares(t *testing.T) {
	var b bytes.Buffer
	l := NewJSON(&b)
	k := l.Logger("kafka", slog.LevelWarn)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				l.Write([]byte("clickgen: a line\n"))
				k.Info("too chatty")
				k.Warn("broker gone", "broker", 1)
			}
		})
	}
	wg.Wait()
	var lines, kafka int
	for _, r := range records(t, b.String()) {
		switch {
		case r["msg"] == "a line":
			lines++
		case r["component"] == "kafka" && r["msg"] == "broker gone" && r["level"] == "WARN":
			kafka++
		default:
			t.Errorf("unexpected record %v", r)
		}
	}
	if lines != 200 || kafka != 200 {
		t.Errorf("%d lines and %d kafka records, want 200 each", lines, kafka)
	}
}

// TestTextIsUntouched: the text format is the writer itself, so lines stay byte for byte.
func TestTextIsUntouched(t *testing.T) {
	var b bytes.Buffer
	if w := Writer(&b, Text); w != &b || Of(w) != nil {
		t.Errorf("Writer(w, Text) = %T, want w itself", w)
	}
	if Of(Writer(&b, JSON)) == nil {
		t.Errorf("Writer(w, JSON) is not *Lines")
	}
	for _, s := range []string{"text", "json"} {
		var f Format
		if err := f.Set(s); err != nil || f.String() != s {
			t.Errorf("Set(%q) = %v, %v", s, f, err)
		}
	}
	if _, err := ParseFormat("logfmt"); err == nil {
		t.Errorf("ParseFormat(logfmt) accepted")
	}
}
