package world_test

import (
	"context"
	"fmt"

	"github.com/clickgen/clickgen/generator/produce/world"
)

// A sender plays run days 0 and 1 of the canonical world with some garbage: each unit's clean
// messages with its extras interleaved, a flush per unit, then the unit's batches released.
func ExampleWorld_Units() {
	w, err := world.NewWorld(world.Params{})
	if err != nil {
		panic(err)
	}
	g := world.Garbage{Rate: 0.001, Redeliver: 0.001}
	for u, err := range w.Units(context.Background(), world.Range{From: 0, Days: 2, Garbage: g}, world.UnitOptions{}) {
		if err != nil {
			panic(err)
		}
		var sent, bytes int
		send := func(key, value []byte) { sent++; bytes += len(key) + len(value) }
		var held []*world.Batch
		for b := range u.Batches() {
			for i := range b.Msgs {
				for _, x := range u.ExtrasAt(b.From + i) {
					send(x.Key, x.Value)
				}
				send(b.Key(i), b.Value(i))
			}
			held = append(held, b)
		}
		for _, x := range u.ExtrasAt(u.Len) {
			send(x.Key, x.Value)
		}
		// flush the sink here; once it acknowledged the unit, its memory can be reused:
		for _, b := range held {
			b.Release()
		}
		fmt.Printf("%s of day %d: %d clean + %d extras = %d messages\n", u.Kind, u.Day, u.Len, len(u.Extras), sent)
	}
	// Output:
	// hits of day 0: 52100 clean + 105 extras = 52205 messages
	// hits of day 1: 53853 clean + 108 extras = 53961 messages
	// snapshot of day 0: 249 clean + 0 extras = 249 messages
}
