package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// default.pgo in this directory is the CPU profile the Go toolchain uses for profile-guided
// optimisation of this command (go build picks it up by itself). It is a profile of whole
// runs of the main job (pgo.sh); refresh it after changing the hot paths with
//
//	go generate ./cmd/clickgen
//
//go:generate sh pgo.sh

// startProfile writes a CPU profile of the whole process to $CLICKGEN_CPUPROFILE, if set (the
// input of default.pgo), and returns the function that ends it.
func startProfile() func() {
	path := os.Getenv("CLICKGEN_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "clickgen: CLICKGEN_CPUPROFILE:", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
