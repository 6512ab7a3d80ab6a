// Package cpuprofile profiles the whole clickgen process for the Go toolchain's
// profile-guided optimisation (default.pgo is made of such profiles of whole runs).
package cpuprofile

import (
	"runtime/pprof"

	"github.com/clickgen/clickgen/generator/fileio"
)

// Start writes a CPU profile of the whole process (pprof's format) to the file at path
// until stop is called; clickgen's default.pgo, the profile the Go toolchain optimises the
// command with, is made of such profiles of whole runs. An empty path profiles nothing. The
// profile is written as every replaced file is (fileio.NewReplacement: through symbolic
// links, into a temporary file renamed over the target by stop(true)), so the file at path is
// untouched while the process runs and stays as it was after stop(false): a run refused
// because its profile would overwrite one of its inputs leaves that input whole. When the
// file cannot be created (a directory, a device, a missing directory) or the profiler is
// already running it returns the error, and a stop that does nothing, so the caller can go
// on without a profile.
func Start(path string) (stop func(keep bool) error, err error) {
	none := func(bool) error { return nil }
	if path == "" {
		return none, nil
	}
	f, err := fileio.NewReplacement(path)
	if err != nil {
		return none, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Abort()
		return none, err
	}
	return func(keep bool) error {
		pprof.StopCPUProfile()
		if !keep {
			f.Abort()
			return nil
		}
		return f.Commit()
	}, nil
}
