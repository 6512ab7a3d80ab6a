package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/profiles"
)

// The command line's one flag binder. Every flag of every verb is declared once, as a row of
// flagTable (flagtable.go): its name, the verbs that take it, the value it fills (a
// pflag.Value over the library's own type, or a Go value), its help, its default as a user
// reads it, the environment variables it falls back to and the library field it carries.
// A verb binds the rows it takes (bind) and parses its arguments through them (parse), which
// also reads the fallbacks, refuses a flag the verb does not take and one two flags that
// exclude each other, and asks for the required ones. Then, for every verb alike:
//
//   - a flag given, or set by its variable, is an override of the verb's profile
//     (binding.overrides); any other leaves the profile's value, so a value means one thing
//     on every verb;
//   - a library's refusal names the fields it is about (package field), and the same rows
//     name them as the flags that carried them (binding.names, binding.refuse): --seed for
//     world.seed, --limit for stop.messages on batch, --messages on run.

// verbSet is a set of verbs, one bit each.
type verbSet uint32

// The verbs, as sets of one.
const (
	vRun verbSet = 1 << iota
	vProfiles
	vBatch
	vLive
	vSnapshot
	vInventory
	vVerify
	vPlot
	vInject
	vCatalog
	vBroker
	vSchema
	vVersion
)

// flagSpec is one flag, declared once for every verb that takes it. See flagTable.
type flagSpec struct {
	name  string  // the long name, without "--"; "" for a value only an environment variable sets (a secret)
	verbs verbSet // the verbs that take it
	// value is what the flag fills in a verb's values: a pflag.Value, or a pointer to a
	// string, bool, int, int16, int32, int64, uint64, float64, time.Duration or []string.
	value func(v *values) any
	help  string    // what it does; a back-quoted word names its value in --help
	alt   []altHelp // another help on some verbs
	// field is the library field the flag fills, by which a library's refusal names it
	// (world.seed, Linger); "" for a value of the command itself.
	field string
	env   []string // the environment variables it falls back to, first one set wins
	envOn verbSet  // the verbs that read env; 0 is every verb that takes the flag
	// def is the default as a user reads it in --help when the value's own text does not say
	// it ("-" for none); "" shows the value's.
	def string
	// group is the --help group: "" (Flags), "Kafka" or "ClickHouse"; on sharedOn's verbs a
	// grouped flag applies to every group and is listed with the others.
	group    string
	sharedOn verbSet
	// excludes is a flag this one cannot be given with. The flags that choose a kind of sink
	// (their field is a sink.Kind's Field: --file, --brokers) exclude each other without a
	// word here, the kinds' table says so (exclusions), and their variables give way to the
	// other kind's flag silently (a flag beats the other sink's variable) instead of being
	// refused with it.
	excludes string
	required verbSet // the verbs on which it must be given (or its variable set)
	why      string  // said when it is required and missing
	// override makes the flag's value a change of the verb's profile; nil for a flag that is
	// not a profile's field.
	override func(o *profiles.Overrides, v *values)
	errName  string // how refusals name it when it has no flag (an environment variable)
}

// altHelp is a flag's help on some verbs.
type altHelp struct {
	verbs verbSet
	help  string
}

// helpOn is the flag's help on verb.
func (r *flagSpec) helpOn(verb verbSet) string {
	for _, a := range r.alt {
		if a.verbs&verb != 0 {
			return a.help
		}
	}
	return r.help
}

// envFor are the variables the flag falls back to on verb.
func (r *flagSpec) envFor(verb verbSet) []string {
	if r.envOn != 0 && r.envOn&verb == 0 {
		return nil
	}
	return r.env
}

// groupOn is the flag's --help group on verb.
func (r *flagSpec) groupOn(verb verbSet) string {
	if r.sharedOn&verb != 0 {
		return ""
	}
	return r.group
}

// binding is one verb's flags, bound: its flag set, the values they fill and the
// environment they fall back to.
type binding struct {
	verb    *verb
	fs      *pflag.FlagSet
	v       *values
	rows    []*flagSpec // the rows the verb takes, in the table's order
	env     envLookup
	fromEnv map[string]string // flag name → the variable that set it
}

