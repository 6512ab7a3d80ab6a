package metrics

import (
	"os"
	"runtime/pprof"
)

// ProfileCPU writes a CPU profile of the whole process (pprof's format) to the file at path
// until stop is called; clickgen's default.pgo, the profile the Go toolchain optimises the
// command with, is made of such profiles of whole runs. An empty path profiles nothing. When
// the file cannot be created or the profiler is already running it returns the error, and a
// stop that does nothing, so the caller can go on without a profile.
func ProfileCPU(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return func() {}, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return func() {}, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
