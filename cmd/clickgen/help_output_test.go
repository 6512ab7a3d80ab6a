package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestHelpToAFullDevice is issue 35's P15: `clickgen --help >/dev/full` exited 0 with nothing
// written. The help is written in one write whose failure is the command's: exit 1, said on
// stderr.
func TestHelpToAFullDevice(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"-h"}, {"help", "batch"}, {"batch", "--help"}, {"verify", "-h"}} {
		var errb bytes.Buffer
		err := run(context.Background(), args, brokenPipe{}, &errb)
		if code := exitCode(err, &errb); code != 1 || !strings.Contains(errb.String(), "the help: ") {
			t.Errorf("clickgen %q into a full device: exit %d, %q; want 1 saying the help was not written", args, code, errb.String())
		}
		var out bytes.Buffer
		errb.Reset()
		if code := exitCode(run(context.Background(), args, &out, &errb), &errb); code != 0 || out.Len() == 0 {
			t.Errorf("clickgen %q: exit %d, %d bytes of help", args, code, out.Len())
		}
	}
}
