package main

import (
	"context"
	"io"

	"github.com/clickgen/clickgen/generator/logs"
)

// --log-format text|json is global: it may stand anywhere before a "--", and applies to every
// line clickgen writes on stderr (generator/logs). Text, the default, leaves the lines as they
// are; json writes one slog record per line, and adds the Kafka client's warnings and errors.

// cli is the whole command line: the global flags, the verb, the exit code. main and the
// tests of global flags call it.
func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	rest, format, err := logs.CutFlag(args)
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
