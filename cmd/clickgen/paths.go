package main

import (
	"os"

	"github.com/clickgen/clickgen/generator/fileio"
)

// cpuProfileEnv names the file main writes a CPU profile of the whole process to
// (cpuprofile.Start): an output of every run.
const cpuProfileEnv = "CLICKGEN_CPUPROFILE"

// checkPaths is the one check of the files a run reads and writes, before it reads its data or
// sends anything: an output that is a directory, one of the run's inputs or another of its
// outputs, wherever its path leads (symbolic links, dangling ones included, /proc aliases,
// directories reached through links, hard links), is a usage error of verb naming both
// (fileio.Check). uses name each path by the flag or variable that carried it; the CPU
// profile (CLICKGEN_CPUPROFILE) is added as an output of every run. (--catalog x --file x
// overwrote the catalog; --file d1.jsonl --report dl, dl a dangling link to d1.jsonl, wrote
// the report over 500 acknowledged messages and exited 0.)
func checkPaths(verb string, uses ...fileio.Use) error {
	return usage(verb, fileio.Check(withProfile(uses)...))
}

// withProfile is uses with the CPU profile (CLICKGEN_CPUPROFILE), an output of every run: the
// files a library checks for a verb (session.Config.Files) are these.
func withProfile(uses []fileio.Use) []fileio.Use {
	return append(uses, fileio.Output(cpuProfileEnv, os.Getenv(cpuProfileEnv)))
}
