package sink

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/clickgen/clickgen/internal/tier/realkafka"
)

// TestConnectCausesRealKafka is issue 35's security round (S2, S5) against real Apache Kafka
// 4.3.1 with a listener of each protocol: every right combination connects, and every wrong
// one is told by its cause. TLS spoken to the SASL-without-TLS port was "refused the SASL
// credentials (check the user, the mechanism and the password)" although the password was
// right; a refused certificate was "cannot reach Kafka … within" the connect timeout. Now:
// a protocol mismatch names the side that speaks TLS (or wants SASL), a certificate names
// whose certificate was refused, and only a wrong password is a refusal of the credentials.
func TestConnectCausesRealKafka(t *testing.T) {
	s := realkafka.StartSecure(t)
	scram256 := SASL(SASLScramSHA256, realkafka.SecureUser, realkafka.SecurePassword)
	ca := TLS(TLSConfig{CAFile: s.CAFile})
	client := TLS(TLSConfig{CAFile: s.CAFile, CertFile: s.ClientCertFile, KeyFile: s.ClientKeyFile})
	check := func(opts ...Opt) error {
		k, err := NewKafka(append(opts, ConnectTimeout(10*time.Second))...)
		if err != nil {
			t.Fatal(err)
		}
		defer k.Close()
		return k.CheckConnect(context.Background())
	}
	for name, opts := range map[string][]Opt{
		"SASL PLAIN":         {SeedBrokers(s.SASLPlaintext), SASL(SASLPlain, realkafka.SecureUser, realkafka.SecurePassword)},
		"SCRAM-SHA-256":      {SeedBrokers(s.SASLPlaintext), scram256},
		"SCRAM-SHA-512":      {SeedBrokers(s.SASLPlaintext), SASL(SASLScramSHA512, realkafka.SecureUser, realkafka.SecurePassword)},
		"TLS":                {SeedBrokers(s.SSL), ca},
		"mutual TLS":         {SeedBrokers(s.MutualTLS), client},
		"SCRAM over TLS":     {SeedBrokers(s.SASLSSL), ca, scram256},
		"plaintext":          {SeedBrokers(s.Addrs()[0])},
		"TLS CA, right cert": {SeedBrokers(s.SSL), client},
	} {
		if err := check(opts...); err != nil {
			t.Errorf("%s: %v; want connected", name, err)
		}
	}
	for _, tc := range []struct {
		name string
		opts []Opt
		want func(error) bool
		says string
	}{
		{"TLS and SCRAM to the SASL port without TLS", []Opt{SeedBrokers(s.SASLPlaintext), ca, scram256},
			mismatch(MismatchClientTLS), "speaks Kafka without TLS"},
		{"TLS to the plaintext port", []Opt{SeedBrokers(s.Addrs()[0]), ca}, mismatch(MismatchClientTLS), "speaks Kafka without TLS"},
		{"plaintext to the TLS port", []Opt{SeedBrokers(s.SSL)}, mismatch(MismatchListenerTLS), "speaks TLS on this port"},
		{"SCRAM without TLS to the SASL port over TLS", []Opt{SeedBrokers(s.SASLSSL), scram256}, mismatch(MismatchListenerTLS), "speaks TLS on this port"},
		{"TLS without SASL to the SASL port over TLS", []Opt{SeedBrokers(s.SASLSSL), ca}, mismatch(MismatchListenerSASL), "wants SASL"},
		{"TLS without the CA", []Opt{SeedBrokers(s.SSL), TLS(TLSConfig{})}, certificate(false), "presented a certificate this client refused"},
		{"mutual TLS without a client certificate", []Opt{SeedBrokers(s.MutualTLS), ca}, certificate(true), "refused this client's certificate"},
		{"a wrong password", []Opt{SeedBrokers(s.SASLPlaintext), SASL(SASLScramSHA256, realkafka.SecureUser, "wrong")},
			func(err error) bool { return err != nil }, "refused the SASL credentials"},
	} {
		err := check(tc.opts...)
		if !tc.want(err) || !strings.Contains(err.Error(), tc.says) || strings.Contains(err.Error(), realkafka.SecurePassword) {
			t.Errorf("%s: %v; want it saying %q", tc.name, err, tc.says)
			continue
		}
		if !strings.Contains(tc.name, "wrong password") && strings.Contains(err.Error(), "refused the SASL credentials") {
			t.Errorf("%s: told as refused credentials: %v", tc.name, err)
		}
		t.Logf("%s: %v", tc.name, err)
	}
}

func mismatch(m string) func(error) bool {
	return func(err error) bool {
		var pe *ProtocolError
		return errors.As(err, &pe) && pe.Mismatch == m
	}
}

func certificate(client bool) func(error) bool {
	return func(err error) bool {
		var ce *CertificateError
		return errors.As(err, &ce) && ce.Client == client
	}
}
