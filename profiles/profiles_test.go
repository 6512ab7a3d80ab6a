package profiles

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// TestEmbeddedProfiles loads every embedded profile: each parses with unknown fields
// rejected, validates, is named after its file, describes itself, and means what product.md
// says it means.
func TestEmbeddedProfiles(t *testing.T) {
	names := List()
	for _, want := range []string{"fill", "live", "stress", "garbage", "smoke"} {
		if !slices.Contains(names, want) {
			t.Errorf("List() = %v, want it to hold %s", names, want)
		}
	}
	if !slices.Contains(names, Default) {
		t.Errorf("the default profile %s is not embedded", Default)
	}
	got := map[string]Profile{}
	for _, name := range names {
		p, err := Load(name)
		if err != nil {
			t.Errorf("Load(%s): %v", name, err)
			continue
		}
		if p.Name != name || p.Description == "" {
			t.Errorf("Load(%s): name %q, description %q; want the file's name and a description", name, p.Name, p.Description)
		}
		if err := p.WithDefaults().Validate(); err != nil {
			t.Errorf("%s with defaults: %v", name, err)
		}
		src, _ := Source(name)
		if n := strings.Count(string(src), "#"); n < 10 {
			t.Errorf("%s.yaml has %d comments; the files are documentation, explain the fields", name, n)
		}
		got[name] = p.WithDefaults()
	}
	fill := got["fill"]
	if fill.Play.Day != 0 || fill.Play.Days != 8 || fill.Play.Send != SendBoth || fill.Pacing.Mode != PaceNone || fill.Garbage.Rate != 0 {
		t.Errorf("fill = %+v, want days 0–7, hits and snapshots, unpaced, clean", fill.Play)
	}
	live := got["live"]
	if live.Play.Days != 1 || live.Play.Send != SendBoth || live.Pacing.Mode != PaceReplay || live.Pacing.Speed != 60 {
		t.Errorf("live = %+v %+v, want one day and its snapshot, replayed at ×60", live.Play, live.Pacing)
	}
	stress := got["stress"]
	if !stress.Play.Endless || stress.Play.Send != SendHits || stress.Pacing.Mode != PaceRate || stress.Pacing.Rate.String() != "20000/s" ||
		stress.Stop.Duration <= 0 {
		t.Errorf("stress = %+v %+v %+v, want endless hits at 20000/s with a duration", stress.Play, stress.Pacing, stress.Stop)
	}
	garbage := got["garbage"]
	for _, class := range []string{"not_an_object", "keyset_mismatch", "key_field_unparsed", "accepted_bad", "vanishing", "field_invalid"} {
		if garbage.Garbage.Mix[class] <= 0 {
			t.Errorf("garbage profile: class %s has weight %d, want every class, opt-in ones included", class, garbage.Garbage.Mix[class])
		}
	}
	if garbage.Garbage.Rate < 0.01 || garbage.Play.Send != SendBoth {
		t.Errorf("garbage profile: rate %v send %s, want a high share in both topics", garbage.Garbage.Rate, garbage.Play.Send)
	}
	smoke := got["smoke"]
	if smoke.Expect.Hits == nil || smoke.Expect.Orders == nil || smoke.World.Scale > 0.1 || smoke.Stop != (Stop{}) {
		t.Errorf("smoke = %+v, want a small world with exact expected counts and no stop", smoke)
	}
}

// TestZeroProfileIsDefaults: the zero value is valid and means the documented defaults, and
// an empty file is the zero value.
func TestZeroProfileIsDefaults(t *testing.T) {
	var z Profile
	if err := z.Validate(); err != nil {
		t.Fatalf("zero Profile: %v", err)
	}
	d := z.WithDefaults()
	if d.World.Seed != 20260601 || d.World.Scale != 1 || d.Play.Days != 1 || d.Play.Send != SendHits || d.Pacing.Mode != PaceNone {
		t.Errorf("zero Profile with defaults = %+v", d)
	}
	for _, src := range []string{"", "# only a comment\n", "---\n"} {
		p, err := Parse([]byte(src))
		if err != nil || p.Name != "" || p.Play != (Play{}) {
			t.Errorf("Parse(%q) = %+v, %v; want the zero Profile", src, p, err)
		}
	}
	r := Profile{Pacing: Pacing{Mode: PaceRate}}.WithDefaults()
	if r.Pacing.Rate.String() != DefaultRate.String() {
		t.Errorf("mode rate without a rate: %q, want %q", r.Pacing.Rate, DefaultRate)
	}
	s := Profile{Pacing: Pacing{Mode: PaceReplay}}.WithDefaults()
	if s.Pacing.Speed != DefaultSpeed {
		t.Errorf("mode replay without a speed: %v, want %v", s.Pacing.Speed, DefaultSpeed)
	}
}

