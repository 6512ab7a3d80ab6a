package sink

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/clickgen/clickgen/internal/tier/realkafka"
)

// TestCheckConnectSASLWithoutListener is issue 24 Low 5: SASL against a broker that has no
// SASL listener read "refused the SASL credentials … EOF", sending the user after a password
// that was never checked. The broker hung up during the handshake: the error says so, and
// that the port may have no SASL listener, naming the mechanism and the user.
func TestCheckConnectSASLWithoutListener(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	checkNoSASLListener(t, c.ListenAddrs())
}

// TestCheckConnectSASLWithoutListenerRealKafka: the same against Apache Kafka's PLAINTEXT
// listener.
func TestCheckConnectSASLWithoutListenerRealKafka(t *testing.T) {
	checkNoSASLListener(t, realkafka.Start(t, 1).Addrs())
}

func checkNoSASLListener(t *testing.T, addrs []string) {
	t.Helper()
	k, err := NewKafka(SeedBrokers(addrs...), SASL(SASLPlain, "admin", "secret"), ConnectTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	err = k.CheckConnect(context.Background())
	const want = `the SASL handshake (mechanism PLAIN, user "admin") and answers without SASL: it has no SASL listener on this port (drop the SASL mechanism, or give the SASL listener's port)`
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "refused the SASL credentials") {
		t.Errorf("CheckConnect with SASL to a broker without it = %v; want %q", err, want)
	}
	var nl *NoSASLListenerError
	if !errors.As(err, &nl) || nl.Mechanism != "PLAIN" || nl.User != "admin" || nl.Brokers != strings.Join(addrs, ",") || nl.Err == nil {
		t.Errorf("CheckConnect with SASL to a broker without it = %#v, want a *NoSASLListenerError with the mechanism, user and brokers", err)
	}
}
