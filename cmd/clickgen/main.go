// Command clickgen is a synthetic clickstream load generator: it plays a deterministic online
// shop into Kafka topics `hits` and `orders` (or files) and says exactly what a storage must
// hold afterwards. Run `clickgen help` for the verbs.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, restore the default behaviour: a second Ctrl-C exits at once.
		<-ctx.Done()
		stop()
	}()
	code := cli(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
