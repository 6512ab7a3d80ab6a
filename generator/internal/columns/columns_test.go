package columns

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTableCutToWidth: a table wider than the width comes in parts no wider than it, each
// repeating the label column and its heading, the columns of a group kept together where
// they fit, every cell once, in order.
func TestTableCutToWidth(t *testing.T) {
	tbl := Table{
		Head:   []string{"hits (2 partitions)", "messages", "clean", "redelivered", "p0", "p1", "sha256", "stg_rows", "ods_events", "accepted", "not_an_object", "keyset_mismatch"},
		Groups: []int{3, 2, 1, 2, 3},
	}
	for d := range 3 {
		tbl.Rows = append(tbl.Rows, []string{"day " + string(rune('0'+d)) + " 2026-06-0" + string(rune('1'+d)), "52100≠52101", "52100", "0", "26263", "25837",
			"DIFFERS: 1 of 52101 clean missing", "52100", "52100", "52100", "0", "0"})
	}
	var b strings.Builder
	if err := tbl.Write(&b, 60); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	parts := strings.Split(strings.TrimSuffix(out, "\n"), "\n\n")
	if len(parts) < 3 {
		t.Fatalf("%d parts, want several:\n%s", len(parts), out)
	}
	seen := map[string]int{}
	for _, p := range parts {
		lines := strings.Split(p, "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[0], "hits (2 partitions)  ") || !strings.HasPrefix(lines[1], "day 0 2026-06-01  ") {
			t.Errorf("a part without its heading or labels:\n%s", p)
		}
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); n > 60 {
				t.Errorf("line of %d columns, want at most 60: %q", n, l)
			}
			if strings.HasSuffix(l, " ") {
				t.Errorf("line ends in a space: %q", l)
			}
		}
		for _, h := range strings.Fields(strings.TrimPrefix(lines[0], "hits (2 partitions)")) {
			seen[h]++
		}
	}
	for _, h := range tbl.Head[1:] {
		if seen[h] != 1 {
			t.Errorf("column %s appears %d times", h, seen[h])
		}
	}
	// The group of p0 and p1 stays together.
	for _, p := range parts {
		head := strings.Fields(strings.SplitN(p, "\n", 2)[0])
		if slices.Contains(head, "p0") != slices.Contains(head, "p1") {
			t.Errorf("the partitions' group was cut:\n%s", p)
		}
	}
	// A table that fits is one part, aligned as text/tabwriter aligns it.
	b.Reset()
	Table{Head: []string{"date", "day", "rows"}, Rows: [][]string{{"2026-06-01", "0", "5≠6"}, {"total", "", "5"}}}.Write(&b, 100)
	if want := "date        day  rows\n2026-06-01  0    5≠6\ntotal            5\n"; b.String() != want {
		t.Errorf("a narrow table:\n%q\nwant\n%q", b.String(), want)
	}
}

func TestWrap(t *testing.T) {
	got := Wrap("OK: every message sent arrived as often as it was sent, with its key", 30, "    ")
	want := "OK: every message sent arrived\n    as often as it was sent,\n    with its key"
	if got != want {
		t.Errorf("Wrap:\n%s\nwant\n%s", got, want)
	}
}

// TestWrapLongList: a word longer than a line (a garbage mix) breaks after a comma.
func TestWrapLongList(t *testing.T) {
	got := Wrap("garbage 0.05 (not_an_object=1,keyset_mismatch=1,key_field_unparsed=1,accepted_bad=1), redeliver 0.01", 40, "  ")
	want := "garbage 0.05\n  (not_an_object=1,keyset_mismatch=1,\n  key_field_unparsed=1,accepted_bad=1),\n  redeliver 0.01"
	if got != want {
		t.Errorf("Wrap:\n%s\nwant\n%s", got, want)
	}
}
