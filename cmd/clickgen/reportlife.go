package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/reportfile"
	"github.com/clickgen/clickgen/generator/fileio"
	reportdoc "github.com/clickgen/clickgen/generator/measure/report"
)

// A verb's --report file is written once, at the verb's very end, whatever its outcome
// (issue 35: a failing run or verify left the previous "ok": true report in place): the
// document the verb has by then (a run's report, verify's result; none when it failed before
// it had one) with report.Meta's keys — ok, the error, when it was written, the verb and its
// settings. It is written only once the verb's files passed checkPaths (checkFiles arms it):
// before that the path may be an input of the run or another of its outputs, and a usage
// error touches no file.

// checkFiles is checkPaths for the binding's verb; once it passes, the verb's report (if any)
// is armed: written at the verb's end, whatever the outcome.
func (b *binding) checkFiles(uses ...fileio.Use) error {
	if err := checkPaths(b.verb.name, uses...); err != nil {
		return err
	}
	b.v.sink.reportArmed = b.v.sink.report != ""
	return nil
}

// keepReport keeps doc as the document of the verb's report.
func (sf *sinkFlags) keepReport(doc any) { sf.reportDoc = doc }

// finishReport writes the verb's report, when armed, for the verb's outcome err (which it
// returns, joined with the report's own failure, naming --report). A usage error (exit 2,
// such as a warm-up refused once the plan is known) writes none: nothing was done.
func (b *binding) finishReport(err error) error {
	sf := &b.v.sink
	var ue *usageError
	if !sf.reportArmed || errors.As(err, &ue) && !fileio.ReadFailed(err) { // exit 2: nothing was done
		return err
	}
	m := reportdoc.Meta{OK: err == nil, WrittenAt: time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Command: b.verb.name, Settings: b.settings()}
	if err != nil {
		m.Error = err.Error()
	}
	if werr := reportfile.Write(sf.report, sf.reportDoc, m); werr != nil {
		return errors.Join(err, fmt.Errorf("--report: %w", werr))
	}
	return err
}

// settings are the verb's flags by name with their values as text (report.Meta.Settings):
// set, from the environment or by default; values are shown as shownValue shows them.
func (b *binding) settings() map[string]string {
	m := map[string]string{}
	b.fs.VisitAll(func(f *pflag.Flag) {
		if f.Name != "help" {
			m[f.Name] = shownValue(f.Name, f.Value.String())
		}
	})
	return m
}
