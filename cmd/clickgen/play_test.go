package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// inventoryOf runs `clickgen inventory` and decodes its output.
func inventoryOf(t *testing.T, args ...string) world.Inventory {
	t.Helper()
	out, errs, code := clickgen(t, append([]string{"inventory"}, args...)...)
	if code != 0 {
		t.Fatalf("inventory %v: exit %d: %s", args, code, errs)
	}
	var inv world.Inventory
	if err := json.Unmarshal([]byte(out), &inv); err != nil {
		t.Fatalf("inventory output is not JSON: %v\n%s", err, out)
	}
	return inv
}

// splitLines cuts a file sink's output into its lines, each with its "\n".
func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

func sum(lines [][]byte) string {
	h := sha256.New()
	for _, l := range lines {
		h.Write(l)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestBatchAndSnapshotMatchInventory plays days 3–4 and their snapshots to files and checks
// every day's and snapshot's line count and SHA-256 against the inventory of the same flags.
func TestBatchAndSnapshotMatchInventory(t *testing.T) {
	dir := t.TempDir()
	hits, orders := filepath.Join(dir, "hits.jsonl"), filepath.Join(dir, "orders.jsonl")
	report := filepath.Join(dir, "report.json")
	if _, errs, code := clickgen(t, raceScaled("batch", "--day", "3", "--days", "2", "--file", hits, "--report", report)...); code != 0 {
		t.Fatalf("batch: exit %d: %s", code, errs)
	}
	if _, errs, code := clickgen(t, raceScaled("snapshot", "--day", "3", "--days", "2", "--file", orders)...); code != 0 {
		t.Fatalf("snapshot: exit %d: %s", code, errs)
	}
	inv := inventoryOf(t, raceScaled("--day", "3", "--days", "2")...)
	b, _ := os.ReadFile(hits)
	lines := splitLines(b)
	total := 0
	for _, d := range inv.Days {
		if got := sum(lines[total : total+d.Events]); got != d.SHA256 {
			t.Errorf("day %d: batch --file bytes hash to %s, inventory says %s", d.Day, got, d.SHA256)
		}
		total += d.Events
	}
	if len(lines) != total {
		t.Errorf("batch wrote %d lines, inventory counts %d events", len(lines), total)
	}
	b, _ = os.ReadFile(orders)
	lines = splitLines(b)
	total = 0
	if len(inv.Snapshots) != 2 || inv.Snapshots[0].Day != 2 || inv.Snapshots[1].Day != 3 {
		t.Fatalf("run days 3–4 send snapshots %+v, want those of days 2 and 3", inv.Snapshots)
	}
	for _, s := range inv.Snapshots {
		if got := sum(lines[total : total+s.Rows]); got != s.SHA256 {
			t.Errorf("snapshot %d: file bytes hash to %s, inventory says %s", s.Day, got, s.SHA256)
		}
		total += s.Rows
	}
	if len(lines) != total {
		t.Errorf("snapshot wrote %d lines, inventory counts %d rows", len(lines), total)
	}
	var r struct {
		Topics map[string]struct{ Sent, Acked, Failed int64 } `json:"topics"`
	}
	rb, _ := os.ReadFile(report)
	if err := json.Unmarshal(rb, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, rb)
	}
	if h := r.Topics["hits"]; h.Acked != int64(inv.Days[0].Events+inv.Days[1].Events) || h.Failed != 0 {
		t.Errorf("report says %+v, want %d acked", h, inv.Days[0].Events+inv.Days[1].Events)
	}
}

func TestBatchLimitAndStdout(t *testing.T) {
	out, errs, code := clickgen(t, "batch", "--day", "0", "--limit", "25", "--file", "-")
	if code != 0 {
		t.Fatalf("batch --limit: exit %d: %s", code, errs)
	}
	if n := strings.Count(out, "\n"); n != 25 {
		t.Errorf("batch --limit 25 wrote %d lines to stdout, want 25", n)
	}
	if !strings.Contains(errs, "--limit 25") {
		t.Errorf("stderr does not say the run stopped at the limit: %s", errs)
	}
}

func TestEnvironmentFallbacks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "env.jsonl")
	t.Setenv("GENERATOR_DAY", "2")
	t.Setenv("GENERATOR_LIMIT", "7")
	t.Setenv("GENERATOR_FILE", file)
	t.Setenv("GENERATOR_SEED", "20260601")
	if _, errs, code := clickgen(t, "batch"); code != 0 {
		t.Fatalf("batch from the environment: exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(file)
	if n := bytes.Count(b, []byte("\n")); n != 7 || !bytes.Contains(b, []byte(`"EventDate":"2026-06-03"`)) {
		t.Errorf("GENERATOR_DAY=2 GENERATOR_LIMIT=7 wrote %d lines (%.80s…), want 7 events of 2026-06-03", n, b)
	}
	// live reads the same day from the environment (it once kept its flag's default).
	liveFile := filepath.Join(dir, "live.jsonl")
	if _, errs, code := clickgen(t, "live", "--speed", "1e9", "--file", liveFile); code != 0 {
		t.Fatalf("live from the environment: exit %d: %s", code, errs)
	}
	b, _ = os.ReadFile(liveFile)
	if !bytes.HasPrefix(b, []byte(`{"WatchID":`)) || !bytes.Contains(b[:bytes.IndexByte(b, '\n')], []byte(`"EventDate":"2026-06-03"`)) {
		t.Errorf("GENERATOR_DAY=2 live played %.120s…, want day 2 (2026-06-03)", b)
	}
	t.Setenv("GENERATOR_LIMIT", "seven")
	_, errs, code := clickgen(t, "batch")
	if code != 2 || !strings.Contains(errs, "GENERATOR_LIMIT") {
		t.Errorf("GENERATOR_LIMIT=seven: exit %d, stderr %q; want exit 2 naming the variable", code, errs)
	}
}

func TestPlayingUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("sku,name,category,brand,price\nX-1,Вещь,Текстиль,Бренд,12.50\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"batch", "--file", "-"}, "--day is required"},
		{[]string{"batch", "--day", "0"}, "no sink"},
		{[]string{"batch", "--day", "0", "--file", "x", "--brokers", "h:9092"}, "both --file and --brokers"},
		{[]string{"batch", "--day", "0", "--brokers", "h:9092"}, "--topic"},
		{[]string{"batch", "--day", "-1", "--file", "-"}, "start at 0"},
		{[]string{"batch", "--day", "0", "--days", "0", "--file", "-"}, "at least 1"},
		{[]string{"batch", "--day", "0", "--file", "-", "--catalog", bad}, "line 2, column 5 (price)"},
		{[]string{"batch", "--day", "0", "--file", "-", "--scale", "-2"}, "--scale"},
		{[]string{"snapshot", "--day", "0", "--file", "-", "--compression", "brotli"}, "--compression"},
		{[]string{"live", "--day", "0", "--file", "-", "--speed", "0"}, "--speed"},
		{[]string{"inventory"}, "--day is required"},
	} {
		out, errs, code := clickgen(t, tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("clickgen %q: exit %d, stdout %d bytes, stderr %q; want exit 2, nothing on stdout, stderr mentioning %q",
				tc.args, code, len(out), errs, tc.want)
		}
	}
}

func TestCatalogRoundTrip(t *testing.T) {
	out, _, code := clickgen(t, "catalog")
	if code != 0 || out != string(world.DefaultCatalogCSV) {
		t.Fatalf("catalog: exit %d, %d bytes; want the embedded catalog", code, len(out))
	}
	path := filepath.Join(t.TempDir(), "catalog.csv")
	os.WriteFile(path, []byte(out), 0o644)
	a := inventoryOf(t, "--day", "0", "--catalog", path)
	b := inventoryOf(t, "--day", "0")
	if a.Days[0].SHA256 != b.Days[0].SHA256 || a.CatalogSHA256 != b.CatalogSHA256 {
		t.Errorf("--catalog with the written catalog changes the world: %s vs %s", a.Days[0].SHA256, b.Days[0].SHA256)
	}
}
