package profiles

import (
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/world"
)

func ptr[T any](v T) *T { return &v }

func shape(t *testing.T, s string) *pace.Shape {
	t.Helper()
	var sh pace.Shape
	if err := sh.Set(s); err != nil {
		t.Fatal(err)
	}
	return &sh
}

// TestTypedFields: a profile file holds parsed values; the rate, the ceiling and the mix are
// read by their own types, and a bad one is an error naming its field.
func TestTypedFields(t *testing.T) {
	p, err := Parse([]byte("pacing:\n  mode: rate\n  rate: ramp:0-2000/s:30s\n  max_rate: 1200/m\n" +
		"garbage:\n  rate: 0.1\n  mix: not_an_object=2,vanishing=1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Pacing.Rate.String() != "ramp:0/s-2000/s:30s" || p.Pacing.MaxRate != 20 ||
		!maps.Equal(p.Garbage.Mix, world.Mix{world.GarbageNotAnObject: 2, world.GarbageVanishing: 1}) {
		t.Errorf("parsed %q, %v, %v", p.Pacing.Rate, float64(p.Pacing.MaxRate), p.Garbage.Mix)
	}
	if d, ok := p.Shape().Due(2000); !ok || d <= 0 {
		t.Errorf("Shape().Due(2000) = %v, %v", d, ok)
	}
	if p, err := Parse([]byte("garbage:\n  mix: {}\n")); err != nil || p.Garbage.Mix != nil {
		t.Errorf("mix: {} = %v, %v; want the nil (default) mix", p.Garbage.Mix, err)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"garbage:\n  rate: 0.1\n  mix: typo=1\n", `garbage.mix: garbage class "typo"`},
		{"pacing:\n  mode: rate\n  rate: steps:5/s\n", "pacing.rate: shape"},
		{"pacing:\n  max_rate: 0/s\n", "pacing.max_rate: rate"},
	} {
		if _, err := Parse([]byte(tc.yaml)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error mentioning %q", tc.yaml, err, tc.want)
		}
	}
}

func TestApply(t *testing.T) {
	smoke, err := Load("smoke")
	if err != nil {
		t.Fatal(err)
	}
	stress, err := Load("stress")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		p      Profile
		o      Overrides
		check  func(Profile) bool
		expect bool // the profile's Expect survives
	}{
		{"none", smoke, Overrides{}, func(q Profile) bool { return q.World == smoke.World }, true},
		{"seed", smoke, Overrides{Seed: ptr[uint64](7)}, func(q Profile) bool { return q.World.Seed == 7 }, false},
		{"days end endless", stress, Overrides{Days: ptr(3)}, func(q Profile) bool { return q.Play.Days == 3 && !q.Play.Endless }, true},
		{"mix", smoke, Overrides{GarbageRate: ptr(0.01), Mix: &world.Mix{world.GarbageVanishing: 1}}, func(q Profile) bool { return q.Garbage.Mix[world.GarbageVanishing] == 1 }, false},
		{"speed means replay", smoke, Overrides{Speed: ptr(60.0)},
			func(q Profile) bool { return q.Pacing.Mode == PaceReplay && q.Pacing.Speed == 60 }, true},
		{"rate means rate", smoke, Overrides{Rate: shape(t, "5/s")},
			func(q Profile) bool { return q.Pacing.Mode == PaceRate && q.Pacing.Rate.String() == "5/s" }, true},
		{"pace none drops the rate, keeps the ceiling", Profile{Pacing: Pacing{Mode: PaceRate, Rate: *shape(t, "5/s"), MaxRate: 9}},
			Overrides{Pace: ptr(PaceNone)},
			func(q Profile) bool { return q.Pacing == Pacing{Mode: PaceNone, MaxRate: 9} }, true},
		{"max-rate clears", Profile{Pacing: Pacing{MaxRate: 9}}, Overrides{MaxRate: ptr[pace.Rate](0)},
			func(q Profile) bool { return q.Pacing.MaxRate == 0 }, true},
		{"duration", stress, Overrides{Duration: ptr(time.Second)}, func(q Profile) bool { return q.Stop.Duration == time.Second }, true},
	} {
		q, err := tc.p.Apply(tc.o)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !tc.check(q) {
			t.Errorf("%s: got %+v", tc.name, q)
		}
		if tc.p.Expect.Set() && q.Expect.Set() != tc.expect {
			t.Errorf("%s: expect kept = %v, want %v", tc.name, q.Expect.Set(), tc.expect)
		}
	}
	if !smoke.Expect.Set() {
		t.Fatal("smoke has no expected counts; the test needs a profile with some")
	}
}

