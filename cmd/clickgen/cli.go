package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/logs"
	"github.com/clickgen/clickgen/generator/measure"
	"github.com/clickgen/clickgen/generator/world"
	"github.com/clickgen/clickgen/profiles"
)

// verb is one subcommand of clickgen.
type verb struct {
	name    string
	summary string // one line for `clickgen help`
	run     func(ctx context.Context, io *stdio, args []string) error
}

// stdio carries where a verb writes: data to out, progress and diagnostics to err.
type stdio struct {
	out io.Writer
	err io.Writer
}

// verbs lists the subcommands in the order `clickgen help` shows them.
var verbs = []verb{
	{"run", "play a profile (fill, live, stress, garbage, smoke) and check what arrived", runRun},
	{"profiles", "list the run profiles, or show one as YAML", runProfiles},
	{"batch", "play model days into topic hits (or a file), back to back", runBatch},
	{"live", "play one model day into topic hits paced by model time", runLive},
	{"snapshot", "send the daily order snapshots into topic orders (or a file)", runSnapshot},
	{"inventory", "print what a storage must contain after batch + snapshot, as JSON", runInventory},
	{"verify", "read hits and orders back and reconcile them with the inventory", runVerify},
	{"plot", "draw run reports as one self-contained HTML page of charts", runPlot},
	{"inject", "send malformed messages of one garbage class on demand", runInject},
	{"catalog", "write the embedded product catalog (CSV)", runCatalog},
	{"broker", "run the embedded Kafka-compatible broker (hits/2, orders/1) until Ctrl-C", runBroker},
	{"schema", "print the wire contract: keys, a markdown description or a JSON Schema", runSchema},
	{"version", "print clickgen's version and the world version", runVersion},
}

// usageError is a mistake in how clickgen was called: exit code 2, nothing was sent.
type usageError struct {
	verb string
	err  error
}

func (e *usageError) Error() string {
	if e.verb == "" {
		return e.err.Error()
	}
	return e.verb + ": " + e.err.Error()
}

func (e *usageError) Unwrap() error { return e.err }

func usagef(verb, format string, args ...any) error {
	return &usageError{verb: verb, err: fmt.Errorf(format, args...)}
}

// usage makes err, a value's or a flag's own verdict, a usage error of verb; nil and usage
// errors stay as they are.
func usage(verb string, err error) error {
	if ue := (*usageError)(nil); err == nil || errors.As(err, &ue) {
		return err
	}
	return &usageError{verb: verb, err: err}
}

// errHelpShown means --help was asked for and printed: exit code 0.
var errHelpShown = errors.New("help shown")

// exitCode maps run's error to the process exit code and prints the error: 0 success,
// 2 usage error, 1 any other failure (cmd/go's convention), 3 a completed run whose only
// failure is a crossed threshold (--threshold), 130 interrupted. An input that cannot be read
// is a usage error where the verb says so (it does not exist, it is not what the verb reads),
// but a read the system failed (an I/O error: fileio.ReadFailed) is a failure, whichever verb
// and flag read it.
func exitCode(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, errHelpShown) {
		return 0
	}
	if l := logs.Of(stderr); l != nil { // in JSON, a record at level ERROR
		l.Log(slog.LevelError, err.Error())
	} else {
		fmt.Fprintf(stderr, "clickgen: %v\n", err)
	}
	if errors.Is(err, context.Canceled) {
		return 130 // interrupted, as shells report SIGINT
	}
	var ue *usageError
	if errors.As(err, &ue) && !fileio.ReadFailed(err) {
		if ue.verb != "" {
			fmt.Fprintf(stderr, "Run 'clickgen %s --help' for usage.\n", ue.verb)
		} else {
			fmt.Fprintln(stderr, "Run 'clickgen help' for usage.")
		}
		return 2
	}
	if onlyCrossed(err) {
		return 3
	}
	return 1
}

// onlyCrossed says whether err is made only of crossed thresholds (measure.CrossedError),
// joined or wrapped: any other failure joined to it (a group that did not drain) is exit 1.
func onlyCrossed(err error) bool {
	switch e := err.(type) {
	case *measure.CrossedError:
		return true
	case interface{ Unwrap() []error }:
		errs := e.Unwrap()
		for _, x := range errs {
			if !onlyCrossed(x) {
				return false
			}
		}
		return len(errs) > 0
	}
	if u := errors.Unwrap(err); u != nil {
		return onlyCrossed(u)
	}
	return false
}

// --log-format text|json is global: it may stand anywhere before a "--", and applies to every
// line clickgen writes on stderr (generator/logs). Text, the default, leaves the lines as they
// are; json writes one slog record per line, and adds the Kafka client's warnings and errors.

// cli is the whole command line: the global flags, the verb, the exit code. main and the
// tests of global flags call it.
func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	rest, format, err := cutLogFormat(args)
	if err != nil {
		return exitCode(usage("", err), stderr)
	}
	stderr = logs.Writer(stderr, format)
	code := exitCode(run(ctx, rest, stdout, stderr), stderr)
	if l := logs.Of(stderr); l != nil {
		l.Flush()
	}
	return code
}

