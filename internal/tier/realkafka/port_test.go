package realkafka

import (
	"context"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/clickgen/clickgen/internal/testenv"
)

// TestStartRetriesATakenPort gives Start a client port another process listens on, as a
// parallel test's connection or server can take one between the probe and the JVM's bind
// (CI saw "Address already in use" that way). The node there cannot listen and exits; Start
// must neither fail nor take the other process's listener for its node, but start the
// cluster again on other ports.
func TestStartRetriesATakenPort(t *testing.T) {
	testenv.Need(t, testenv.Kafka, Available())
	if testing.Short() {
		t.Skip("real Kafka tier: not under -short")
	}
	taken := freeBase(t, 1)
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(taken)))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var picked []int
	pickBase = func(t testing.TB, nodes int) int {
		p := taken
		if len(picked) > 0 {
			p = freeBase(t, nodes)
		}
		picked = append(picked, p)
		return p
	}
	defer func() { pickBase = freeBase }()
	c := Start(t, 1)
	if len(picked) != 2 || c.ports[0] == taken {
		t.Fatalf("bases tried %v, node on %d: want the taken %d, then another", picked, c.ports[0], taken)
	}
	if c.Pid(0) == 0 {
		t.Fatal("the node is not running")
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := cl.Ping(ctx); err != nil {
		t.Fatalf("the node started on %v does not answer Kafka requests: %v", c.Addrs(), err)
	}
}
