package fileio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteReportMergesMeta: every report carries ReportMeta's keys after its document's own (a
// report never stays without saying when it was written, by which command with which
// settings, and how that command ended); the document's own "ok" gives way to the command's
// outcome where it stands, and a command that had no document yet writes the keys alone.
// Strings stay unescaped ("p99<50ms").
func TestWriteReportMergesMeta(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	m := ReportMeta{OK: false, Error: "threshold p99<50ms crossed", WrittenAt: "2026-06-01T00:00:00.000Z", Command: "batch",
		Settings: map[string]string{"day": "3", "brokers": "k:9092"}}
	doc := struct {
		OK   bool   `json:"ok"`
		Expr string `json:"expr"`
	}{true, "p99<50ms"}
	if err := WriteReport(path, doc, m); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	want := `{
  "ok": false,
  "expr": "p99<50ms",
  "error": "threshold p99<50ms crossed",
  "written_at": "2026-06-01T00:00:00.000Z",
  "command": "batch",
  "settings": {
    "brokers": "k:9092",
    "day": "3"
  }
}
`
	if string(b) != want {
		t.Errorf("the report:\n%s\nwant:\n%s", b, want)
	}
	if err := WriteReport(path, nil, ReportMeta{OK: true, WrittenAt: "t", Command: "verify"}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if !strings.HasPrefix(string(b), "{\n  \"ok\": true,\n  \"written_at\": \"t\",\n  \"command\": \"verify\"") || strings.Contains(string(b), "error") {
		t.Errorf("the report without a document:\n%s", b)
	}
	if err := WriteReport(path, []int{1}, m); err == nil {
		t.Error("a document that is not an object was written")
	}
}
