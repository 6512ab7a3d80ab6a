// Package profiles holds clickgen's run profiles: named bundles of a world (seed, scale,
// catalog), what to play (days, hits and/or snapshots), pacing (none, model-time replay, a
// rate shape), garbage, a stop condition and, optionally, the exact counts the topics must
// hold afterwards. `clickgen run PROFILE` plays one; flags override any field.
//
// Profiles are YAML files meant to be read and edited by hand: the embedded ones (fill, live,
// stress, garbage, smoke) carry a comment on every field, and a user's own file has the same
// format (`clickgen run --profile-file FILE`). A file is decoded into a [Profile], a plain
// struct whose zero value means "the defaults" (like log/slog.HandlerOptions): an empty file
// plays model day 0's hits and no snapshot, unpaced, without garbage. Unknown fields are
// errors, so a typo never silently falls back to a default.
//
// The same fields are command-line flags, bound in cmd/clickgen: `clickgen run` applies them
// to a profile as [Overrides], and `batch`, `live` and `snapshot` to their built-in profiles
// ([Batch], [Live], [Snapshot]). Every verb builds its world with [Profile.NewWorld] and
// its plan with [Profile.Plan].
//
// This package only describes runs; it sends nothing, reads no clock, no flag and no
// environment variable, and reads files only when named (a catalog, a profile file). Its
// errors name a refused value by the profile field that holds it (world.scale) or by what it
// is (a catalog), as typed errors ([ValueError], [FootprintError], [UnknownError]) the
// command words as the flag or variable that carried the value.
package profiles

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/produce/pace"
	"github.com/clickgen/clickgen/generator/produce/world"
)

//go:embed *.yaml
var files embed.FS

// Default is the profile `clickgen run` plays when none is named.
const Default = "fill"

// What a run sends, the values of [Play.Send].
const (
	SendHits      = "hits"           // model days' events into topic hits
	SendSnapshots = "snapshots"      // the snapshots the run days send into topic orders
	SendBoth      = "hits+snapshots" // both, hits first (the stand's batch, then snapshot)
)

// Pacing modes, the values of [Pacing.Mode].
const (
	PaceNone   = "none"   // as fast as the sink takes them
	PaceReplay = "replay" // by model time at a speed factor (`clickgen live`)
	PaceRate   = "rate"   // by a rate shape (stress)
)

// Defaults applied by [Profile.WithDefaults] to fields left zero.
const (
	DefaultSpeed           = pace.DefaultSpeed // replay speed: model seconds per real second
	DefaultRate  pace.Rate = 20000             // constant rate of mode rate, messages per second
)

// defaultShape is DefaultRate as a shape.
var defaultShape = func() pace.Shape {
	c, err := pace.Constant(DefaultRate)
	if err != nil {
		panic(err) // a constant of this package
	}
	return pace.Shape{Pacer: c}
}()

// Profile is one run, as a profile file describes it. The zero value means defaults
// everywhere; [Profile.WithDefaults] spells them out. A Profile is plain data: copy it, change
// fields, call [Profile.Validate].
type Profile struct {
	// Name is the profile's name (an embedded profile's file name without .yaml).
	Name string `yaml:"name"`
	// Description is one line for `clickgen profiles list`.
	Description string `yaml:"description"`
	// World chooses the shop.
	World World `yaml:"world"`
	// Play chooses the model days and the topics.
	Play Play `yaml:"play"`
	// Pacing chooses when messages go.
	Pacing Pacing `yaml:"pacing"`
	// Garbage adds malformed messages and redeliveries to the clean streams: rate, mix (a
	// mapping of class weights, or its text form, as world.Mix parses it) and redeliver.
	Garbage world.Garbage `yaml:"garbage"`
	// Stop ends the run early; zero fields never stop it.
	Stop Stop `yaml:"stop"`
	// Expect, when set, is what the topics must hold afterwards, checked exactly.
	Expect Expect `yaml:"expect"`
}

