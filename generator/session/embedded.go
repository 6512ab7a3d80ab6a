package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/clickgen/clickgen/generator/field"
	"github.com/clickgen/clickgen/generator/measure/console"
	"github.com/clickgen/clickgen/generator/produce/broker"
	"github.com/clickgen/clickgen/generator/produce/play"
	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/clickgen/clickgen/generator/verify/topics"
)

// startEmbedded starts the embedded broker when the settings chose no sink (embedded), and
// points the sink's settings at it; nil when brokers were given (Run's first line said
// which).
func (c *Config) startEmbedded(embedded bool) (*broker.Broker, error) {
	if !embedded {
		return nil, nil
	}
	kb, err := broker.Start("127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("embedded broker: %w", err)
	}
	c.Sink.Brokers = kb.Addrs()
	c.logf("embedded broker on %s (topics hits/2, orders/1), gone when the run ends", c.Sink.Brokers)
	return kb, nil
}

// readBack bounds reading a run back from the embedded broker.
const readBack = 10 * time.Minute

// checkRun says whether the run delivered what it should (topics.CheckRun): with the
// embedded broker kb it reads the topics back, the table to Stdout; with the caller's
// brokers (kb nil) it trusts what was acknowledged. The counts the profile expects are
// checked too, for the whole run.
func (c *Config) checkRun(ctx context.Context, kb *broker.Broker, plan play.Plan, out play.Result, st sink.Stats) error {
	p := c.Profile
	run := topics.Run{World: plan.World, Range: plan.Range, Options: topics.Options{Workers: plan.Workers},
		Hits: plan.Hits, Orders: plan.Orders, Stats: st,
		Want: topics.Counts{Source: "profile " + p.Name, Hits: p.Expect.Hits, Orders: p.Expect.Orders}}
	if out.Stopped != play.StopDays || plan.Days == 0 {
		run.CutShort = string(out.Stopped)
	}
	var brokers []string
	if kb != nil {
		brokers = kb.Addrs()
		c.logf("%s%s", segmentWho(plan.Segment), console.WaitLine("reading the run's messages back from the embedded broker to check them", readBack))
	}
	ctx, cancel := context.WithTimeout(ctx, readBack)
	defer cancel()
	problems, _, err := topics.CheckRun(ctx, c.Stdout, brokers, run)
	if err != nil {
		return fmt.Errorf("reading back from the embedded broker: %w", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("check failed: %s", strings.Join(problems, "; "))
	}
	return nil
}

// Broker is a standalone embedded broker ([Serve]): where it listens (HOST:PORT, port 0 a
// free one; "" is broker.DefaultListen) and the host name clients should use to reach it
// ("": the listen host, 127.0.0.1 for 0.0.0.0).
type Broker struct {
	Listen, Advertise string
}

// DefaultBrokerListen is where [Serve] listens unless told otherwise.
const DefaultBrokerListen = broker.DefaultListen

// Serve runs the embedded Kafka-compatible broker of b (topics hits/2 and orders/1) until ctx
// ends, telling ready where it listens once it does (its addresses, comma-separated) and
// saying on stderr that it stopped; everything it holds is lost then. An address it cannot
// listen on is a refusal naming the field Listen.
func Serve(ctx context.Context, b Broker, ready func(addrs string), stderr io.Writer) error {
	var opts []broker.Opt
	if b.Advertise != "" {
		opts = append(opts, broker.AdvertisedHost(b.Advertise))
	}
	kb, err := broker.Start(b.Listen, opts...)
	if ae := (*broker.AddressError)(nil); errors.As(err, &ae) {
		return field.Refuse(&field.Error{Field: "Listen", Words: "listen address", Value: strconv.Quote(ae.Listen), Err: ae.Err})
	} else if err != nil {
		return err // names the broker already: "broker: start on ...: address already in use"
	}
	defer kb.Close()
	ready(strings.Join(kb.Addrs(), ","))
	<-ctx.Done()
	fmt.Fprintln(stderr, "clickgen: broker stopped")
	return nil
}
