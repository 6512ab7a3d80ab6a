package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clickgen/clickgen/generator/fileio"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/profiles"
)

// injectHelp is inject's description, naming the classes of each topic.
var injectHelp = `Send N malformed messages of one garbage class on demand, made by the generator's garbage
machinery: each is derived from a clean message of model day D (hits: one of its events, keyed by
its ClientID, with a fresh WatchID; orders: a row of snapshot D, keyed by its order_id) and
breaks the contract the way its class says, so the stand's intake files it under that class.

Classes for hits: ` + strings.Join(world.HitGarbageClasses, ", ") + `
(accepted_bad lands in ods.event, silently wrong; vanishing is an empty value or a tombstone and
leaves no row). Classes for orders: ` + strings.Join(world.OrderGarbageClasses, ", ") + `.

Which contract is broken is --kind, or else the topic's name (hits or orders). The messages are
a pure function of (seed, kind, class, day, count): the same call sends the same bytes again,
and --count N+1 sends the N of --count N and one more. Each message is flushed before the next,
and a line per message says what was sent and in which partition it landed. A delivery failure
exits 1. 'clickgen verify' afterwards lists every injected message as unexpected.`

func runInject(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if err := b.parse(args, sio.out, false); err != nil {
		return err
	}
	if err := b.checkSink(); err != nil {
		return err
	}
	sf, inj := &b.v.sink, &b.v.inject
	k, err := inj.kindFor(sf.Topic, b.v.day)
	if err != nil {
		return b.usage(err)
	}
	p, err := b.playProfile(profiles.Batch())
	if err != nil {
		return err
	}
	if err := b.checkFiles(append(sf.paths(), fileio.Input(b.name("world.catalog"), p.World.Catalog))...); err != nil {
		return err
	}
	p.Garbage = world.Garbage{}
	w, err := b.newWorld(ctx, p, 0)
	if err != nil {
		return err
	}
	extras, err := w.Inject(k, inj.class, b.v.day, inj.count)
	if err != nil {
		return err
	}
	topic := sf.Topic
	if topic == "" {
		topic = k
	}
	s, err := sf.start(ctx, sio, map[string]int32{sf.Topic: sink.DefaultTopics()[k]}, listenOpts{total: len(extras), noFollow: true})
	if err != nil {
		return err
	}
	// Data goes to stdout; when the messages themselves do, the lines go to stderr.
	out := sio.out
	if sf.File == "-" {
		out = sio.err
	}
	err = injectAll(ctx, s, out, topic, k, b.v.day, extras)
	return s.finish(ctx, play.Result{}, err)
}

// injectAll sends the extras one at a time, flushing each, and prints where each landed.
func injectAll(ctx context.Context, s *session, out io.Writer, topic, kind string, day int, extras []world.Extra) error {
	from := "day " + strconv.Itoa(day)
	if kind == world.KindOrders {
		from = "snapshot " + strconv.Itoa(day)
	}
	return play.Inject(ctx, s.snk, s.obs, topic, day, extras, s.flush, func(i int, e *world.Extra, part int32) {
		where, key := "", "(none)"
		if part >= 0 {
			where = ", partition " + strconv.Itoa(int(part))
		}
		if e.Key != nil {
			key = string(e.Key)
		}
		fmt.Fprintf(out, "sent %d of %d to %s: %s %s (%s), key %s%s, %d bytes, derived from %s\n",
			i+1, len(extras), topic, kind, e.Class, e.Kind, key, where, len(e.Value), from)
	})
}
