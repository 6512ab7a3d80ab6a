package testenv

import (
	"strings"
	"testing"
)

func TestSelection(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want []Tier
		bad  bool
	}{
		{env: "", want: nil},
		{env: "all", want: Tiers},
		{env: " kafka , clickhouse ", want: []Tier{Kafka, ClickHouse}},
		{env: "kafka,,", want: []Tier{Kafka}},
		{env: "kafak", bad: true},
		{env: "ALL", bad: true},
	} {
		t.Setenv(Env, tc.env)
		sel, err := selection()
		if tc.bad {
			if err == nil || !strings.Contains(err.Error(), "is no tier") {
				t.Errorf("%s=%q: error %v, want one naming the unknown tier", Env, tc.env, err)
			}
			if Selected(Kafka) {
				t.Errorf("%s=%q selects kafka, want nothing selected by a malformed switch", Env, tc.env)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s=%q: %v", Env, tc.env, err)
			continue
		}
		for _, tier := range Tiers {
			want := false
			for _, w := range tc.want {
				want = want || w == tier
			}
			if sel[tier] != want || Selected(tier) != want {
				t.Errorf("%s=%q: %s selected %v, want %v", Env, tc.env, tier, sel[tier], want)
			}
		}
	}
}

// TestSummary: the package line names what ran and what was skipped with its reasons, and
// says how to run every tier when none was selected.
func TestSummary(t *testing.T) {
	tally.by = nil
	t.Cleanup(func() { tally.by = nil })
	if got := Summary("pkg"); got != "" {
		t.Fatalf("Summary with no tier asked = %q, want empty", got)
	}
	t.Setenv(Env, "")
	record(Kafka, true, "")
	record(Kafka, true, "")
	record(ClickHouse, false, "not selected")
	record(ClickHouse, false, "-short")
	record(ClickHouse, false, "not selected")
	got := Summary("generator/x")
	want := "tiers of generator/x: ran kafka (2); skipped clickhouse (-short ×1, not selected ×2); CLICKGEN_TIERS=all runs every tier"
	if got != want {
		t.Errorf("Summary =\n%q, want\n%q", got, want)
	}
}

// TestNeedSkipsUnselected runs Need in a subtest: unselected, the subtest is skipped and the
// skip recorded; selected with the tool missing, the subtest fails (checked through a fake TB).
func TestNeedSkipsUnselected(t *testing.T) {
	tally.by = nil
	t.Cleanup(func() { tally.by = nil })
	t.Setenv(Env, "")
	ran := false
	t.Run("unselected", func(t *testing.T) {
		Need(t, Kafka, "")
		ran = true
	})
	if ran {
		t.Error("Need let a test of an unselected tier go on")
	}
	t.Setenv(Env, "kafka")
	f := &fakeTB{TB: t}
	func() {
		defer func() { recover() }()
		Need(f, Kafka, "java is not on PATH")
	}()
	if !f.failed || !strings.Contains(f.msg, "java is not on PATH") {
		t.Errorf("Need of a selected tier whose tool is missing: failed %v (%q), want a failure naming what is missing", f.failed, f.msg)
	}
	if got := Summary("p"); !strings.Contains(got, "kafka (missing: java is not on PATH ×1, not selected ×1)") {
		t.Errorf("Summary = %q, want the kafka tier's two skips", got)
	}
}

// fakeTB records a Fatal instead of ending the test that runs it.
type fakeTB struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = true
	f.msg = strings.TrimSpace(strings.ReplaceAll(format, "%s", "")) + " " + strings.Join(toStrings(args), " ")
	panic("fatal")
}

func toStrings(args []any) []string {
	s := make([]string, len(args))
	for i, a := range args {
		if str, ok := a.(string); ok {
			s[i] = str
		} else if tier, ok := a.(Tier); ok {
			s[i] = string(tier)
		}
	}
	return s
}
