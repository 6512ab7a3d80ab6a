package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/clickgen/clickgen/generator/play"
	"github.com/clickgen/clickgen/generator/sink"
	"github.com/clickgen/clickgen/generator/world"
	"github.com/clickgen/clickgen/profiles"
)

func runInject(ctx context.Context, sio *stdio, args []string) error {
	fs := newFlags("inject", "inject --brokers HOSTS --topic hits|orders --class CLASS [--count N] [--day D] [--kind hits|orders] [flags]",
		`Send N malformed messages of one garbage class on demand, made by the generator's garbage
machinery: each is derived from a clean message of model day D (hits: one of its events, keyed by
its ClientID, with a fresh WatchID; orders: a row of snapshot D, keyed by its order_id) and
breaks the contract the way its class says, so the stand's intake files it under that class.

Classes for hits: `+strings.Join(world.HitGarbageClasses, ", ")+`
(accepted_bad lands in ods.event, silently wrong; vanishing is an empty value or a tombstone and
leaves no row). Classes for orders: `+strings.Join(world.OrderGarbageClasses, ", ")+`.

Which contract is broken is --kind, or else the topic's name (hits or orders). The messages are
a pure function of (seed, kind, class, day, count): the same call sends the same bytes again,
and --count N+1 sends the N of --count N and one more. Each message is flushed before the next,
and a line per message says what was sent and in which partition it landed. A delivery failure
exits 1. 'clickgen verify' afterwards lists every injected message as unexpected.`)
	wf := profiles.AddWorldFlags(fs)
	class := fs.String("class", "", "garbage class of the messages (required); see above")
	kind := fs.String("kind", "", "contract to break, hits or orders; default: the topic's name")
	count := fs.Int("count", 1, "how many messages to send")
	day := fs.Int("day", 0, "model day whose clean messages the malformed ones derive from (orders: its snapshot)")
	sf := addSinkFlags(fs)
	if err := parseFlags(fs, args, sio.out); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if err := sf.resolve(); err != nil {
		return err
	}
	k, err := injectKind(sf.Topic, *kind, *class, *count, *day)
	if err != nil {
		return err
	}
	w, err := newWorld("inject", wf, world.Garbage{})
	if err != nil {
		return err
	}
	extras, err := w.Inject(k, *class, *day, *count)
	if err != nil {
		return err
	}
	topic := sf.Topic
	if topic == "" {
		topic = k
	}
	snk, err := sf.open(ctx, sio, map[string]int32{sf.Topic: sink.DefaultTopics()[k]})
	if err != nil {
		return err
	}
	// Data goes to stdout; when the messages themselves do, the lines go to stderr.
	out := sio.out
	if sf.File == "-" {
		out = sio.err
	}
	p := newPlayer(sio, snk, sf.FlushTimeout, len(extras))
	err = injectAll(ctx, p, out, topic, k, *day, extras)
	return p.Finish(err, sf.report)
}

// injectAll sends the extras one at a time, flushing each, and prints where each landed.
func injectAll(ctx context.Context, p *play.Session, out io.Writer, topic, kind string, day int, extras []world.Extra) error {
	from := "day " + strconv.Itoa(day)
	if kind == world.KindOrders {
		from = "snapshot " + strconv.Itoa(day)
	}
	return play.Inject(ctx, p.Sink, topic, day, extras, p.FlushTimeout, func(i int, e *world.Extra, part int32) {
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

// injectKind checks inject's class, count and day and returns the contract to break: kind,
// or the topic's name.
func injectKind(topic, kind, class string, count, day int) (string, error) {
	k := kind
	if k == "" {
		k = topic
		if k != world.KindHits && k != world.KindOrders {
			return "", usagef("inject", "cannot tell from topic %q which contract to break: give --kind hits or --kind orders", topic)
		}
	}
	classes := world.GarbageClassesFor(k)
	switch {
	case classes == nil:
		return "", usagef("inject", "--kind %q: want hits or orders", k)
	case class == "":
		return "", usagef("inject", "--class is required: for %s one of %s", k, strings.Join(classes, ", "))
	case !slices.Contains(world.AllGarbageClasses(), class):
		return "", usagef("inject", "unknown class %q: for hits one of %s; for orders one of %s", class,
			strings.Join(world.HitGarbageClasses, ", "), strings.Join(world.OrderGarbageClasses, ", "))
	case !slices.Contains(classes, class):
		return "", usagef("inject", "class %s does not apply to %s: want one of %s", class, k, strings.Join(classes, ", "))
	case count < 1 || count > world.MaxInject:
		return "", usagef("inject", "--count %d: want 1 to %d (inject is one message per flush; use --garbage for volume)", count, world.MaxInject)
	case day < 0:
		return "", usagef("inject", "--day %d: model days start at 0", day)
	}
	return k, nil
}