// bind binds the flags verb takes to fresh values, with env as the environment.
func bind(v *verb, env envLookup) *binding {
	b := &binding{verb: v, v: newValues(v.set), env: env, fromEnv: map[string]string{}}
	b.fs = newFlagSet(v.name)
	for i := range flagTable {
		r := &flagTable[i]
		if r.verbs&v.set == 0 {
			continue
		}
		b.rows = append(b.rows, r)
		if r.name != "" {
			register(b.fs, r.name, r.value(b.v), r.helpOn(v.set))
		}
	}
	return b
}

// register adds flag name filling p to fs.
func register(fs *pflag.FlagSet, name string, p any, usage string) {
	switch p := p.(type) {
	case pflag.Value:
		fs.Var(p, name, usage)
	case *string:
		fs.StringVar(p, name, *p, usage)
	case *bool:
		fs.BoolVar(p, name, *p, usage)
	case *int:
		fs.IntVar(p, name, *p, usage)
	case *int16:
		fs.Int16Var(p, name, *p, usage)
	case *int32:
		fs.Int32Var(p, name, *p, usage)
	case *int64:
		fs.Int64Var(p, name, *p, usage)
	case *uint64:
		fs.Uint64Var(p, name, *p, usage)
	case *float64:
		fs.Float64Var(p, name, *p, usage)
	case *time.Duration:
		fs.DurationVar(p, name, *p, usage)
	case *[]string:
		fs.StringArrayVar(p, name, *p, usage)
	default:
		panic(fmt.Sprintf("flag --%s: no flag for a %T", name, p)) // a row of flagTable: caught by the tests
	}
}

