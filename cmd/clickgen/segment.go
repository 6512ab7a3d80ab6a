package main

import (
	"os"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/clickgen/clickgen/generator/world"
)

// Environment variables that choose a segment: ours, and the one a Kubernetes Indexed Job
// sets in each pod (0 … completions−1).
const (
	segmentEnv  = "CLICKGEN_SEGMENT"
	jobIndexEnv = "JOB_COMPLETION_INDEX"
)

// segmentFlags choose the share of the run a process plays: --segment I/N (env
// CLICKGEN_SEGMENT), or --segments N with I from JOB_COMPLETION_INDEX, as an Indexed Job of N
// completions runs it.
type segmentFlags struct {
	fs       *pflag.FlagSet
	segment  world.Segment
	segments int
}

func addSegmentFlags(fs *pflag.FlagSet) *segmentFlags {
	sf := &segmentFlags{fs: fs}
	fs.Var(&sf.segment, "segment", "play segment `I/N` of the run: the messages whose key hashes to I of N, in the run's order; N processes with 0/N … N−1/N send the run exactly once (env "+segmentEnv+")")
	fs.IntVar(&sf.segments, "segments", 0, "play segment I/`N` with I from env "+jobIndexEnv+", as a Kubernetes Indexed Job of N completions sets it")
	fs.Lookup("segment").DefValue = ""
	return sf
}

// resolve returns the segment the flags and environment choose; the zero Segment is the
// whole run. --segment, then CLICKGEN_SEGMENT, then --segments with JOB_COMPLETION_INDEX.
func (sf *segmentFlags) resolve() (world.Segment, error) {
	verb := sf.fs.Name()
	if sf.fs.Changed("segment") && sf.fs.Changed("segments") {
		return world.Segment{}, usagef(verb, "both --segment and --segments given: choose one")
	}
	if !sf.fs.Changed("segments") {
		if err := envFallback(sf.fs, "segment", segmentEnv); err != nil {
			return world.Segment{}, err
		}
		return sf.segment, nil
	}
	if sf.segments < 1 {
		return world.Segment{}, usagef(verb, "--segments %d: want at least 1", sf.segments)
	}
	v, ok := os.LookupEnv(jobIndexEnv)
	if !ok {
		return world.Segment{}, usagef(verb, "--segments %d needs env %s (set by a Kubernetes Indexed Job)", sf.segments, jobIndexEnv)
	}
	i, err := strconv.Atoi(v)
	if err != nil {
		return world.Segment{}, usagef(verb, "env %s=%q: want an index", jobIndexEnv, v)
	}
	s := world.Segment{I: i, N: sf.segments}
	if err := s.Validate(); err != nil {
		return world.Segment{}, usagef(verb, "env %s=%q with --segments %d: %v", jobIndexEnv, v, sf.segments, err)
	}
	return s, nil
}