func TestApplyErrors(t *testing.T) {
	var nilMix world.Mix
	for _, tc := range []struct {
		o       Overrides
		want    string
		invalid bool // an *InvalidError: the result, not the override, is wrong
	}{
		{Overrides{Seed: ptr[uint64](0)}, "world.seed 0: the seed must be positive", false},
		{Overrides{Days: ptr(0)}, "play.days 0: want at least 1", false},
		{Overrides{Mix: &nilMix}, "garbage.mix: empty mix", false},
		{Overrides{Speed: ptr(60.0), Rate: shape(t, "5/s")}, "exclude each other", false},
		{Overrides{Pace: ptr(PaceRate), Speed: ptr(60.0)}, "contradicts", false},
		{Overrides{Speed: ptr(-1.0)}, "pacing.speed: ", false},
		{Overrides{Pace: ptr("warp")}, `pacing.mode "warp"`, true},
		{Overrides{GarbageRate: ptr(20.0)}, "garbage.rate", true},
		{Overrides{Day: ptr(-1)}, "play.day -1: model days start at 0", false},
		{Overrides{Messages: ptr[int64](-1)}, "stop.messages -1: want 0 (no limit) or more", false},
		// The scale is checked as an override, as the seed is: one check, one wording.
		{Overrides{Scale: ptr(-1.0)}, "world.scale -1: want a factor in (0, 1000]", false},
		{Overrides{Scale: ptr(0.0001)}, "world.scale 0.0001: smaller than the smallest step 0.001", false},
		{Overrides{MaxRate: ptr[pace.Rate](-5)}, "pacing.max_rate", true},
	} {
		_, err := Profile{}.Apply(tc.o)
		var invalid *InvalidError
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &invalid) != tc.invalid {
			t.Errorf("Apply(%+v) = %v; want an error mentioning %q, invalid result %v", tc.o, err, tc.want, tc.invalid)
		}
		// An override's own refusal is typed, so the command can name its flag.
		var ve *ValueError
		if !tc.invalid && !errors.As(err, &ve) && !errors.Is(err, ErrSpeedAndRate) {
			t.Errorf("Apply(%+v) = %v (%T); want a *ValueError or ErrSpeedAndRate", tc.o, err, err)
		}
	}
	if _, err := (Profile{}).Apply(Overrides{Seed: ptr[uint64](0)}); !errors.Is(err, world.ErrZeroSeed) {
		t.Errorf("Apply(seed 0) = %v, want world.ErrZeroSeed wrapped", err)
	}
	if _, err := (Profile{}).Apply(Overrides{Pace: ptr(PaceRate), Speed: ptr(60.0)}); !errors.Is(err, ErrModeContradicts) {
		t.Errorf("Apply(pace rate, speed 60) = %v, want ErrModeContradicts", err)
	}
	// An explicit 0 is refused, as every verb refuses it (a profile's 0 means 1; a flag's
	// 0 used to mean 1 on run and be refused on batch).
	if _, err := (Profile{World: World{Scale: 5}}).Apply(Overrides{Scale: ptr(0.0)}); err == nil || err.Error() != "world.scale 0: want a factor in (0, 1000]" {
		t.Errorf("Apply(scale 0) = %v; want it refused", err)
	}
}
