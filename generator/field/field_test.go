package field

import (
	"errors"
	"fmt"
	"testing"
)

func flags(key string, _ bool) string {
	return map[string]string{"world.seed": "--seed", "pacing.speed": "--speed", "pacing.rate": "--rate", "Linger": "--linger"}[key]
}

func TestSay(t *testing.T) {
	errWhy := errors.New("want 0 or more")
	both := New("{pacing.speed} (replay) and {pacing.rate|a rate} exclude each other")
	for _, tc := range []struct {
		err        error
		own, named string
	}{
		{&Error{Field: "world.seed", Value: "0", Err: errWhy}, "world.seed 0: want 0 or more", "--seed 0: want 0 or more"},
		{&Error{Field: "Linger", Words: "linger", Value: "-1s", Err: errWhy}, "linger -1s: want 0 or more", "--linger -1s: want 0 or more"},
		{&Error{Field: "world.catalog", Err: errWhy}, "world.catalog: want 0 or more", "world.catalog: want 0 or more"},
		{both, "pacing.speed (replay) and a rate exclude each other", "--speed (replay) and --rate exclude each other"},
		{&Error{Field: "pacing.mode", Value: "none", Err: New("contradicts {pacing.speed}")}, "pacing.mode none: contradicts pacing.speed", "pacing.mode none: contradicts --speed"},
		{Sentence("{world.seed} %s is {odd}", "{x}"), "world.seed {x} is odd", "--seed {x} is odd"},
		{New("a { alone"), "a { alone", "a { alone"},
		{errWhy, "want 0 or more", "want 0 or more"},
	} {
		if got := tc.err.Error(); got != tc.own {
			t.Errorf("%#v: Error() = %q, want %q", tc.err, got, tc.own)
		}
		if got := Say(tc.err, flags); got != tc.named {
			t.Errorf("%#v: Say(flags) = %q, want %q", tc.err, got, tc.named)
		}
	}
	if !errors.Is(&Error{Field: "x", Err: both}, both) || errors.Is(New("x"), New("x")) {
		t.Errorf("sentinels are not compared by identity")
	}
	if Say(nil, flags) != "" || Say(fmt.Errorf("w: %w", both), flags) != "w: pacing.speed (replay) and a rate exclude each other" {
		t.Errorf("Say of nil or of a wrapped error")
	}
}

// TestDecimal: one reading of the integers a user types (issue 29 N15: --segment ' 0/2' was
// accepted while --day ' 5' was refused, and seed 1e3 was called "not a whole number").
func TestDecimal(t *testing.T) {
	for in, want := range map[string]string{"0": "0", "010": "10", "+7": "7", "-0": "0", "-012": "-12", "18446744073709551616": "18446744073709551616"} {
		if got, err := Decimal(in); got != want || err != nil {
			t.Errorf("Decimal(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]error{
		"": ErrNotDecimal, "0x10": ErrNotDecimal, "0o7": ErrNotDecimal, "1_0": ErrNotDecimal, " 5": ErrNotDecimal, "5 ": ErrNotDecimal,
		"1e3": ErrNotDecimal, "1E3": ErrNotDecimal, "+": ErrNotDecimal, "Inf": ErrNotDecimal, "NaN": ErrNotDecimal, "1.0": ErrNotDecimal,
		"1.5": ErrNotWhole, "-0.5": ErrNotWhole, ".5": ErrNotWhole,
	} {
		if _, err := Decimal(in); err != want {
			t.Errorf("Decimal(%q) error = %v, want %v", in, err, want)
		}
	}
}
