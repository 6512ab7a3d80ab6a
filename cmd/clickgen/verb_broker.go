package main

import (
	"context"
	"fmt"

	"github.com/clickgen/clickgen/generator/session"
)

const brokerHelp = `Run the embedded Kafka-compatible broker (franz-go's kfake, in memory) with topics hits
(2 partitions) and orders (1 partition) already created, until Ctrl-C. kcat, a local
ClickHouse or the stand can use it; everything it holds is lost when it stops.`

func runBroker(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if err := b.parse(args, sio.out, false); err != nil {
		return err
	}
	if b.v.listen == "" && b.set("listen") {
		// The library reads "" as its default address: a flag given empty chose nothing.
		return usagef("broker", "--listen '': want HOST:PORT (port 0 picks a free port)")
	}
	return session.Serve(ctx, session.Broker{Listen: b.v.listen, Advertise: b.v.advertise}, func(addrs string) {
		fmt.Fprintf(sio.out, "clickgen broker listening on %s (topics hits/2, orders/1)\n", addrs)
		fmt.Fprintf(sio.out, "  produce:  clickgen batch --day 0 --brokers %s --topic hits\n", addrs)
		fmt.Fprintf(sio.out, "  read:     kcat -C -b %s -t hits -e -f '%%p %%k %%s\\n'\n", addrs)
		fmt.Fprintf(sio.out, "Press Ctrl-C to stop (the data is in memory only).\n")
		if f, ok := sio.out.(interface{ Sync() error }); ok {
			f.Sync()
		}
	}, sio.err)
}