// World chooses the shop; see world.Params.
type World struct {
	// Seed is the world seed; 0 means the canonical seed 20260601.
	Seed uint64 `yaml:"seed"`
	// Scale multiplies the inflow of new visitors (events per day); 0 means 1.
	Scale float64 `yaml:"scale"`
	// Catalog is the path of a catalog CSV; empty means the embedded catalog.
	Catalog string `yaml:"catalog"`
}

// Play chooses what is sent.
type Play struct {
	// Day is the first model day (0 is Monday 2026-06-01).
	Day int `yaml:"day"`
	// Days is the number of run days D … D+Days−1; 0 means 1. Run day X sends the hits of
	// day X and the snapshot of day X−1 (none for X = 0), as the stand's batch and snapshot.
	Days int `yaml:"days"`
	// Send is SendHits, SendSnapshots or SendBoth; empty means SendHits.
	Send string `yaml:"send"`
	// Endless plays day, day+1, … without end until the stop condition (hits only).
	Endless bool `yaml:"endless"`
}

// Pacing chooses when messages go.
type Pacing struct {
	// Mode is PaceNone, PaceReplay or PaceRate; empty means PaceNone.
	Mode string `yaml:"mode"`
	// Speed is the replay speed in model seconds per real second (mode replay only); 0 means
	// DefaultSpeed.
	Speed float64 `yaml:"speed"`
	// Rate is a rate shape, written in the syntax of pace.ParseShape (mode rate only); empty
	// (the zero Shape) means DefaultRate.
	Rate pace.Shape `yaml:"rate"`
	// MaxRate is a ceiling on the hits' rate in messages per second, on top of any mode,
	// written in the syntax of pace.ParseRate; empty (zero) means none. Snapshots are never
	// paced.
	MaxRate pace.Rate `yaml:"max_rate"`
}

// Stop ends a run before it has played everything; zero fields never stop it.
type Stop struct {
	// Duration stops sending this long after the first message (a run paced by a rate shape
	// sends exactly what the shape allows before it).
	Duration time.Duration `yaml:"duration"`
	// Messages stops after this many hit messages, malformed and redelivered ones included.
	Messages int64 `yaml:"messages"`
}

// Expect holds exact message counts the topics must hold after the run; nil fields are not
// checked. They describe the profile as written: a run that overrides what is played drops
// them.
type Expect struct {
	// Hits is the number of messages topic hits must hold.
	Hits *int64 `yaml:"hits"`
	// Orders is the number of messages topic orders must hold.
	Orders *int64 `yaml:"orders"`
}

// Set reports whether any count is expected.
func (e Expect) Set() bool { return e.Hits != nil || e.Orders != nil }

