package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/clickgen/clickgen/cmd/clickgen/internal/console"
	"github.com/clickgen/clickgen/cmd/clickgen/internal/sysmem"
	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/profiles"
)

// The one road from the command line to a plan, for every verb: flags (and their variables)
// → overrides of the verb's profile → profiles.Profile.Apply → profiles.Profile.NewWorld →
// profiles.Profile.Plan. batch, live, snapshot and inventory play their built-in profiles
// (standProfile); run plays a user's (runflags.go); verify and inject take the world, days
// and garbage of the built-in batch profile the same way.

// standProfile reads the flags of a stand verb (batch, live, snapshot, inventory) into the
// profile it plays, in the order the verbs report mistakes: the workers, the segment, the
// sink (when the verb has one), the profile's values, each refused once by
// profiles.Profile.Apply and named by the flag that carried it, and the files. It returns
// the segment to play too.
func (b *binding) standProfile() (profiles.Profile, world.Segment, error) {
	base, _ := builtinProfile(b.verb.set)
	if err := b.checkWorkers(); err != nil {
		return base, world.Segment{}, err
	}
	seg, err := b.resolveSegment()
	if err != nil {
		return base, seg, b.usage(err)
	}
	if b.row("file") != nil {
		if err := b.checkSink(); err != nil {
			return base, seg, err
		}
	}
	p, err := b.playProfile(base)
	if err != nil {
		return p, seg, err
	}
	uses := append(b.v.sink.paths(), fileio.Input(b.name("world.catalog"), p.World.Catalog))
	return p, seg, b.checkFiles(uses...)
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

// checkWorkers refuses a --workers the engine cannot start (world.CheckWorkers); the memory
// check counts the workers too.
func (b *binding) checkWorkers() error {
	if b.row("workers") == nil {
		return nil
	}
	return b.refuse(world.CheckWorkers(b.v.workers))
}

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

// newWorld builds the world of p for a run on workers render workers with
// profiles.Profile.NewWorld, the one constructor every verb goes through, and sets the soft
// memory limit the run needs: the one place it is set. The memory the run may take is
// measured here (sysmem.Limit: --max-memory, the address-space and cgroup limits, the
// available memory) and given to NewWorld as a value. A catalog that cannot be read or a run
// that cannot fit in memory is a usage error (nothing was sent); ctx ends the catalog's read
// (a FIFO nobody writes).
func (b *binding) newWorld(ctx context.Context, p profiles.Profile, workers int) (*world.World, error) {
	limit, source := sysmem.Limit(int64(b.v.maxMemory))
	ml := profiles.MemoryLimit{Bytes: profiles.Bytes(limit), Source: source, Explicit: source == sysmem.Explicit}
	w, err := p.NewWorld(ctx, ml, workers)
	if err != nil {
		return nil, b.refuse(err)
	}
	setMemoryLimit(w, world.Footprint{Scale: p.World.Scale, Garbage: p.Garbage, Workers: workers})
	return w, nil
}

// setMemoryLimit sets the soft memory limit a run of world w with footprint f needs
// ([world.Footprint.SoftLimit], the catalog's rows counted from w); GOMEMLIMIT overrides it.
func setMemoryLimit(w *world.World, f world.Footprint) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	f.Products = len(w.Catalog().Products)
	debug.SetMemoryLimit(f.SoftLimit())
}

// plan builds the world of p (newWorld; the memory counted for workers render workers) and
// p's plan (profiles.Profile.Plan, the one constructor of a plan every verb goes through) for
// segment, with opt. A verb with a sink sends what p sends to the topic --topic names
// (topicFor). Refusals are usage errors.
func (b *binding) plan(ctx context.Context, p profiles.Profile, segment world.Segment, workers int, opt profiles.PlanOptions) (play.Plan, error) {
	w, err := b.newWorld(ctx, p, workers)
	if err != nil {
		return play.Plan{}, err
	}
	if b.row("topic") != nil {
		kind := "hits"
		if p.Play.Send == profiles.SendSnapshots {
			kind = "orders"
		}
		topic, err := b.v.sink.TopicOf(kind)
		if err != nil {
			return play.Plan{}, b.refuse(err)
		}
		opt.HitsTopic, opt.OrdersTopic = topic, topic
	}
	opt.Segment = segment
	plan, err := p.Plan(w, opt)
	return plan, b.refuse(err)
}

// start opens the sink for the topic of kind (hits or orders: the partitions a created topic
// gets) with the verb's observers (sinkFlags.start).
func (b *binding) start(ctx context.Context, sio *stdio, kind string, o listenOpts) (*session, error) {
	s := &b.v.sink
	return s.start(ctx, sio, map[string]int32{s.Topic: sink.DefaultTopics()[kind]}, o)
}

// checkEvery refuses a progress period below console.MinProgressEvery, naming flag (run's
// --interval, live's --progress-every): the one wording of the floor.
func checkEvery(flag string, d time.Duration) error {
	if d < console.MinProgressEvery {
		return fmt.Errorf("%s %v: want at least %v", flag, d, console.MinProgressEvery)
	}
	return nil
}

// renderWorkers is the number of render workers for --workers n: n itself when set,
// otherwise what suits the sink (all cores but one when a Kafka client needs one, see
// play.Workers). It is decided from the flags, before the sink is opened.
func renderWorkers(n int, kafka bool) int {
	if n > 0 {
		return n
	}
	return play.Workers(kafka)
}
