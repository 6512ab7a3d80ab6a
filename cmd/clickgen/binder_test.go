package main

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/profiles"
)

// envOf is an envLookup over m.
func envOf(m map[string]string) envLookup {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// verbNamed is the verb called name.
func verbNamed(t *testing.T, name string) *verb {
	t.Helper()
	for i := range verbs {
		if verbs[i].name == name {
			return &verbs[i]
		}
	}
	t.Fatalf("no verb %s", name)
	return nil
}

// bound binds verb's flags with env as the environment and parses args.
func bound(t *testing.T, verb string, env map[string]string, args ...string) (*binding, error) {
	t.Helper()
	b := bind(verbNamed(t, verb), envOf(env))
	return b, b.parse(args, io.Discard, verb == "run" || verb == "plot")
}

// errText is err's text, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestFlagTable: every row binds a value pflag can hold, no verb takes two flags of one name
// or two rows of one library field (a refusal would name either), the verbs and their bits
// agree, and a variable is read only where its flag is taken.
func TestFlagTable(t *testing.T) {
	for i, v := range verbs {
		if v.set != 1<<i || verbNames[i] != v.name {
			t.Errorf("verb %s: bit %b, name %s; want bit %b", v.name, v.set, verbNames[i], 1<<i)
		}
		b := bind(&verbs[i], envOf(nil)) // panics on a value pflag cannot hold
		names, fields := map[string]bool{}, map[string]bool{}
		for _, r := range b.rows {
			if r.name != "" && names[r.name] || r.field != "" && fields[r.field] {
				t.Errorf("verb %s: flag --%s or field %q twice", v.name, r.name, r.field)
			}
			names[r.name], fields[r.field] = true, true
			if r.envOn&^r.verbs != 0 || r.required&^r.verbs != 0 || r.sharedOn&^r.verbs != 0 {
				t.Errorf("--%s: a variable read, a requirement or a group on a verb that does not take it", r.name)
			}
			if r.excludes != "" && !slices.ContainsFunc(flagTable, func(o flagSpec) bool { return o.name == r.excludes && o.verbs&r.verbs != 0 }) {
				t.Errorf("--%s excludes --%s, which no verb of it takes", r.name, r.excludes)
			}
			if r.name == "" && (r.errName == "" && r.field != "" || len(r.env) == 0) {
				t.Errorf("a row without a flag must have a variable, and a name for refusals if it has a field: %+v", r)
			}
		}
	}
}

// TestOverrides is issue 28 item 4: a flag given, or set by its variable, is an override on
// every verb, one not given leaves the profile's value; a variable is read only on the verbs
// whose flag reads it, and a flag only on the verbs that take it.
func TestOverrides(t *testing.T) {
	b, err := bound(t, "batch", map[string]string{seedEnv: "7"}, "--day", "3", "--file", "-")
	if err != nil {
		t.Fatal(err)
	}
	o := b.overrides()
	if o.Day == nil || *o.Day != 3 || o.Seed == nil || *o.Seed != 7 || o.Days != nil || o.Scale != nil || o.Messages != nil {
		t.Errorf("batch --day 3 with GENERATOR_SEED=7: overrides %+v; want the day and the seed alone", o)
	}
	b, err = bound(t, "run", nil, "smoke", "--days", "3", "--limit", "1")
	if err == nil || !strings.Contains(err.Error(), "--limit does not apply to run: it is a flag of batch") {
		t.Errorf("run --limit: %v, want it refused as batch's", err)
	}
	b, err = bound(t, "run", map[string]string{seedEnv: "7", dayEnv: "5"}, "smoke", "--days", "3")
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := b.runProfile(t.Context())
	if err != nil || p.Play.Days != 3 || p.Play.Day != 1 || p.World.Seed != 20260601 || p.World.Scale != 0.02 {
		t.Errorf("run smoke --days 3 (GENERATOR_SEED and GENERATOR_DAY are the stand's, not run's): days %d from %d, seed %d, scale %v, %v",
			p.Play.Days, p.Play.Day, p.World.Seed, p.World.Scale, err)
	}
}

// TestRefusalsNameFlags is issue 28 item 4: a library's refusal names the fields it is about,
// and the one table names them as the flags that carried them, on each verb as it spells
// them; run names its profile's own values by their field.
func TestRefusalsNameFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"batch", "--day", "0", "--file", "-", "--limit", "-1"}, "batch: --limit -1: want 0 (no limit) or more"},
		{[]string{"run", "--messages", "-1"}, "run: --messages -1: want 0 (no limit) or more"},
		{[]string{"run", "--speed", "60", "--rate", "5/s"}, "run: --speed (replay) and --rate (a rate shape) exclude each other"},
		{[]string{"run", "--pace", "none", "--speed", "60"}, "run: --pace none: contradicts --speed or --rate"},
		{[]string{"run", "--pace", "sideways"}, `run: --pace "sideways": want none, replay or rate`},
		{[]string{"run", "stress", "--duration", "-1s"}, "run: --duration -1s: want a positive duration such as 30s, or 0s for none"},
		{[]string{"run", "stress", "--duration", "0s"}, "run: play.endless needs --duration or --messages"},
		{[]string{"run", "--garbage", "20"}, "run: --garbage 20: want a number of extra messages per clean message in [0, 10]"},
		{[]string{"run", "--catalog", " x"}, `run: --catalog " x": leading or trailing space`},
		{[]string{"batch", "--day", "0", "--file", "-", "--garbage-mix", "not_an_object=1"}, "batch: --garbage-mix without --garbage: the mix weighs garbage that is not being made"},
		{[]string{"batch", "--day", "29105", "--file", "-"}, "batch: --day: day 29105: the last model day is 29104"},
		{[]string{"batch", "--day", "29104", "--days", "2", "--file", "-"}, "batch: --days: days 29104 to 29105: the last model day is 29104"},
		{[]string{"batch", "--day", "0", "--file", "-", "--workers", "-1"}, "batch: --workers -1: want 0 (all cores) to 1024"},
		{[]string{"batch", "--day", "0", "--brokers", "k:9", "--topic", "t", "--sasl-mechanism", "PLAIN", "--sasl-user", "u"},
			"batch: --sasl-mechanism needs the password in env CLICKGEN_SASL_PASSWORD"},
		{[]string{"verify", "--day", "0", "--brokers", "k:9", "--hits-topic", "x", "--orders-topic", "x"}, `verify: --orders-topic "x": the same as --hits-topic`},
		{[]string{"verify", "--day", "0", "--brokers", "k:9", "--timeout", "0s"}, "verify: --timeout must be positive"},
		{[]string{"batch", "--day", "0", "--brokers", "k:9", "--topic", "t", "--follow-group", "g", "--follow-every", "1ns"},
			"batch: --follow-every 1ns: want at least 10ms"},
	} {
		_, errs, code := clickgen(t, tc.args...)
		if code != 2 || !strings.HasPrefix(errs, "clickgen: "+tc.want) {
			t.Errorf("clickgen %q: exit %d, stderr %q; want exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	// The memory refusal is one sentence, said with the flags.
	_, errs, _ := clickgen(t, "batch", "--day", "0", "--file", "-", "--scale", "100", "--garbage", "0.5", "--workers", "1024", "--max-memory", "1GiB")
	if !strings.Contains(errs, "--scale 100 with --garbage 0.5 --redeliver 0 with --workers 1024 needs about ") ||
		!strings.Contains(errs, "more than --max-memory (1.0 GiB): lower --scale, --garbage or --workers, or raise --max-memory\n") {
		t.Errorf("memory refusal: %q", errs)
	}
	var own string
	if p, err := profiles.Batch().Apply(profiles.Overrides{}); err == nil {
		p.World.Scale = 100
		_, err = p.NewWorld(t.Context(), profiles.MemoryLimit{Bytes: 1 << 30, Source: "the explicit limit", Explicit: true}, 1)
		own = field.Say(err, nil)
	}
	if !strings.HasSuffix(own, "lower the scale or the garbage, or raise the limit") {
		t.Errorf("the library's own words: %q", own)
	}
}

// TestShortDuration: defaults read as a user writes them.
func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{2 * time.Minute: "2m", time.Hour: "1h", 10 * time.Second: "10s", 250 * time.Millisecond: "250ms",
		90 * time.Second: "1m30s", time.Hour + time.Second: "1h0m1s"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// BenchmarkBindAndParse is a verb's startup on the command line: binding every flag of
// batch and parsing a typical command with the environment read.
func BenchmarkBindAndParse(b *testing.B) {
	v := &verbs[2] // batch
	env := envOf(map[string]string{seedEnv: "7", sinkTopicEnv: "hits"})
	args := []string{"--day", "3", "--days", "2", "--brokers", "k:9", "--compression", "zstd", "--garbage", "0.01"}
	b.ReportAllocs()
	for b.Loop() {
		if err := bind(v, env).parse(args, io.Discard, false); err != nil {
			b.Fatal(err)
		}
	}
}