// TestParseErrorsNameTheField: every kind of mistake is an error naming the field as the YAML
// spells it.
func TestParseErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct {
		yaml, want string
	}{
		{"pacing:\n  mode: rate\n  rte: 5/s\n", "line 3: field rte not found"},
		{"colour: red\n", "field colour not found"},
		{"play:\n  days: many\n", "line 2: cannot unmarshal"},
		{"stop:\n  duration: 5 minutes\n", "line 2: cannot unmarshal"},
		{"world:\n  scale: -1\n", "world.scale"},
		{"world:\n  scale: 5000\n", "world.scale"},
		{"play:\n  day: -2\n", "play.day -2"},
		{"play:\n  days: -1\n", "play.days"},
		{"play:\n  send: clicks\n", "play.send \"clicks\""},
		{"play:\n  endless: true\n", "play.endless needs stop.duration or stop.messages"},
		{"play:\n  endless: true\n  days: 3\nstop:\n  messages: 5\n", "play.endless with play.days"},
		{"play:\n  endless: true\n  send: snapshots\nstop:\n  messages: 5\n", "play.endless plays hits only"},
		{"pacing:\n  mode: fast\n", "pacing.mode \"fast\""},
		{"pacing:\n  mode: rate\n  rate: 20000/fortnight\n", "pacing.rate"},
		{"pacing:\n  mode: rate\n  rate: ramp:1/s\n", "pacing.rate"},
		{"pacing:\n  rate: 100/s\n", "pacing.rate \"100/s\" is for mode rate"},
		{"pacing:\n  mode: replay\n  speed: -3\n", "pacing.speed"},
		{"pacing:\n  speed: 60\n", "pacing.speed 60 is for mode replay"},
		{"pacing:\n  max_rate: lots\n", "pacing.max_rate"},
		{"garbage:\n  rate: 11\n", "garbage.rate"},
		{"garbage:\n  redeliver: -0.5\n", "garbage.redeliver"},
		{"garbage:\n  rate: 0.1\n  mix:\n    typo: 1\n", "garbage.mix"},
		{"stop:\n  duration: -5s\n", "stop.duration"},
		{"stop:\n  messages: -1\n", "stop.messages"},
		{"expect:\n  hits: -1\n", "expect.hits"},
		{"name: Fill Me\n", "name \"Fill Me\""},
		{"name: a\n---\nname: b\n", "more than one YAML document"},
	} {
		_, err := Parse([]byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error mentioning %q", tc.yaml, err, tc.want)
		}
	}
}

// TestRoundTrip: a profile marshalled back to YAML parses to the same profile, so a user can
// start their own file from `clickgen profiles show`.
func TestRoundTrip(t *testing.T) {
	for _, name := range List() {
		p, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := yaml.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := Parse(b)
		if err != nil {
			t.Fatalf("%s marshalled and parsed again: %v\n%s", name, err, b)
		}
		b2, _ := yaml.Marshal(q)
		if string(b) != string(b2) {
			t.Errorf("%s does not round-trip:\n%s\nvs\n%s", name, b, b2)
		}
	}
	p, err := Parse([]byte("stop:\n  duration: 1m30s\n"))
	if err != nil || p.Stop.Duration != 90*time.Second {
		t.Errorf("duration 1m30s = %v, %v", p.Stop.Duration, err)
	}
}

func TestUnknownProfile(t *testing.T) {
	_, err := Load("fil")
	if err == nil || !strings.Contains(err.Error(), `unknown profile "fil"`) || !strings.Contains(err.Error(), "fill") {
		t.Errorf("Load(fil) = %v, want an error listing the profiles", err)
	}
}

// TestRefusedQuietly: what used to be accepted and then ignored or truncated (issue 11 item
// 10) is refused, naming the field: a fractional count, stop.messages on a run that sends no
// hits, and a user's file that says nothing.
func TestRefusedQuietly(t *testing.T) {
	for _, tc := range []struct {
		yaml, want string
	}{
		{"play:\n  days: 1.5\n", `play.days: "1.5" is not a whole number (line 2)`},
		{"play:\n  day: 2.5\n", `play.day: "2.5" is not a whole number`},
		// Issue 29 N15: 1e3 and 2.0 are whole numbers, not written in decimal digits.
		{"play:\n  day: 2.0\n", `play.day: "2.0" must be a decimal integer`},
		{"stop:\n  messages: 1e3\n", `stop.messages: "1e3" must be a decimal integer`},
		{"play:\n  send: snapshots\n  days: 2\nstop:\n  messages: 5\n", `stop.messages 5 counts hit messages, and play.send "snapshots" sends none`},
	} {
		if _, err := Parse([]byte(tc.yaml)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q", tc.yaml, err, tc.want)
		}
	}
	for _, empty := range []string{"", "\n", "# nothing yet\n", "---\n"} {
		if _, err := ParseFile([]byte(empty)); !errors.Is(err, ErrEmpty) {
			t.Errorf("ParseFile(%q) = %v, want ErrEmpty", empty, err)
		}
	}
	if _, err := ParseFile([]byte("play:\n  days: 2\n")); err != nil {
		t.Errorf("ParseFile of a real profile: %v", err)
	}
}