// WithDefaults returns p with every zero field that has a default set to it: seed, scale,
// days (unless endless), send, pacing mode, and the speed or rate of that mode.
func (p Profile) WithDefaults() Profile {
	p.World.Seed = world.RootSeed(p.World.Seed)
	if p.World.Scale == 0 {
		p.World.Scale = 1
	}
	if p.Play.Days == 0 && !p.Play.Endless {
		p.Play.Days = 1
	}
	if p.Play.Send == "" {
		p.Play.Send = SendHits
	}
	if p.Pacing.Mode == "" {
		p.Pacing.Mode = PaceNone
	}
	switch p.Pacing.Mode {
	case PaceReplay:
		if p.Pacing.Speed == 0 {
			p.Pacing.Speed = DefaultSpeed
		}
	case PaceRate:
		if p.Pacing.Rate.IsZero() {
			p.Pacing.Rate = defaultShape
		}
	}
	return p
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// Validate reports the first thing wrong with p, naming the field as the YAML spells it
// (e.g. "pacing.rate: …") in a field.Error. Zero fields are valid: they mean defaults.
func (p Profile) Validate() error {
	if p.Name != "" && !nameRE.MatchString(p.Name) {
		return fmt.Errorf("name %q: want lower-case letters, digits, '-' and '_'", p.Name)
	}
	if p.World.Scale != 0 { // 0 means 1
		if err := CheckScale(p.World.Scale); err != nil {
			return err
		}
	}
	if p.World.Catalog != strings.TrimSpace(p.World.Catalog) {
		return refused("world.catalog", strconv.Quote(p.World.Catalog), "leading or trailing space")
	}
	if err := p.Play.validate(); err != nil {
		return err
	}
	if p.Play.Endless && p.Stop.Duration == 0 && p.Stop.Messages == 0 {
		return errEndlessNoStop
	}
	if err := p.Pacing.validate(); err != nil {
		return err
	}
	if err := p.Garbage.Validate(); err != nil {
		return err // named by the garbage field (world.Garbage)
	}
	if p.Stop.Duration < 0 {
		return refused("stop.duration", p.Stop.Duration.String(), "want a positive duration such as 30s, or 0s for none")
	}
	if p.Stop.Messages < 0 {
		return refused("stop.messages", strconv.FormatInt(p.Stop.Messages, 10), "want a positive count, or 0 for none")
	}
	if p.Stop.Messages > 0 && p.Play.Send == SendSnapshots {
		return field.Sentence("{stop.messages} %d counts hit messages, and {play.send} %q sends none", p.Stop.Messages, p.Play.Send)
	}
	for _, e := range []struct {
		field string
		n     *int64
	}{{"expect.hits", p.Expect.Hits}, {"expect.orders", p.Expect.Orders}} {
		if e.n != nil && *e.n < 0 {
			return refused(e.field, strconv.FormatInt(*e.n, 10), "a count is at least 0")
		}
	}
	return nil
}

// errEndlessNoStop is an endless profile without a stop condition.
var errEndlessNoStop = field.New("{play.endless} needs {stop.duration} or {stop.messages}")

// refused is the refusal of value in field, saying why.
func refused(field, value, why string) error {
	return &ValueError{Field: field, Value: value, Err: errors.New(why)}
}

func (pl Play) validate() error {
	if pl.Day < 0 {
		return refused("play.day", strconv.Itoa(pl.Day), "model days start at 0")
	}
	if pl.Days < 0 {
		return refused("play.days", strconv.Itoa(pl.Days), "want at least 1, or 0 for 1")
	}
	switch pl.Send {
	case "", SendHits, SendSnapshots, SendBoth:
	default:
		return refused("play.send", strconv.Quote(pl.Send), "want "+SendHits+", "+SendSnapshots+" or "+SendBoth)
	}
	if pl.Endless {
		if pl.Days != 0 {
			return field.Sentence("{play.endless} with {play.days} %d: choose one", pl.Days)
		}
		if pl.Send != "" && pl.Send != SendHits {
			return field.Sentence("{play.endless} plays hits only, not {play.send} %q", pl.Send)
		}
	}
	return nil
}

func (pc Pacing) validate() error {
	switch pc.Mode {
	case "", PaceNone, PaceReplay, PaceRate:
	default:
		return refused("pacing.mode", strconv.Quote(pc.Mode), "want "+PaceNone+", "+PaceReplay+" or "+PaceRate)
	}
	if pc.Speed != 0 {
		if pc.Mode != PaceReplay {
			return field.Sentence("{pacing.speed} %v is for {pacing.mode|mode} %s, not %q", pc.Speed, PaceReplay, pc.Mode)
		}
		if !(pc.Speed > 0) {
			return refused("pacing.speed", fmt.Sprint(pc.Speed), "want a positive number of model seconds per real second")
		}
		if _, err := pace.Replay(pc.Speed); err != nil {
			return &ValueError{Field: "pacing.speed", Err: err}
		}
	}
	if !pc.Rate.IsZero() && pc.Mode != PaceRate {
		return field.Sentence("{pacing.rate} %q is for {pacing.mode|mode} %s, not %q", pc.Rate.String(), PaceRate, pc.Mode)
	}
	if pc.MaxRate != 0 {
		// The value was parsed when it was read; this checks one set in Go.
		if _, err := pace.Constant(pc.MaxRate); err != nil {
			return &ValueError{Field: "pacing.max_rate", Err: err}
		}
	}
	return nil
}

// Shape returns the rate shape of a profile in mode rate (DefaultRate when Rate is zero).
func (p Profile) Shape() pace.Shape {
	if p.Pacing.Rate.IsZero() {
		return defaultShape
	}
	return p.Pacing.Rate
}

// Parse decodes one profile from YAML and validates it. Unknown fields, a value of the wrong
// type, and more than one YAML document are errors; errors name the field (and the line for
// YAML errors). An empty document is the zero Profile.
func Parse(data []byte) (Profile, error) {
	var p Profile
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Profile{}, yamlError(err)
	}
	if err := boundKeys(&doc, ""); err != nil {
		return Profile{}, err
	}
	read := map[string]string{} // the integer fields' values, as decimal text
	if len(doc.Content) > 0 {
		if err := wholeNumbers(doc.Content[0], "", read); err != nil {
			return Profile{}, err
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil && !errors.Is(err, io.EOF) {
		return Profile{}, yamlError(err)
	}
	setIntegers(&p, read)
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return Profile{}, yamlError(err)
		}
		return Profile{}, errors.New("more than one YAML document: a profile file holds one")
	}
	if len(p.Garbage.Mix) == 0 {
		p.Garbage.Mix = nil // "mix: {}" is no mix named: the default mix
	}
	if err := p.Validate(); err != nil {
		return Profile{}, err
	}
	return p, nil
}

