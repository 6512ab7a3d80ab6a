package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/logs"
	"github.com/clickgen/clickgen/generator/session"
)

// verb is one subcommand of clickgen: what `clickgen help` says of it, its --help (usage
// lines, description, exit codes; the flags come from flagTable) and what it does, given its
// flags bound (bind) and its arguments to parse.
type verb struct {
	name    string
	set     verbSet
	summary string   // one line for `clickgen help`
	usage   []string // the usage lines of its --help, after "clickgen "
	about   string   // the description of its --help
	exits   []string // its exit codes, in its words
	run     func(ctx context.Context, io *stdio, b *binding, args []string) error
}

// stdio carries where a verb writes: data to out, progress and diagnostics to err.
type stdio struct {
	out io.Writer
	err io.Writer
}

// The exit codes every verb shares; a usage error is refused before the verb did anything,
// said in the verb's own terms.
const (
	exitUsage        = "2 for usage errors (nothing was sent)"
	exitUsageRead    = "2 for usage errors (nothing was read)"
	exitUsageWritten = "2 for usage errors (nothing was written)"
	exitInterrupted  = "130 when interrupted (Ctrl-C, SIGTERM or SIGHUP)"
)

// verbs lists the subcommands in the order `clickgen help` shows them (the order of the bits
// of verbSet).
var verbs = []verb{
	{name: "run", set: vRun, summary: "play a profile (fill, live, stress, garbage, smoke) and check what arrived",
		usage: []string{"run [PROFILE] [flags]"}, about: runHelp, run: runRun,
		exits: []string{"0 when the run and its check are clean", "1 when a message failed or the check found a difference", exitUsage, exitInterrupted}},
	{name: "profiles", set: vProfiles, summary: "list the run profiles, or show one as YAML",
		usage: []string{"profiles list", "profiles show (NAME | --profile-file FILE)"}, about: profilesHelp, run: runProfiles,
		exits: []string{"0 success", "1 when the output cannot be written", "2 for usage errors and a broken profile file (nothing was written)", exitInterrupted}},
	{name: "batch", set: vBatch, summary: "play model days into topic hits (or a file), back to back",
		usage: []string{"batch --day D [--days N] [--limit N] (--file PATH | --brokers HOSTS --topic T) [flags]"}, about: batchHelp, run: runBatch,
		exits: []string{"0 when every message was acknowledged", "1 when a delivery failed", exitUsage, exitInterrupted}},
	{name: "live", set: vLive, summary: "play one model day into topic hits paced by model time",
		usage: []string{"live --day D [--speed X] (--file PATH | --brokers HOSTS --topic T) [flags]"}, about: liveHelp, run: runLive,
		exits: []string{"0 when every message was acknowledged", "1 when a delivery failed", exitUsage, exitInterrupted}},
	{name: "snapshot", set: vSnapshot, summary: "send the daily order snapshots into topic orders (or a file)",
		usage: []string{"snapshot --day D [--days N] (--file PATH | --brokers HOSTS --topic orders) [flags]"}, about: snapshotHelp, run: runSnapshot,
		exits: []string{"0 when every message was acknowledged", "1 when a delivery failed", exitUsage, exitInterrupted}},
	{name: "inventory", set: vInventory, summary: "print what a storage must contain after batch + snapshot, as JSON",
		usage: []string{"inventory --day D [--days N] [world and garbage flags]", "inventory --merge FILE..."}, about: inventoryHelp, run: runInventory,
		exits: []string{"0 success", "1 when the output cannot be written", exitUsageWritten, exitInterrupted}},
	{name: "verify", set: vVerify, summary: "read hits and orders back and reconcile them with the inventory",
		usage: []string{"verify --brokers HOSTS --day D [--days N] [flags]", "verify --clickhouse URL --day D [--days N] [flags]"}, about: verifyHelp, run: runVerify,
		exits: []string{"0 when everything agrees", "1 when anything differs or the topics (the store) cannot be read (within --connect-timeout and --timeout)", exitUsageRead, exitInterrupted}},
	{name: "plot", set: vPlot, summary: "draw run reports as one self-contained HTML page of charts",
		usage: []string{"plot REPORT.json [REPORT2.json ...] [--label NAME ...] [--inventory FILE] > run.html"}, about: plotHelp, run: runPlot,
		exits: []string{"0 success", "1 failure", exitUsageWritten, exitInterrupted}},
	{name: "inject", set: vInject, summary: "send malformed messages of one garbage class on demand",
		usage: []string{"inject --class CLASS [--count N] (--file PATH | --brokers HOSTS --topic T) [flags]"}, about: injectHelp, run: runInject,
		exits: []string{"0 when every message was acknowledged", "1 when a delivery failed", exitUsage, exitInterrupted}},
	{name: "catalog", set: vCatalog, summary: "write the embedded product catalog (CSV)",
		usage: []string{"catalog [--file PATH]"}, about: catalogHelp, run: runCatalog,
		exits: []string{"0 success", "1 when the catalog cannot be written", exitUsageWritten}},
	{name: "broker", set: vBroker, summary: "run the embedded Kafka-compatible broker (hits/2, orders/1) until Ctrl-C",
		usage: []string{"broker [--listen 127.0.0.1:9092]"}, about: brokerHelp, run: runBroker,
		exits: []string{"0 when stopped by Ctrl-C, SIGTERM or SIGHUP", "1 when it cannot listen", "2 for usage errors (no broker was started)"}},
	{name: "schema", set: vSchema, summary: "print the wire contract: keys, a markdown description or a JSON Schema",
		usage: []string{"schema [--entity hits|orders] [--format markdown|keys|json-schema]"}, about: schemaHelp, run: runSchema,
		exits: []string{"0 success", "1 when the output cannot be written", exitUsageWritten}},
	{name: "version", set: vVersion, summary: "print clickgen's version and the world version",
		usage: []string{"version"}, about: versionHelp, run: runVersion,
		exits: []string{"0 success", "1 when the output cannot be written", exitUsageWritten}},
}

