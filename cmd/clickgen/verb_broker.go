package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clickgen/clickgen/generator/produce/broker"
)

const brokerHelp = `Run the embedded Kafka-compatible broker (franz-go's kfake, in memory) with topics hits
(2 partitions) and orders (1 partition) already created, until Ctrl-C. kcat, a local
ClickHouse or the stand can use it; everything it holds is lost when it stops.`

func runBroker(ctx context.Context, sio *stdio, b *binding, args []string) error {
	if err := b.parse(args, sio.out, false); err != nil {
		return err
	}
	listen, advertise := &b.v.listen, &b.v.advertise
	if *listen == "" && b.set("listen") {
		// The library reads "" as its default address: a flag given empty chose nothing.
		return usagef("broker", "--listen '': want HOST:PORT (port 0 picks a free port)")
	}
	var opts []broker.Opt
	if *advertise != "" {
		opts = append(opts, broker.AdvertisedHost(*advertise))
	}
	kb, err := broker.Start(*listen, opts...)
	if ae := (*broker.AddressError)(nil); errors.As(err, &ae) {
		return usagef("broker", "--listen %q: %v", ae.Listen, ae.Err)
	} else if err != nil {
		return err // names the broker already: "broker: start on ...: address already in use"
	}
	defer kb.Close()
	addrs := strings.Join(kb.Addrs(), ",")
	fmt.Fprintf(sio.out, "clickgen broker listening on %s (topics hits/2, orders/1)\n", addrs)
	fmt.Fprintf(sio.out, "  produce:  clickgen batch --day 0 --brokers %s --topic hits\n", addrs)
	fmt.Fprintf(sio.out, "  read:     kcat -C -b %s -t hits -e -f '%%p %%k %%s\\n'\n", addrs)
	fmt.Fprintf(sio.out, "Press Ctrl-C to stop (the data is in memory only).\n")
	if f, ok := sio.out.(interface{ Sync() error }); ok {
		f.Sync()
	}
	<-ctx.Done()
	fmt.Fprintln(sio.err, "clickgen: broker stopped")
	return nil
}
