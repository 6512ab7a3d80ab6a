package broker

import (
	"fmt"
	"maps"
	"net"
	"strconv"
	"sync"

	"github.com/clickgen/clickgen/generator/produce/sink"
	"github.com/twmb/franz-go/pkg/kfake"
)

// DefaultListen is where the embedded broker listens unless told otherwise.
const DefaultListen = "127.0.0.1:9092"

// Opt configures [Start].
type Opt interface{ apply(*cfg) }

type optFunc func(*cfg)

func (o optFunc) apply(c *cfg) { o(c) }

type cfg struct {
	topics    map[string]int32
	advertise string
}

// Topics sets the topics created at start, topic to partition count,
// overriding the default of [sink.DefaultTopics] (hits 2, orders 1).
func Topics(topics map[string]int32) Opt {
	return optFunc(func(c *cfg) { c.topics = maps.Clone(topics) })
}

// AdvertisedHost sets the host the broker tells clients to connect to,
// overriding the default of the listen host, or 127.0.0.1 when listening on
// all interfaces (0.0.0.0, ::, or an empty host). Set it when clients on
// other machines or in containers use the broker.
func AdvertisedHost(host string) Opt {
	return optFunc(func(c *cfg) { c.advertise = host })
}

// Broker is an embedded, in-process Kafka-compatible broker (franz-go's
// kfake): one node, data in memory, gone on Close. It accepts idempotent
// producers, every compression codec, and consumers with or without groups.
type Broker struct {
	c         *kfake.Cluster
	addrs     []string
	closeOnce sync.Once
}

// AddressError is [Start]'s refusal of a listen address by its form (not host:port, a port
// out of range), before listening on anything: a mistake of the caller, not of the machine.
type AddressError struct {
	Listen string
	Err    error
}

func (e *AddressError) Error() string {
	return fmt.Sprintf("broker: listen address %q: %v", e.Listen, e.Err)
}

func (e *AddressError) Unwrap() error { return e.Err }

// Start starts an embedded broker listening on listen (host:port; ""
// means [DefaultListen]; port 0 picks a free port) with the topics of
// [Topics] already created. It returns once the broker accepts
// connections.
func Start(listen string, opts ...Opt) (*Broker, error) {
	c := cfg{topics: sink.DefaultTopics()}
	for _, o := range opts {
		o.apply(&c)
	}
	if listen == "" {
		listen = DefaultListen
	}
	host, portStr, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, &AddressError{Listen: listen, Err: err}
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 0 || port > 65535 {
		return nil, &AddressError{Listen: listen, Err: fmt.Errorf("port %q, want 0 (any free port) to 65535", portStr)}
	}
	for t, n := range c.topics {
		if n < 1 {
			return nil, fmt.Errorf("broker: topic %s: partition count %d, want at least 1", t, n)
		}
	}
	advertise := c.advertise
	if advertise == "" {
		advertise = host
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			advertise = "127.0.0.1"
		}
	}

	kopts := []kfake.Opt{
		kfake.Ports(port), // one broker; kfake listens on 127.0.0.1 only,
		// so we listen ourselves on the host asked for.
		kfake.ListenFn(func(network, _ string) (net.Listener, error) {
			ln, err := net.Listen(network, net.JoinHostPort(host, strconv.Itoa(port)))
			if err != nil {
				return nil, err
			}
			return advertisedListener{ln, advertise}, nil
		}),
	}
	for t, n := range c.topics {
		kopts = append(kopts, kfake.SeedTopics(n, t))
	}
	cluster, err := kfake.NewCluster(kopts...)
	if err != nil {
		return nil, fmt.Errorf("broker: start on %s: %w", listen, err)
	}
	return &Broker{c: cluster, addrs: cluster.ListenAddrs()}, nil
}

// Addrs returns the broker's advertised host:port addresses, for
// [SeedBrokers] or a user's --brokers.
func (b *Broker) Addrs() []string { return append([]string(nil), b.addrs...) }

// Close stops the broker, dropping its connections and data. It is
// idempotent and returns nil.
func (b *Broker) Close() error {
	b.closeOnce.Do(b.c.Close)
	return nil
}

// advertisedListener reports the address clients should dial: kfake
// advertises its listener's address in metadata, which for a listener on all
// interfaces would be 0.0.0.0 or [::].
type advertisedListener struct {
	net.Listener
	host string
}

func (l advertisedListener) Addr() net.Addr {
	a := l.Listener.Addr()
	_, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a
	}
	return hostPortAddr{a.Network(), net.JoinHostPort(l.host, port)}
}

type hostPortAddr struct{ network, addr string }

func (a hostPortAddr) Network() string { return a.network }
func (a hostPortAddr) String() string  { return a.addr }
