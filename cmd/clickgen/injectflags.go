package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// injectFlags choose the malformed messages `clickgen inject` sends ([world.World.Inject])
// besides the model day (--day): --class, --kind and --count.
type injectFlags struct {
	class string
	kind  string // the contract to break; "" means the topic's name
	count int
}

// kindFor checks the flags and returns the topic kind whose contract the messages break:
// --kind, or else the name of topic (the topic they are sent to) when that is hits or orders.
// The class must be one that kind carries, the count at most [world.MaxInject] and the day
// one the other verbs play (0 … [world.MaxDay]); each error names the flag and the valid
// values.
func (f *injectFlags) kindFor(topic string, day int) (string, error) {
	k := f.kind
	if k == "" {
		k = topic
		if k != world.KindHits && k != world.KindOrders {
			return "", fmt.Errorf("cannot tell from topic %q which contract to break: give --kind hits or --kind orders", topic)
		}
	}
	classes := world.GarbageClassesFor(k)
	switch {
	case classes == nil:
		return "", fmt.Errorf("--kind %q: want hits or orders", k)
	case f.class == "":
		return "", fmt.Errorf("--class is required: for %s one of %s", k, strings.Join(classes, ", "))
	case !slices.Contains(world.AllGarbageClasses(), f.class):
		return "", fmt.Errorf("unknown class %q: for hits one of %s; for orders one of %s%s", f.class,
			strings.Join(world.HitGarbageClasses, ", "), strings.Join(world.OrderGarbageClasses, ", "), didYouMean(f.class, world.AllGarbageClasses(), ""))
	case !slices.Contains(classes, f.class):
		return "", fmt.Errorf("class %s does not apply to %s: want one of %s", f.class, k, strings.Join(classes, ", "))
	case f.count < 1 || f.count > world.MaxInject:
		return "", fmt.Errorf("--count %d: want 1 to %d (inject is one message per flush; use --garbage for volume)", f.count, world.MaxInject)
	case day < 0:
		return "", fmt.Errorf("--day %d: model days start at 0", day)
	case day > world.MaxDay:
		// The other verbs' bound (world.CheckDays): --day 2147483647 panicked, 29105 put
		// 1970 into UTCEventTime beside 2106 in EventDate.
		return "", fmt.Errorf("--day: %w", world.CheckDays(day, 1))
	}
	return k, nil
}