// run is clickgen without the process: tests call it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	stderr = serialized(stderr)
	sio := &stdio{out: stdout, err: stderr}
	// Waits the libraries cannot avoid say what they wait for once they pass a second.
	ctx = fileio.WithNotice(ctx, func(w fileio.Waiting) {
		fmt.Fprintf(stderr, "clickgen: waiting for %s (%s) to be written to its end, at most %v (Ctrl-C stops)\n", w.Path, w.Kind, w.Wait)
	})
	ctx = world.WithModelProgress(ctx, newModelNotice(stderr, time.Now).heard)
	if len(args) == 0 {
		printHelp(stderr)
		return usagef("", "no verb given")
	}
	name := args[0]
	switch name {
	case "help", "-h", "--help":
		if len(args) > 1 && !slices.Contains([]string{"help", "-h", "--help"}, args[1]) {
			return run(ctx, []string{args[1], "--help"}, stdout, stderr)
		}
		printHelp(stdout)
		return nil
	case "-v", "--version":
		name = "version"
	}
	for _, v := range verbs {
		if v.name == name {
			return interruptedVerb(v.name, v.run(ctx, sio, args[1:]))
		}
	}
	return usagef("", "unknown verb %q", name)
}

func printHelp(w io.Writer) {
	fmt.Fprint(w, `clickgen plays a deterministic online shop ("Дом и уют") into Kafka topics hits and orders,
and says exactly what a storage must hold afterwards.

Usage:
  clickgen VERB [flags]

Verbs:
`)
	for _, v := range verbs {
		fmt.Fprintf(w, "  %-10s %s\n", v.name, v.summary)
	}
	fmt.Fprint(w, `
Run 'clickgen VERB --help' for the flags of a verb.
Exit codes: 0 success, 1 failure, 2 usage error (nothing was sent), 3 a threshold crossed
(--threshold: the run completed, a figure did not hold), 130 interrupted (Ctrl-C or SIGTERM:
what was acknowledged is in the summary; a second Ctrl-C half a second or more after the
first exits at once).
`)
}

// newFlags returns a flag set for verb whose --help prints usage and description.
func newFlags(verb, usage, description string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(verb, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SetInterspersed(true)
	fs.BoolP("help", "h", false, "show this help")
	fs.SetAnnotation("help", "usage", []string{usage})
	fs.SetAnnotation("help", "description", []string{description})
	return fs
}

// parseFlags parses args; on --help it prints the verb's help to out and returns
// errHelpShown. Positional arguments are a usage error unless withArgs.
func parseFlags(fs *pflag.FlagSet, args []string, out io.Writer, withArgs bool) error {
	decimalInts(fs)
	err := fs.Parse(args)
	if help, _ := fs.GetBool("help"); errors.Is(err, pflag.ErrHelp) || (err == nil && help) {
		printVerbHelp(fs, out)
		return errHelpShown
	}
	if err != nil {
		return &usageError{verb: fs.Name(), err: err}
	}
	if !withArgs && fs.NArg() > 0 {
		return usagef(fs.Name(), "unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// decimalInts makes every integer flag of fs read its value (and its environment fallback,
// which goes through the same Set) as decimal: pflag's integer flags parse with base 0, so
// --day 010 played day 8, --day 0x10 day 16 and --seed 1_0 seed 10. This is the one place
// the command line's integers are read.
func decimalInts(fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		if _, done := f.Value.(decimalValue); done {
			return
		}
		switch f.Value.Type() {
		case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
			f.Value = decimalValue{f.Value}
		}
	})
}

// decimalValue is an integer flag's value read as decimal ([profiles.Decimal]); its type and
// default, and so the help, are the flag's own.
type decimalValue struct{ pflag.Value }

func (d decimalValue) Set(s string) error {
	n, err := profiles.Decimal(s)
	if err != nil {
		return err
	}
	return d.Value.Set(n)
}

func printVerbHelp(fs *pflag.FlagSet, out io.Writer) {
	h := fs.Lookup("help")
	fmt.Fprintf(out, "Usage:\n  clickgen %s\n\n", h.Annotations["usage"][0])
	if d := h.Annotations["description"][0]; d != "" {
		fmt.Fprintf(out, "%s\n\n", strings.TrimSpace(d))
	}
	// pflag spells optional bool values as "[=true|false]"; a plain switch reads better.
	fmt.Fprintf(out, "Flags:\n%s", strings.ReplaceAll(fs.FlagUsagesWrapped(100), "[=true|false]", "              "))
}

// serialized returns w if it is safe for concurrent use (a file, such as os.Stderr, or the
// JSON lines of --log-format json), else w behind a mutex: a day's model tells its progress
// from the goroutine building it (world.WithModelProgress) while the console prints its own
// lines, and a caller of run (a test) may give a bytes.Buffer. A file stays a file, so the
// console still tells a terminal.
func serialized(w io.Writer) io.Writer {
	switch w.(type) {
	case *os.File, *logs.Lines, *lockedWriter:
		return w
	}
	return &lockedWriter{w: w}
}

// lockedWriter is a writer whose writes are serialized.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
