package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestReadmeTellsTheTruth is issue 38 item 7: the README said the first command plays
// "405 714 events" (the hits alone: 7 070 order rows come on top) and said nothing of the
// first compile, which printed nothing for about 40 s; it must stay short enough to read
// (at most 300 lines). The counts are the inventory's; the install recipe names the commit
// for builds without a VCS stamp.
func TestReadmeTellsTheTruth(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	if n := strings.Count(readme, "\n"); n > 300 {
		t.Errorf("README.md has %d lines, want at most 300", n)
	}
	flat := strings.Join(strings.Fields(readme), " ")
	m := regexp.MustCompile(`the .fill. profile: ([0-9 ]+) hits and ([0-9 ]+) order rows, ([0-9 ]+) messages`).FindStringSubmatch(flat)
	if m == nil {
		t.Fatal(`README does not say "the fill profile: N hits and M order rows, T messages"`)
	}
	num := func(s string) int { n, _ := strconv.Atoi(strings.ReplaceAll(s, " ", "")); return n }
	inv := inventoryOf(t, "--day", "0", "--days", "8")
	hits, rows := 0, 0
	for _, d := range inv.Days {
		hits += d.Messages
	}
	for _, s := range inv.Snapshots {
		if s.Day <= 6 { // fill sends the snapshots of days 0–6
			rows += s.Messages
		}
	}
	if num(m[1]) != hits || num(m[2]) != rows || num(m[3]) != hits+rows {
		t.Errorf("README: %s hits, %s order rows, %s messages; the inventory of fill: %d, %d, %d", m[1], m[2], m[3], hits, rows, hits+rows)
	}
	for _, want := range []string{"compiles clickgen, printing nothing meanwhile", `-ldflags "-X main.commit=$(git rev-parse HEAD)"`, "run --embedded"} {
		if !strings.Contains(flat, want) {
			t.Errorf("README lacks %q", want)
		}
	}
}
