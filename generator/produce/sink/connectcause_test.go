package sink

import (
	"context"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// checkConnect runs Kafka.CheckConnect with opts and a connect timeout of 2s.
func checkConnect(t *testing.T, opts ...Opt) error {
	t.Helper()
	k, err := NewKafka(append(opts, ConnectTimeout(2*time.Second))...)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	return k.CheckConnect(context.Background())
}

// TestSilentPortSaidInWords is issue 35's S5: a port that accepts and never answers ended the
// connection check with a bare "context deadline exceeded". It says that the port accepted
// the connection and did not answer, within the connect timeout.
func TestSilentPortSaidInWords(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // never written
		}
	}()
	defer func() {
		ln.Close()
		<-done
		for _, c := range held {
			c.Close()
		}
	}()
	err = checkConnect(t, SeedBrokers(ln.Addr().String()))
	var ce *ConnectError
	if !errors.As(err, &ce) || !ce.NoAnswer || !ce.Accepted || !strings.Contains(err.Error(), "it accepted the connection and did not answer within 2s") ||
		strings.HasSuffix(err.Error(), "context deadline exceeded") {
		t.Fatalf("CheckConnect of a silent port = %v; want it said in words", err)
	}
	t.Log(err)
}

// TestCertificateRefusedIsNotUnreachable is issue 35's S5: a certificate refused at once read
// "cannot reach Kafka … within 5s". A TLS listener whose certificate this client does not
// trust (a CA of its own) is a *CertificateError at once.
func TestCertificateRefusedIsNotUnreachable(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	start := time.Now()
	err := checkConnect(t, SeedBrokers(srv.Listener.Addr().String()), TLS(TLSConfig{}))
	var ce *CertificateError
	if !errors.As(err, &ce) || ce.Client || strings.Contains(err.Error(), "cannot reach") || !strings.Contains(err.Error(), "presented a certificate this client refused") {
		t.Fatalf("CheckConnect with an unknown CA = %v; want a CertificateError", err)
	}
	if time.Since(start) >= 2*time.Second {
		t.Errorf("the refusal waited out the connect timeout")
	}
	t.Log(err)
}

// TestProtocolMismatchNamed is issue 35's S2: TLS spoken to a listener without TLS was told
// as refused SASL credentials ("check the user, the mechanism and the password"), although
// the password was never checked. Each mismatch is a *ProtocolError saying which side speaks
// TLS: TLS (with SASL) to kfake's plain listener, plaintext to a TLS listener.
func TestProtocolMismatchNamed(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644)
	for _, tc := range []struct {
		name     string
		opts     []Opt
		mismatch string
	}{
		{"TLS and SASL to a listener without either", []Opt{SeedBrokers(c.ListenAddrs()...), TLS(TLSConfig{CAFile: ca}),
			SASL(SASLScramSHA256, "alice", "pw")}, MismatchClientTLS},
		{"plaintext to a TLS listener", []Opt{SeedBrokers(srv.Listener.Addr().String())}, MismatchListenerTLS},
	} {
		err := checkConnect(t, tc.opts...)
		var pe *ProtocolError
		if !errors.As(err, &pe) || pe.Mismatch != tc.mismatch || strings.Contains(err.Error(), "refused the SASL credentials") {
			t.Errorf("%s: %v; want a ProtocolError %q", tc.name, err, tc.mismatch)
		}
		t.Logf("%s: %v", tc.name, err)
	}
}

// TestClearTextPassword is issue 35's S6: only SASL PLAIN without TLS sends the password in
// clear text.
func TestClearTextPassword(t *testing.T) {
	for _, tc := range []struct {
		s    Settings
		want bool
	}{
		{Settings{Brokers: Brokers{"k:9092"}, SASLMechanism: "PLAIN"}, true},
		{Settings{Brokers: Brokers{"k:9092"}, SASLMechanism: "PLAIN", TLS: true}, false},
		{Settings{Brokers: Brokers{"k:9092"}, SASLMechanism: "PLAIN", TLSCA: "ca.pem"}, false},
		{Settings{Brokers: Brokers{"k:9092"}, SASLMechanism: "SCRAM-SHA-256"}, false},
		{Settings{Brokers: Brokers{"k:9092"}}, false},
	} {
		if got := tc.s.ClearTextPassword(); got != tc.want {
			t.Errorf("%+v: ClearTextPassword = %v, want %v", tc.s, got, tc.want)
		}
	}
}
