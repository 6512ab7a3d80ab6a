package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestReadmeFigures is issue 24 Low 12: the README said the starting world "has 412 409
// events over days 0–7" when inventory and verify gave 405 714, and that "--scale 300 needs
// about 29.3 GiB" when the estimate had become 6.0 GiB. The figures the README quotes are
// computed here with the code that prints them, so a change of the world or of the memory
// estimate fails until the README says the new figure. (The README's refusal was of --scale
// 1200 against the available memory: a scale above 1000 is now refused as out of range
// before any memory check, issue 22.)
//
// The figures moved with their sections from the README to docs/ (stand.md, faults.md):
// the test reads the README and every page of docs/ as one text.
func TestReadmeFigures(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, p := range append([]string{"../../README.md"}, pages...) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(data)
	}
	readme := all.String()
	m := regexp.MustCompile(`has ([0-9][0-9 ]*) events over days 0–7`).FindStringSubmatch(readme)
	if m == nil {
		t.Fatal(`README has no "has N events over days 0–7"`)
	}
	inv := inventoryOf(t, "--day", "0", "--days", "8")
	events := 0
	for _, d := range inv.Days {
		events += d.Events
	}
	if said, _ := strconv.Atoi(strings.ReplaceAll(m[1], " ", "")); said != events {
		t.Errorf("README: the starting world has %s events over days 0–7; inventory --day 0 --days 8 gives %d", m[1], events)
	}
	// The refusal is quoted under an explicit --max-memory, so it reads the same on every
	// machine; a scale beyond world.MaxScale is refused as out of range before the memory.
	m = regexp.MustCompile("`--scale ([0-9.]+) needs about ([0-9.]+ GiB) of memory, more than --max-memory \\(([0-9.]+) GiB\\)`").FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("README has no \"`--scale N needs about X GiB of memory, more than --max-memory (L GiB)`\"")
	}
	_, errs, code := clickgen(t, "batch", "--day", "0", "--scale", m[1], "--max-memory", m[3]+"GiB", "--file", os.DevNull)
	if want := "--scale " + m[1] + " needs about " + m[2] + " of memory, more than --max-memory (" + m[3] + " GiB)"; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("README quotes %q; the refusal reads (exit %d) %q", want, code, errs)
	}
}
