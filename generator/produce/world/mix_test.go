package world

import (
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"testing"

	"math"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

var _ pflag.Value = (*Mix)(nil)

func TestMixText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Mix
		text string // MarshalText: classes in AllGarbageClasses order
	}{
		{"not_an_object=2, field_invalid=1,vanishing=0", Mix{GarbageNotAnObject: 2, GarbageFieldInvalid: 1, GarbageVanishing: 0},
			"not_an_object=2,vanishing=0,field_invalid=1"},
		{"field_invalid=1,keyset_mismatch=3", Mix{GarbageFieldInvalid: 1, GarbageKeysetMismatch: 3}, "keyset_mismatch=3,field_invalid=1"},
		{"accepted_bad=1,", Mix{GarbageAcceptedBad: 1}, "accepted_bad=1"},
		{"", nil, ""},
		{" ", nil, ""},
	} {
		var m Mix
		if err := m.UnmarshalText([]byte(tc.in)); err != nil || !maps.Equal(m, tc.want) || (m == nil) != (tc.want == nil) {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", tc.in, m, err, tc.want)
			continue
		}
		text, err := m.MarshalText()
		if err != nil || string(text) != tc.text || m.String() != tc.text {
			t.Errorf("%v: MarshalText = %q, %v, String = %q; want %q", m, text, err, m.String(), tc.text)
		}
		var back Mix
		if err := back.UnmarshalText(text); err != nil || !maps.Equal(back, m) {
			t.Errorf("%q read back as %v, %v; want %v", text, back, err, m)
		}
		set := Mix{GarbageNotAnObject: 9}
		if err := set.Set(tc.in); err != nil || !maps.Equal(set, tc.want) {
			t.Errorf("Set(%q) = %v, %v; want %v", tc.in, set, err, tc.want)
		}
	}
}

func TestMixSetErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"nope=1", `garbage class "nope"`},
		{"not_an_object", "want class=weight"},
		{"not_an_object=-1", "non-negative"},
		{"not_an_object=x", "non-negative"},
		{"not_an_object=1,not_an_object=2", "named twice"},
		{",", "empty mix"},
	} {
		m := Mix{GarbageNotAnObject: 9}
		err := m.Set(tc.in)
		if err == nil || !errors.Is(err, ErrMix) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Set(%q) = %v; want an error marked ErrMix mentioning %q", tc.in, err, tc.want)
		}
		if len(m) != 1 || m[GarbageNotAnObject] != 9 {
			t.Errorf("Set(%q) failed but changed the mix to %v", tc.in, m)
		}
	}
}

// TestGarbageEncodings: the inventory's JSON spells the mix as an object of weights (omitted
// when nil), as it always has; YAML takes it as a mapping or as the text form.
func TestGarbageEncodings(t *testing.T) {
	for _, tc := range []struct {
		g    Garbage
		json string
	}{
		{Garbage{}, `{"rate":0,"redeliver":0}`},
		{Garbage{Rate: 0.5, Mix: Mix{GarbageVanishing: 2, GarbageNotAnObject: 1}, Redeliver: 0.1},
			`{"rate":0.5,"mix":{"not_an_object":1,"vanishing":2},"redeliver":0.1}`},
	} {
		b, err := json.Marshal(tc.g)
		if err != nil || string(b) != tc.json {
			t.Errorf("json.Marshal(%+v) = %s, %v; want %s", tc.g, b, err, tc.json)
		}
		var back Garbage
		if err := json.Unmarshal(b, &back); err != nil || back.Rate != tc.g.Rate || back.Redeliver != tc.g.Redeliver || !maps.Equal(back.Mix, tc.g.Mix) {
			t.Errorf("%s read back as %+v, %v", b, back, err)
		}
	}
	want := Garbage{Rate: 0.1, Mix: Mix{GarbageNotAnObject: 2, GarbageKeysetMismatch: 1}, Redeliver: 0.01}
	for _, doc := range []string{
		"rate: 0.1\nmix:\n  not_an_object: 2\n  keyset_mismatch: 1\nredeliver: 0.01\n",
		"rate: 0.1\nmix: not_an_object=2,keyset_mismatch=1\nredeliver: 0.01\n",
	} {
		var g Garbage
		if err := yaml.Unmarshal([]byte(doc), &g); err != nil || g.Rate != want.Rate || g.Redeliver != want.Redeliver || !maps.Equal(g.Mix, want.Mix) {
			t.Errorf("yaml %q = %+v, %v; want %+v", doc, g, err, want)
		}
	}
	var g Garbage
	if err := yaml.Unmarshal([]byte("mix: typo=1\n"), &g); !errors.Is(err, ErrMix) {
		t.Errorf("yaml mix: typo=1: error %v, want one marked ErrMix", err)
	}
}

// TestMixWeightBounded is issue 24 item 4: weights are summed into a 32-bit pick table, so
// field_invalid=4294967296 wrapped the orders' sum to zero (a panic after every hit was sent)
// and two weights of MaxInt64 drew 5210 and 0. They are refused where the mix is parsed (and
// in Validate, for a profile's mapping); weights up to the bound still parse.
func TestMixWeightBounded(t *testing.T) {
	for _, text := range []string{
		"key_field_unparsed=1,field_invalid=4294967296",
		"not_an_object=4294967296",
		"not_an_object=9223372036854775807,keyset_mismatch=9223372036854775807",
		"not_an_object=1000001",
	} {
		_, err := ParseMix(text)
		if err == nil || !strings.Contains(err.Error(), "want at most 1000000") {
			t.Errorf("ParseMix(%q) = %v; want an error naming the bound 1000000", text, err)
		}
	}
	g := Garbage{Rate: 0.1, Mix: Mix{GarbageNotAnObject: math.MaxInt64}}
	if err := g.Validate(); err == nil || !strings.Contains(err.Error(), "garbage class not_an_object: weight 9223372036854775807, want at most 1000000") {
		t.Errorf("Validate(not_an_object=MaxInt64) = %v", err)
	}
	m, err := ParseMix("not_an_object=1000000,keyset_mismatch=1000000,key_field_unparsed=1000000,accepted_bad=1000000,vanishing=1000000,field_invalid=1000000")
	if err != nil {
		t.Fatalf("every class at the bound: %v", err)
	}
	for _, classes := range [][]string{HitGarbageClasses, OrderGarbageClasses} {
		_, tab, ok := Garbage{Rate: 1, Mix: m}.mixFor(classes)
		if !ok || tab.Total() != 1_000_000*len(classes) {
			t.Errorf("mix at the bound over %v: table total %d, want %d", classes, tab.Total(), 1_000_000*len(classes))
		}
	}
}
