// Command clickgen is a synthetic clickstream load generator: it plays a deterministic online
// shop into Kafka topics `hits` and `orders` (or files) and says exactly what a storage must
// hold afterwards. Run `clickgen help` for the verbs.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/cpuprofile"
)

// default.pgo in this directory is the CPU profile the Go toolchain uses for profile-guided
// optimisation of this command (go build picks it up by itself). It is a profile of whole
// runs of the main job (pgo.sh, with CLICKGEN_CPUPROFILE set); refresh it after changing the
// hot paths with
//
//	go generate ./cmd/clickgen
//
//go:generate sh pgo.sh

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	// Notify installs a handler even when SIGINT was inherited as ignored (nohup, scripts);
	// the handler stays installed, so the second signal is seen too. (Restoring the
	// default disposition after the first signal restored "ignored" there, and a second
	// Ctrl-C did nothing.)
	// SIGHUP (the terminal or the ssh session closed, a supervisor's stop) ends a verb as
	// SIGTERM does: its default disposition killed the process with 129, without the flush,
	// the summary or the report.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go onSignals(sigs, cancel, time.Now, func() {
		fmt.Fprintln(os.Stderr, "clickgen: second signal: exiting at once, without flushing or a report")
		os.Exit(130)
	})
	// A closed stdout (batch --file - | head -1) is a write error like any other: EPIPE, exit
	// 1, the summary on stderr and the report written. Without a handler, Go dies of SIGPIPE
	// on a write to fd 1 or 2 (exit 141, no summary, no report); with one, every write to a
	// broken pipe returns EPIPE (os/signal, "SIGPIPE").
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	stopProfile, err := cpuprofile.Start(os.Getenv(cpuProfileEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "clickgen: "+cpuProfileEnv+":", err)
	}
	code := cli(ctx, os.Args[1:], os.Stdout, os.Stderr)
	// A refused run (exit 2) keeps no profile: its path may be what it was refused for
	// (checkPaths), an input the profile would replace.
	if err := stopProfile(code != 2); err != nil {
		fmt.Fprintln(os.Stderr, "clickgen: "+cpuProfileEnv+":", err)
	}
	signal.Stop(sigs)
	cancel()
	os.Exit(code)
}

// signalGap is how long after the first signal a second one must come to be a second
// request. GNU timeout signals the child and then its process group, and a terminal's Ctrl-C
// reaches every process of the foreground group: one request to stop can arrive as two
// signals a moment apart, and taking the second for "exit at once" lost the flush and the
// report (issue 24). A person pressing Ctrl-C twice is slower than this.
const signalGap = 500 * time.Millisecond

// onSignals handles the signals on sigs: the first calls stop (stop sending, flush, report);
// one that arrives signalGap or more after it calls exitNow; those in between are the same
// request as the first and are dropped.
func onSignals(sigs <-chan os.Signal, stop func(), now func() time.Time, exitNow func()) {
	<-sigs
	first := now()
	stop()
	for range sigs {
		if now().Sub(first) >= signalGap {
			exitNow()
			return
		}
	}
}
