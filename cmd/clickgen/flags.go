package main

import (
	"fmt"
	"log/slog"
	"os"
	"strconv"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/logs"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/session"
	"github.com/clickgen/clickgen/profiles"
)

// The one road from the command line to a run, for every verb: flags (and their variables)
// → overrides of the verb's profile → profiles.Profile.Apply → a library's config
// (session.Config, verify.Config) → its entry point, which builds the world and the plan
// (profiles.Profile.NewWorld, profiles.Profile.Plan). batch, live, snapshot and inventory
// play their built-in profiles (standConfig); run plays a user's (runflags.go); verify and
// inject take the world, days and garbage of the built-in batch profile the same way.

// standConfig reads the flags of a stand verb (batch, live, snapshot, inventory) into the
// session it plays, in the order the verbs report mistakes: the workers, the segment, the
// sink flags given (when the verb has a sink), then the profile's values, each refused once
// by profiles.Profile.Apply and named by the flag that carried it; the session checks the
// rest.
func (b *binding) standConfig(sio *stdio) (session.Config, error) {
	base, _ := builtinProfile(b.verb.set)
	if b.row("workers") != nil {
		if err := b.refuse(world.CheckWorkers(b.v.workers)); err != nil {
			return session.Config{}, err
		}
	}
	seg, err := b.resolveSegment()
	if err != nil {
		return session.Config{}, b.usage(err)
	}
	if b.row("file") != nil {
		if err := b.checkSink(); err != nil {
			return session.Config{}, err
		}
	}
	p, err := b.playProfile(base)
	if err != nil {
		return session.Config{}, err
	}
	return b.session(sio, p, seg), nil
}

// session is the config of a run of p's segment seg with the verb's flags: its workers, the
// machine's memory limit, its files, sink and outputs, how it speaks.
func (b *binding) session(sio *stdio, p profiles.Profile, seg world.Segment) session.Config {
	v := b.v
	c := session.Config{Profile: p, Segment: seg, Workers: v.workers, Memory: b.memory(), SoftMemoryLimit: os.Getenv("GOMEMLIMIT") == "",
		Files: withProfile(append(b.sinkPaths(), fileio.Input(b.name("world.catalog"), p.World.Catalog))), Sink: v.sink, Outputs: v.out,
		Stdout: sio.out, Stderr: sio.err, Names: b.names, Command: b.verb.name, Settings: b.settings()}
	// --follow-clickhouse's table and rate as given, the session's defaults otherwise, and its
	// user: given without it, each is refused.
	st := &c.Outputs.Store
	if !b.set("follow-table") {
		st.Table = ""
	}
	if !b.set("follow-sample") {
		st.Sample = 0
	}
	if b.set("clickhouse-user") {
		st.User = &v.storeUser
	}
	if l := logs.Of(sio.err); l != nil { // with --log-format json the Kafka client logs too
		c.KafkaLog = l.Logger("kafka", slog.LevelWarn)
	}
	return c
}

// playProfile is base with the flags given as overrides (profiles.Profile.Apply), its days
// checked (profiles.CheckDays); a refusal names the flags.
func (b *binding) playProfile(base profiles.Profile) (profiles.Profile, error) {
	p, err := base.Apply(b.overrides())
	if err == nil {
		err = profiles.CheckDays(p.Play.Day, p.Play.Days)
	}
	return p, b.refuse(err)
}

// name is field key, holding a value, as the verb's flags name it, or the key itself.
func (b *binding) name(key string) string { return field.ValueName(b.names, key, key) }

// resolveSegment is the segment the flags and environment choose: --segment (or
// CLICKGEN_SEGMENT), or --segments N with I from JOB_COMPLETION_INDEX, as a Kubernetes
// Indexed Job of N completions runs it. The zero Segment is the whole run.
func (b *binding) resolveSegment() (world.Segment, error) {
	n := b.v.segments
	if !b.set("segments") {
		return b.v.segment, nil
	}
	if n < 1 {
		return world.Segment{}, fmt.Errorf("--segments %d: want at least 1", n)
	}
	v, ok := b.env(jobIndexEnv)
	if !ok {
		return world.Segment{}, fmt.Errorf("--segments %d needs env %s (set by a Kubernetes Indexed Job)", n, jobIndexEnv)
	}
	d, err := field.Decimal(v)
	i, err2 := strconv.Atoi(d)
	if err != nil || err2 != nil {
		return world.Segment{}, fmt.Errorf("env %s=%q: want an index", jobIndexEnv, v)
	}
	s := world.Segment{I: i, N: n}
	if err := s.Validate(); err != nil {
		return world.Segment{}, fmt.Errorf("env %s=%q with --segments %d: %v", jobIndexEnv, v, n, err)
	}
	return s, nil
}

// memory is the memory a run may take, measured once per verb (profiles.MachineLimit:
// --max-memory, the address-space and cgroup limits, the available memory) and given to the
// libraries as a value.
func (b *binding) memory() profiles.MemoryLimit { return profiles.MachineLimit(b.v.maxMemory) }