// ErrEmpty is ParseFile's refusal of a file that says nothing: the zero profile plays the
// defaults, which a user who wrote an empty file by mistake did not ask for.
var ErrEmpty = errors.New("empty profile: nothing says what to play (start from 'clickgen profiles show fill')")

// ParseFile is Parse for a user's file: it also refuses a file with no field at all
// (empty, comments only, or an empty document) with ErrEmpty.
func ParseFile(data []byte) (Profile, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err == nil && (len(doc.Content) == 0 || len(doc.Content[0].Content) == 0) {
		return Profile{}, ErrEmpty
	}
	return Parse(data)
}

// maxKeys bounds the keys of any one mapping of a profile. Decoding is quadratic in them
// (yaml.v3 compares every pair of keys for duplicates, and words an error for each): 40 000
// keys took 7 s, 200 000 over a minute, deaf to SIGTERM. No section has more than a few
// dozen fields (a mix has at most one key per garbage class).
const maxKeys = 256

// maxFileSize bounds a user's profile file: the embedded ones are under 3 KiB.
const maxFileSize = 1 << 20

// boundKeys refuses a mapping of more than maxKeys keys anywhere in the document n, naming
// it by its path ("the profile" at the top) and line, before it is decoded.
func boundKeys(n *yaml.Node, path string) error {
	if n.Kind == yaml.MappingNode && len(n.Content)/2 > maxKeys {
		what := path
		if what == "" {
			what = "the profile"
		}
		return fmt.Errorf("%s: %d keys (line %d), want at most %d: no profile has more than a few dozen fields", what, len(n.Content)/2, n.Line, maxKeys)
	}
	for i, c := range n.Content {
		p := path
		if n.Kind == yaml.MappingNode && i%2 == 1 {
			if p != "" {
				p += "."
			}
			p += n.Content[i-1].Value
		}
		if err := boundKeys(c, p); err != nil {
			return err
		}
	}
	return nil
}

// intFields are the profile fields that hold whole numbers, with their bounds (and so do
// the class weights under garbage.mix, bounded as play.day is): YAML would
// quietly truncate "days: 1.5" into them, read 010 as octal 8 and 0x10 as 16, and turn
// world.seed 18446744073709551616 into 9223372036854775808.
var intFields = map[string]struct{ min, max string }{
	"play.day":      {minInt, maxInt},
	"play.days":     {minInt, maxInt},
	"stop.messages": {minInt, maxInt},
	"expect.hits":   {minInt, maxInt},
	"expect.orders": {minInt, maxInt},
	"world.seed":    {"0", "18446744073709551615"},
}

const minInt, maxInt = "-9223372036854775808", "9223372036854775807"

