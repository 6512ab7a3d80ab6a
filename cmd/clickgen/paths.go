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
	uses = append(uses, fileio.Output(cpuProfileEnv, os.Getenv(cpuProfileEnv)))
	return usage(verb, fileio.Check(uses...))
}

// paths are the files the sink flags name: the TLS files read, the data file (stdout's file
// for "-": a report named by the file stdout was redirected to would replace the data) and
// the report written.
func (sf *sinkFlags) paths() []fileio.Use {
	data := fileio.Output("--file", sf.File)
	if sf.File == "-" {
		data = fileio.Output("--file - (stdout)", "/dev/stdout")
	}
	return []fileio.Use{
		fileio.Input("--tls-ca", sf.TLSCA), fileio.Input("--tls-cert", sf.TLSCert), fileio.Input("--tls-key", sf.TLSKey),
		data, fileio.Output("--report", sf.report),
	}
}
