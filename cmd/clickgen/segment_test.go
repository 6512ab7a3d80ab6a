package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSegmentFlags: the ways of choosing a segment, and the mistakes that are usage errors
// before anything is sent.
func TestSegmentFlags(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "out")
	base := []string{"batch", "--day", "0", "--scale", "0.02", "--file", file}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string // in stderr
	}{
		{"flag", nil, []string{"--segment", "1/3"}, 0, ""},
		{"env", map[string]string{segmentEnv: "2/3"}, nil, 0, ""},
		{"indexed job", map[string]string{jobIndexEnv: "2"}, []string{"--segments", "3"}, 0, ""},
		{"out of range", nil, []string{"--segment", "3/3"}, 2, "segment 3/3"},
		{"both", nil, []string{"--segment", "0/2", "--segments", "2"}, 2, "both --segment and --segments"},
		{"no index", nil, []string{"--segments", "2"}, 2, "needs env " + jobIndexEnv},
		{"index too large", map[string]string{jobIndexEnv: "4"}, []string{"--segments", "4"}, 2, jobIndexEnv},
		{"bad env", map[string]string{segmentEnv: "x"}, nil, 2, segmentEnv},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, errs, code := clickgen(t, append(slices.Clone(base), tc.args...)...)
			if code != tc.code || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errs, tc.code, tc.want)
			}
		})
	}
}

// TestSegmentFilesUnion: the lines of batch and snapshot --file from --segment 0/3 … 2/3,
// with garbage, are together those of the unsegmented command (as multisets), and the
// segments' inventories merge into the unsegmented inventory's counts.
func TestSegmentFilesUnion(t *testing.T) {
	dir := t.TempDir()
	run := concatArgs([]string{"--day", "1", "--days", "2"}, smallWorld, allGarbage)
	lines := func(verb, seg string) []string {
		t.Helper()
		f := filepath.Join(dir, verb+strings.ReplaceAll(seg, "/", "of"))
		args := concatArgs([]string{verb}, run, []string{"--file", f})
		if seg != "" {
			args = append(args, "--segment", seg)
		}
		if _, errs, code := clickgen(t, args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, errs)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	}
	for _, verb := range []string{"batch", "snapshot"} {
		whole := lines(verb, "")
		var union []string
		for _, seg := range []string{"0/3", "1/3", "2/3"} {
			union = append(union, lines(verb, seg)...)
		}
		slices.Sort(whole)
		slices.Sort(union)
		if !slices.Equal(whole, union) {
			t.Errorf("%s: the 3 segments' %d lines differ from the whole run's %d", verb, len(union), len(whole))
		}
	}

	var files []string
	for _, seg := range []string{"2/3", "0/3", "1/3"} {
		out, errs, code := clickgen(t, concatArgs([]string{"inventory", "--segment", seg}, run)...)
		if code != 0 {
			t.Fatalf("inventory --segment %s: exit %d: %s", seg, code, errs)
		}
		f := filepath.Join(dir, "inv"+strings.ReplaceAll(seg, "/", "of")+".json")
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	merged, errs, code := clickgen(t, append([]string{"inventory", "--merge"}, files...)...)
	if code != 0 {
		t.Fatalf("inventory --merge: exit %d: %s", code, errs)
	}
	whole, _, _ := clickgen(t, concatArgs([]string{"inventory"}, run)...)
	if a, b := dropHashLines(merged), dropHashLines(whole); a != b {
		t.Errorf("merged inventory differs from the whole run's (hashes aside):\n%s\nwant:\n%s", a, b)
	}
	if _, errs, code := clickgen(t, "inventory", "--merge", files[0], files[1]); code != 2 || !strings.Contains(errs, "shares of one run") {
		t.Errorf("merge of 2 of 3 shares: exit %d, %s; want a usage error", code, errs)
	}
	// --merge=true is --merge: it takes files, not a world's flags (it used to compute an
	// inventory of day 0 and ignore the flag).
	if out, errs, code := clickgen(t, "inventory", "--merge=true", "--day", "0"); code != 2 || !strings.Contains(errs, "--merge takes only inventory files") {
		t.Errorf("inventory --merge=true --day 0: exit %d, %s%s; want a usage error", code, errs, out)
	}
	if merged2, errs, code := clickgen(t, append([]string{"inventory", "--merge=true"}, files...)...); code != 0 || merged2 != merged {
		t.Errorf("inventory --merge=true FILES: exit %d, %s; want the same merge as --merge", code, errs)
	}
}

// dropHashLines removes the SHA-256 lines of an inventory's JSON: a merge lists the shares'
// hashes where the whole run has one.
func dropHashLines(s string) string {
	var out []string
	inList := false
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, `"segment_sha256"`):
			inList = true
		case inList:
			inList = !strings.HasPrefix(t, "]")
		case !strings.HasPrefix(t, `"sha256"`):
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestSegmentLogsNameTheSegment (issue 31): the N processes of a segmented run write
// interleaved logs, whose lines did not say whose they were. With --segment I/N every unit
// line and every line of the summary (and run's header and read-back) of batch, snapshot,
// live and run says "segment I/N"; a whole run's lines say no segment.
func TestSegmentLogsNameTheSegment(t *testing.T) {
	out := func(name string) string { return filepath.Join(t.TempDir(), name) }
	for _, tc := range []struct {
		args  []string
		units string // what a unit line starts with, after the segment
	}{
		{[]string{"batch", "--day", "0", "--days", "2", "--scale", "0.05", "--file", out("b")}, "day "},
		{[]string{"snapshot", "--day", "0", "--days", "3", "--file", out("s")}, "snapshot of day "},
		{[]string{"live", "--day", "0", "--scale", "0.02", "--speed", "1000000", "--file", out("l")}, "day "},
		{[]string{"run", "smoke"}, "day "},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			for _, seg := range []string{"1/2", ""} {
				args := tc.args
				if seg != "" {
					args = append(slices.Clone(args), "--segment", seg)
				}
				_, errs, code := clickgen(t, args...)
				if code != 0 {
					t.Fatalf("%q: exit %d\n%s", args, code, errs)
				}
				who := "clickgen: "
				if seg != "" {
					who += "segment " + seg + ": "
				}
				units, summary := 0, 0
				for _, l := range strings.Split(errs, "\n") {
					rest, ok := strings.CutPrefix(l, "clickgen: ")
					if !ok {
						continue
					}
					bare := rest // the line without any segment's name
					if i := strings.Index(rest, ": "); strings.HasPrefix(rest, "segment ") && i > 0 {
						bare = rest[i+2:]
					}
					switch {
					case strings.HasPrefix(bare, tc.units):
						units++
					case strings.HasPrefix(bare, "total time "), strings.HasPrefix(bare, "latency "), strings.HasPrefix(bare, "hits: "), strings.HasPrefix(bare, "orders: "):
						summary++
					default:
						continue
					}
					if l != who+bare {
						t.Errorf("%q: line %q, want it to start %q", args, l, who)
					}
				}
				if units == 0 || summary < 3 {
					t.Errorf("%q: %d unit lines and %d summary lines starting %q, want some of each:\n%s", args, units, summary, who, errs)
				}
			}
		})
	}
}
