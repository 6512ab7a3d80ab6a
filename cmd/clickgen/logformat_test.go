package main

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// numbers hides what changes from run to run (timings with their units, rates, addresses).
var numbers = regexp.MustCompile(`(\d+(\.\d+)?(ns|µs|ms|s|m|h)?)+`)

// cliRun runs the CLI in-process and returns stdout, stderr and the exit code. Stderr loses
// the lines a slow machine adds (a day's model that lasts over a second says so, under -race
// even at scale 1): they depend on the clock, not on the format.
func cliRun(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli(context.Background(), args, &out, &errb)
	var kept []string
	for _, line := range strings.SplitAfter(errb.String(), "\n") {
		if !strings.Contains(line, "modelling day ") {
			kept = append(kept, line)
		}
	}
	return out.String(), strings.Join(kept, ""), code
}

// TestLogFormat: --log-format json, before or after the verb, turns every stderr line into a
// JSON record carrying the same words as the text line (failures at level ERROR), leaves
// stdout alone; text is the default and writes what the command always wrote; a bad value is
// a usage error.
func TestLogFormat(t *testing.T) {
	args := raceScaled("batch", "--day", "0", "--limit", "200", "--file", "-")
	out, text, code := cliRun(t, args...)
	if code != 0 || text == "" {
		t.Fatalf("batch: exit %d, stderr %q", code, text)
	}
	_, text2, _ := cliRun(t, append(args, "--log-format", "text")...)
	if numbers.ReplaceAllString(text, "N") != numbers.ReplaceAllString(text2, "N") {
		t.Errorf("--log-format text changed the lines:\n%s\nwant\n%s", text2, text)
	}
	for _, jargs := range [][]string{append([]string{"--log-format", "json"}, args...), append(args, "--log-format=json")} {
		jout, js, code := cliRun(t, jargs...)
		if code != 0 || jout != out {
			t.Errorf("%q: exit %d, stdout differs from the text run: %v", jargs, code, jout != out)
		}
		var msgs []string
		for _, line := range strings.Split(strings.TrimSuffix(js, "\n"), "\n") {
			var r struct{ Time, Level, Msg string }
			if err := json.Unmarshal([]byte(line), &r); err != nil || r.Time == "" || r.Level != "INFO" {
				t.Fatalf("%q: stderr line %q is not an INFO record (%v)", jargs, line, err)
			}
			msgs = append(msgs, r.Msg)
		}
		var want []string
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if strings.TrimSpace(l) != "" {
				want = append(want, strings.TrimPrefix(l, "clickgen: "))
			}
		}
		got, wantS := numbers.ReplaceAllString(strings.Join(msgs, "\n"), "N"), numbers.ReplaceAllString(strings.Join(want, "\n"), "N")
		if got != wantS {
			t.Errorf("%q: records say\n%s\nthe text lines\n%s", jargs, got, wantS)
		}
	}

	_, js, code := cliRun(t, "run", "no-such-profile", "--log-format", "json")
	if code != 2 || !strings.Contains(js, `"level":"ERROR","msg":"run: `) || !strings.Contains(js, `"level":"INFO","msg":"Run 'clickgen run --help' for usage."`) {
		t.Errorf("a usage error in JSON: exit %d, stderr %s", code, js)
	}
	for _, bad := range [][]string{{"batch", "--log-format", "xml"}, {"batch", "--log-format"}} {
		if _, errs, code := cliRun(t, bad...); code != 2 || !strings.Contains(errs, "--log-format") {
			t.Errorf("%q: exit %d, stderr %q; want a usage error", bad, code, errs)
		}
	}
}
