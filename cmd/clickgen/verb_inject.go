package main

import (
	"context"
	"strings"

	"github.com/clickgen/clickgen/generator/produce/world"
	"github.com/clickgen/clickgen/generator/session"
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
	m := b.v.inject
	m.Day = b.v.day
	if err := m.Check(&b.v.sink); err != nil {
		return b.refuse(err)
	}
	p, err := b.playProfile(profiles.Batch())
	if err != nil {
		return err
	}
	return session.Inject(ctx, b.session(sio, p, world.Segment{}), m)
}