// usageError is a mistake in how clickgen was called: exit code 2, refused before anything
// was read, sent or written.
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

// helpWritten writes the help print produces to out in one write and returns errHelpShown,
// or the write's failure (exit 1): `clickgen --help >/dev/full` exited 0 with nothing
// written, a script's check of its output passing on nothing.
func helpWritten(out io.Writer, print func(io.Writer)) error {
	var b bytes.Buffer
	print(&b)
	if _, err := out.Write(b.Bytes()); err != nil {
		return fmt.Errorf("the help: %w", err)
	}
	return errHelpShown
}

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
	if session.OnlyCrossed(err) {
		return 3
	}
	return 1
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
	stderr = logs.Serialized(stderr) // a day's model tells its progress from its own goroutine
	sio := &stdio{out: stdout, err: stderr}
	// Waits the libraries cannot avoid say what they wait for once they pass a second.
	ctx = fileio.WithNotice(ctx, func(w fileio.Waiting) {
		fmt.Fprintf(stderr, "clickgen: waiting for %s (%s) to be written to its end, at most %v (Ctrl-C stops)\n", w.Path, w.Kind, w.Wait)
	})
	ctx = session.WithModelNotice(ctx, stderr)
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
		return helpWritten(stdout, printHelp)
	case "-v", "--version":
		name = "version"
	}
	names := make([]string, len(verbs))
	for i := range verbs {
		if v := &verbs[i]; v.name == name {
			b := bind(v, os.LookupEnv)
			return interruptedVerb(v.name, b.words(v.run(ctx, sio, b, args[1:])))
		}
		names[i] = verbs[i].name
	}
	return usagef("", "unknown verb %q%s", name, didYouMean(name, names, ""))
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
Exit codes: 0 success, 1 failure, 2 usage error (refused before anything was read, sent or
written), 3 a threshold crossed
(--threshold: the run completed, a figure did not hold), 130 interrupted (Ctrl-C, SIGTERM or
SIGHUP: what was acknowledged is in the summary; a second Ctrl-C half a second or more after
the first exits at once).
`)
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

// decimalValue is an integer flag's value read as decimal ([field.Decimal]); its type and
// default, and so the help, are the flag's own.
type decimalValue struct{ pflag.Value }

func (d decimalValue) Set(s string) error {
	n, err := field.Decimal(s)
	if err != nil {
		return err
	}
	return d.Value.Set(n)
}
