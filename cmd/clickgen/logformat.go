package main

import (
	"context"
	"io"
	"log/slog"

	"github.com/clickgen/clickgen/generator/logs"
)

// --log-format text|json is global: it may stand anywhere before a "--", and applies to every
// line clickgen writes on stderr (generator/logs). Text, the default, leaves the lines as they
// are; json writes one slog record per line, and adds the Kafka client's warnings and errors.

const logFormatUsage = "--log-format text|json: clickgen's stderr lines as they are (text, the default) or as JSON records, one per line"

// cli is the whole command line: the global flags, the verb, the exit code. main and the
// tests of global flags call it.
func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	args, stderr, err := logSetup(args, stderr)
	if err == nil {
		err = run(ctx, args, stdout, stderr)
	}
	code := exitCode(err, stderr)
	if l := logs.Of(stderr); l != nil {
		l.Flush()
	}
	return code
}

// logSetup takes --log-format out of args (logs.CutFlag) and returns the rest and where
// stderr lines go.
func logSetup(args []string, stderr io.Writer) ([]string, io.Writer, error) {
	rest, f, err := logs.CutFlag(args)
	if err != nil {
		return args, stderr, usage("", err)
	}
	return rest, logs.Writer(stderr, f), nil
}

// errorLine writes the line of a failed run: a record at level ERROR in JSON.
func errorLine(stderr io.Writer, msg string) bool {
	if l := logs.Of(stderr); l != nil {
		l.Log(slog.LevelError, msg)
		return true
	}
	return false
}