// newFlagSet returns an empty flag set for verb with --help.
func newFlagSet(verb string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(verb, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SetInterspersed(true)
	fs.BoolP("help", "h", false, "show this help")
	return fs
}

// row is the row of flag name on this verb, nil if the verb does not take it.
func (b *binding) row(name string) *flagSpec {
	for _, r := range b.rows {
		if r.name == name {
			return r
		}
	}
	return nil
}

// set reports whether flag name was given, or set by its variable.
func (b *binding) set(name string) bool {
	return b.fs.Lookup(name) != nil && b.fs.Changed(name)
}

// source is how flag name was set: "--name", or "env VAR" when its variable set it.
func (b *binding) source(name string) string {
	if e, ok := b.fromEnv[name]; ok {
		return "env " + e
	}
	return "--" + name
}

// parse parses args as the verb's flags (positional arguments are a usage error unless
// withArgs), then reads the environment fallbacks and checks that no two flags that exclude
// each other are given and that the required ones are. --help prints the verb's help to out
// and returns errHelpShown. Every mistake is a usage error.
func (b *binding) parse(args []string, out io.Writer, withArgs bool) error {
	if err := b.parseArgs(args, out, withArgs); err != nil {
		return err
	}
	for _, check := range []func() error{b.exclusive, b.fallBack, b.required} {
		if err := check(); err != nil {
			return b.usage(err)
		}
	}
	return nil
}

// parseArgs is parse of the arguments alone, without the environment or the required flags.
func (b *binding) parseArgs(args []string, out io.Writer, withArgs bool) error {
	decimalInts(b.fs)
	err := b.fs.Parse(args)
	if help, _ := b.fs.GetBool("help"); errors.Is(err, pflag.ErrHelp) || (err == nil && help) {
		return helpWritten(out, func(w io.Writer) { printVerbHelp(b, w) })
	}
	if err != nil {
		return b.usage(b.parseError(err))
	}
	if !withArgs && b.fs.NArg() > 0 {
		return usagef(b.verb.name, "unexpected argument %q", b.fs.Arg(0))
	}
	return nil
}

// exclusions are the flags of this verb r cannot be given with: its excludes, or, for a flag
// that chooses a kind of sink, those that choose another (yields: r's variable gives way to
// them).
func (b *binding) exclusions(r *flagSpec) (others []string, yields bool) {
	if r.excludes != "" {
		return []string{r.excludes}, false
	}
	chooser := func(f string) bool {
		return slices.ContainsFunc(sink.Kinds(), func(k *sink.Kind) bool { return k.Field == f })
	}
	if r.name == "" || !chooser(r.field) {
		return nil, false
	}
	for _, o := range b.rows {
		if o.name != "" && o.field != r.field && chooser(o.field) {
			others = append(others, o.name)
		}
	}
	return others, true
}

// exclusive refuses two flags given that exclude each other.
func (b *binding) exclusive() error {
	for _, r := range b.rows {
		others, _ := b.exclusions(r)
		for _, o := range others {
			if b.set(r.name) && b.set(o) {
				return fmt.Errorf("both --%s and --%s given: choose one", r.name, o)
			}
		}
	}
	return nil
}

// fallBack sets every flag the command line did not set from the first of its variables
// that is set to something (an empty value counts as unset), in the table's order. A value
// that does not parse is refused naming the variable. A variable whose flag excludes one
// already set is refused with it, or gives way to it when the flag yields.
func (b *binding) fallBack() error {
	for _, r := range b.rows {
		// A variable of a flag that yields gives way to a flag given that excludes it (run's
		// --embedded excludes --brokers).
		_, yields := b.exclusions(r)
		if r.name != "" && b.set(r.name) || yields && slices.ContainsFunc(b.rows, func(o *flagSpec) bool { return o.excludes == r.name && b.set(o.name) }) {
			continue
		}
		for _, name := range r.envFor(b.verb.set) {
			v, ok := b.env(name)
			if !ok || v == "" {
				continue
			}
			if others, yields := b.exclusions(r); len(others) > 0 {
				if i := slices.IndexFunc(others, b.set); i >= 0 {
					if yields {
						break
					}
					return fmt.Errorf("both env %s=%q and %s %s given: choose one", name, shownValue(r.name, v), b.source(others[i]),
						shownValue(others[i], b.fs.Lookup(others[i]).Value.String()))
				}
			}
			if err := b.setFrom(r, name, v); err != nil {
				return err
			}
			break
		}
	}
	return nil
}

// setFrom sets r's value from variable name's value v.
func (b *binding) setFrom(r *flagSpec, name, v string) error {
	if r.name == "" { // a value without a flag: a secret, taken as it is
		*r.value(b.v).(*string) = v
		return nil
	}
	if err := b.fs.Set(r.name, v); err != nil {
		return fmt.Errorf("environment variable %s=%q: %v", name, shownValue(r.name, v), b.parseError(err))
	}
	b.fromEnv[r.name] = name
	return nil
}

// required refuses a required flag that is neither given nor set by its variable.
func (b *binding) required() error {
	for _, r := range b.rows {
		if r.required&b.verb.set != 0 && !b.set(r.name) {
			return fmt.Errorf("--%s is required%s", r.name, r.why)
		}
	}
	return nil
}

// overrides are the flags given, or set by their variables, as changes to the verb's
// profile: any other flag leaves the profile's value as it is.
func (b *binding) overrides() profiles.Overrides {
	var o profiles.Overrides
	for _, r := range b.rows {
		if r.override != nil && b.set(r.name) {
			r.override(&o, b.v)
		}
	}
	return o
}

// names names a library's field as the flag that carries it on this verb (field.Names). On
// a verb that plays a user's profile (run), a value shown that no flag gave is the
// profile's, and keeps its field's name (world.catalog "x"); a field only mentioned is named
// by the flag that would set it, on this verb or else on another (a warning that says which
// flag verify then needs), or by the command's words for it (fieldWords).
func (b *binding) names(key string, value bool) string {
	for _, r := range b.rows {
		switch {
		case r.field != key:
		case r.name == "":
			return r.errName
		case value && b.verb.set&vRun != 0 && r.override != nil && !b.set(r.name):
			return ""
		default:
			return "--" + r.name
		}
	}
	if w, ok := fieldWords[key]; ok || value {
		return w
	}
	for i := range flagTable {
		if r := &flagTable[i]; r.field == key && r.name != "" {
			return "--" + r.name
		}
	}
	return ""
}

// fieldWords are the command's words for fields no one flag carries.
var fieldWords = map[string]string{"Tables": "a table flag"}

// words is err, a library's error, in the flags' words: a refusal (field.Refusal) is a usage
// error of the verb, any other error keeps what it is and reads with the flags' names; nil
// and usage errors stay as they are.
func (b *binding) words(err error) error {
	if ue := (*usageError)(nil); err == nil || errors.As(err, &ue) {
		return err
	}
	if field.IsRefusal(err) {
		return b.refuse(err)
	}
	if text, _ := b.say(err); text != err.Error() {
		return &reworded{text, err}
	}
	return err
}

// say is err in the flags' words (names), and whether it names a value a flag gave.
func (b *binding) say(err error) (string, bool) {
	named := false
	text := field.Say(err, func(key string, value bool) string {
		n := b.names(key, value)
		named = named || strings.HasPrefix(n, "--") && (value || b.set(strings.TrimPrefix(n, "--")))
		return n
	})
	return text, named
}

// refuse is err, a library's refusal (or any error), as a usage error of the verb in the
// flags' words; errors.Is and errors.As still find what err wraps. nil stays nil.
func (b *binding) refuse(err error) error {
	if err == nil {
		return nil
	}
	if ue := (*usageError)(nil); errors.As(err, &ue) {
		return err
	}
	text, _ := b.say(err)
	return b.usage(&reworded{text + suggestFor(err), err})
}

// usage makes err a usage error of the verb.
func (b *binding) usage(err error) error { return usage(b.verb.name, err) }

// parseError is pflag's refusal of the arguments, with what would do: a flag another verb
// takes says so, an unknown one offers the verb's flags spelled like it.
func (b *binding) parseError(err error) error {
	if ive := (*pflag.InvalidValueError)(nil); errors.As(err, &ive) {
		// pflag's text repeats the value whole: a broker address's password, a host of
		// 100 000 characters. It is shown as a report shows it (shownValue).
		name := ive.GetFlag().Name
		return &reworded{fmt.Sprintf("invalid argument %q for \"--%s\" flag: %v%s", shownValue(name, ive.GetValue()), name, ive.Unwrap(), suggestFor(err)), err}
	}
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		if s := suggestFor(err); s != "" {
			return &reworded{err.Error() + s, err}
		}
		return err
	}
	for i := range flagTable {
		if r := &flagTable[i]; r.name == name {
			return fmt.Errorf("--%s does not apply to %s: it is a flag of %s", name, b.verb.name, verbList(r.verbs))
		}
	}
	var known []string
	b.fs.VisitAll(func(f *pflag.Flag) { known = append(known, f.Name) })
	if s := didYouMean(name, known, "--"); s != "" {
		return &reworded{err.Error() + s, err}
	}
	return err
}

// verbNames are the verbs' names, one per bit of verbSet.
var verbNames = [...]string{"run", "profiles", "batch", "live", "snapshot", "inventory", "verify", "plot", "inject", "catalog", "broker", "schema", "version"}

// verbList names the verbs of set, in the order of clickgen help.
func verbList(set verbSet) string {
	var names []string
	for i, n := range verbNames {
		if set&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return andList(names)
}

func prefixed(p string, words []string) []string {
	out := slices.Clone(words)
	for i := range out {
		out[i] = p + out[i]
	}
	return out
}

// orList joins words as "a, b or c"; andList as "a, b and c".
func orList(words []string) string  { return joinLast(words, " or ") }
func andList(words []string) string { return joinLast(words, " and ") }

func joinLast(words []string, last string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + last + words[len(words)-1]
}

// reworded is err said in the command's words: errors.Is and errors.As still find err.
type reworded struct {
	text string
	err  error
}

func (r *reworded) Error() string { return r.text }
func (r *reworded) Unwrap() error { return r.err }
