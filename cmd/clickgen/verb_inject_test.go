package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestInjectKindFor: the contract comes from --kind or the topic's name, and every mistake in
// class, count or day is refused naming the flag and what would do.
func TestInjectKindFor(t *testing.T) {
	for _, c := range []struct {
		topic   string
		args    []string
		want    string
		wantErr string
	}{
		{"hits", []string{"--class", "not_an_object"}, "hits", ""},
		{"orders", []string{"--class", "field_invalid", "--count", "3", "--day", "2"}, "orders", ""},
		{"raw", []string{"--class", "field_invalid", "--kind", "orders"}, "orders", ""},
		{"hits", []string{"--class", "not_an_object", "--kind", "orders"}, "orders", ""},
		{"raw", []string{"--class", "not_an_object"}, "", `cannot tell from topic "raw" which contract to break`},
		{"hits", []string{"--class", "x", "--kind", "clicks"}, "", `--kind "clicks": want hits or orders`},
		{"orders", nil, "", "--class is required: for orders one of not_an_object, keyset_mismatch, field_invalid"},
		{"hits", []string{"--class", "nope"}, "", `unknown class "nope": for hits one of not_an_object`},
		{"hits", []string{"--class", "field_invalid"}, "", "class field_invalid does not apply to hits: want one of"},
		{"hits", []string{"--class", "vanishing", "--count", "0"}, "", "--count 0: want 1 to 100000"},
		{"hits", []string{"--class", "vanishing", "--count", "100001"}, "", "--count 100001: want 1 to 100000"},
		{"hits", []string{"--class", "vanishing", "--day", "-1"}, "", "--day -1: model days start at 0"},
		// Issue 24 item 5: the other verbs' bound, in their words.
		{"hits", []string{"--class", "accepted_bad", "--day", "29105"}, "", "--day: day 29105: the last model day is 29104 (2106-02-06)"},
		{"hits", []string{"--class", "accepted_bad", "--day", "2147483647"}, "", "--day: day 2147483647: the last model day is 29104"},
		{"orders", []string{"--class", "field_invalid", "--day", "100000"}, "", "--day: day 100000: the last model day is 29104"},
		{"hits", []string{"--class", "accepted_bad", "--day", "29104"}, "hits", ""},
	} {
		b, err := bound(t, "inject", nil, c.args...)
		if err != nil {
			t.Fatal(err)
		}
		m := b.v.inject
		m.Day = b.v.day
		got, err := m.KindFor(c.topic)
		err = b.refuse(err) // in the flags' words
		if got != c.want || (c.wantErr == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), "inject: "+c.wantErr)) {
			t.Errorf("topic %s, %q: kind %q, error %v; want %q, error starting %q", c.topic, c.args, got, err, c.want, c.wantErr)
		}
	}
}

// TestInjectDayBounded is issue 24 item 5: inject had no day bound (--day 2147483647 panicked,
// 9223372036854775807 ran out of memory, 29105 put 1970 into UTCEventTime). It now refuses
// what every other verb refuses, in the same words.
func TestInjectDayBounded(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.jsonl")
	for _, tc := range [][]string{
		{"--kind", "hits", "--class", "accepted_bad", "--day", "29105"},
		{"--kind", "hits", "--class", "accepted_bad", "--day", "2147483647"},
		{"--kind", "hits", "--class", "accepted_bad", "--day", "9223372036854775807"},
		{"--kind", "orders", "--class", "field_invalid", "--day", "100000"},
	} {
		day := tc[len(tc)-1]
		line := refused(t, file, "--day: day "+day+": the last model day is 29104 (2106-02-06)", append([]string{"inject", "--file", file}, tc...)...)
		t.Logf("--day %s: %s", day, line)
	}
	_, errs, _ := clickgen(t, "batch", "--day", "29105", "--file", file)
	if !strings.Contains(errs, "day 29105: the last model day is 29104 (2106-02-06): UTCEventTime is a DateTime, which ends in 2106") {
		t.Errorf("batch --day 29105: %q; want the wording inject now shares", errs)
	}
	if _, errs, code := clickgen(t, "inject", "--file", file, "--kind", "hits", "--class", "accepted_bad", "--day", "29104"); code != 0 {
		t.Errorf("inject --day 29104: exit %d, %s", code, errs)
	}
}

// TestInjectCountBounded is issue 11 item 4: --count 1000000000 asked for 96 GB and crashed
// with exit 2 as if it were a usage error; it now is one, refused before anything is built.
func TestInjectCountBounded(t *testing.T) {
	_, errs, code := clickgen(t, "inject", "--kind", "hits", "--class", "not_an_object", "--count", "1000000000", "--file", filepath.Join(t.TempDir(), "x.jsonl"))
	if code != 2 || !strings.Contains(errs, "--count 1000000000: want 1 to 100000") {
		t.Errorf("inject --count 1000000000: exit %d, stderr %q; want exit 2 naming the bound", code, errs)
	}
}