// wholeNumbers checks the value of every integer field (see intFields) and puts it into
// read as decimal text (field.Decimal, as the command line reads integers): a YAML float is
// not a whole number (1e3 is not decimal), a base prefix or an underscore is not decimal, and a
// value outside the field's bounds is refused, each naming the field and the line.
func wholeNumbers(n *yaml.Node, path string, read map[string]string) error {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		name, v := n.Content[i].Value, n.Content[i+1]
		if path != "" {
			name = path + "." + name
		}
		b, ok := intFields[name]
		if strings.HasPrefix(name, "garbage.mix.") { // a class weight
			b, ok = intFields["play.day"], true
		}
		if ok && v.Kind == yaml.ScalarNode && (v.Tag == "!!int" || v.Tag == "!!float") {
			d, err := field.Decimal(v.Value)
			switch {
			case err != nil:
				return fmt.Errorf("%s: %q %w (line %d)", name, v.Value, err, v.Line)
			case decimalLess(d, b.min) || decimalLess(b.max, d):
				return fmt.Errorf("%s: %s is out of range: want %s to %s (line %d)", name, v.Value, b.min, b.max, v.Line)
			}
			read[name] = d
		}
		if err := wholeNumbers(v, name, read); err != nil {
			return err
		}
	}
	return nil
}

// decimalLess reports whether a < b for integers in field.Decimal's form.
func decimalLess(a, b string) bool {
	na, nb := strings.HasPrefix(a, "-"), strings.HasPrefix(b, "-")
	if na != nb {
		return na
	}
	a, b = strings.TrimPrefix(a, "-"), strings.TrimPrefix(b, "-")
	less := len(a) < len(b) || len(a) == len(b) && a < b
	if na {
		return b != a && !less
	}
	return less
}

// setIntegers sets p's integer fields to the decimal values wholeNumbers read, over what
// YAML decoded (octal for 010). The values are within the fields' bounds.
func setIntegers(p *Profile, read map[string]string) {
	for field, d := range read {
		if class, ok := strings.CutPrefix(field, "garbage.mix."); ok {
			if w, err := strconv.Atoi(d); err == nil && p.Garbage.Mix != nil {
				p.Garbage.Mix[class] = w
			}
			continue
		}
		if field == "world.seed" {
			p.World.Seed, _ = strconv.ParseUint(d, 10, 64)
			continue
		}
		n, _ := strconv.ParseInt(d, 10, 64)
		switch field {
		case "play.day":
			p.Play.Day = int(n)
		case "play.days":
			p.Play.Days = int(n)
		case "stop.messages":
			p.Stop.Messages = n
		case "expect.hits":
			p.Expect.Hits = &n
		case "expect.orders":
			p.Expect.Orders = &n
		}
	}
}

// yamlError makes the decoder's error read as ours: "yaml: unmarshal errors:\n  line 3: field
// rte not found in type profiles.Pacing" becomes "line 3: field rte not found in type
// profiles.Pacing".
func yamlError(err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return errors.New(strings.Join(te.Errors, "; "))
	}
	// A value parsed by its own type (a shape, a rate, a mix) fails without a line or a field;
	// each of those types fills one field only, so the error's mark names it.
	for _, f := range []struct {
		mark  error
		field string
	}{{pace.ErrShape, "pacing.rate"}, {pace.ErrRate, "pacing.max_rate"}, {world.ErrMix, "garbage.mix"}} {
		if errors.Is(err, f.mark) {
			return fmt.Errorf("%s: %w", f.field, err)
		}
	}
	return errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
}

// List returns the names of the embedded profiles in alphabetical order.
func List() []string {
	entries, _ := files.ReadDir(".")
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// Source returns the embedded profile file of name as written, comments included; a name
// that is not one is an *[UnknownError].
func Source(name string) ([]byte, error) {
	if !slices.Contains(List(), name) {
		return nil, &UnknownError{Name: name}
	}
	return files.ReadFile(path.Join(".", name+".yaml"))
}

// Load returns the embedded profile name, validated. Its Name is name.
func Load(name string) (Profile, error) {
	src, err := Source(name)
	if err != nil {
		return Profile{}, err
	}
	p, err := Parse(src)
	if err != nil {
		return Profile{}, fmt.Errorf("profile %s: %w", name, err)
	}
	if p.Name == "" {
		p.Name = name
	}
	return p, nil
}
