package topics

import (
	"strings"
	"testing"
)

// TestProgressNamesTheWindow: while a range checked in windows plans a window, the progress
// line says which, and that the units it counts are every window's.
func TestProgressNamesTheWindow(t *testing.T) {
	p := &verifyProgress{run: "day 0", units: 8, windows: 4}
	p.window.Store(2)
	p.built.Store(5)
	name, _, line := p.step()
	if want := "verify: computing what run day 0 sends, window 3 of 4: 5 of 8 days' hits and snapshots of all windows"; name != "expectation" || line != want {
		t.Errorf("step() = %q, %q; want expectation, %q", name, line, want)
	}
	p.windows = 1
	if _, _, line := p.step(); strings.Contains(line, "window") {
		t.Errorf("step() of a whole check = %q, names a window", line)
	}
}
