package sink_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clickgen/clickgen/generator/fileio"
	. "github.com/clickgen/clickgen/generator/produce/sink"

	"github.com/twmb/franz-go/pkg/kfake"
)

const secret = "s3cret-Passw0rd"

func TestNewKafkaValidation(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := SeedBrokers("127.0.0.1:9092")
	for _, tc := range []struct {
		name string
		opts []Opt
		want string
	}{
		{"no brokers", nil, "no Kafka brokers"},
		{"empty broker list", []Opt{SeedBrokers(" , ")}, "no Kafka brokers"},
		{"compression", []Opt{b, BatchCompression("brotli")}, `unknown compression "brotli"`},
		{"linger", []Opt{b, Linger(-time.Second)}, "linger"},
		{"max buffered records", []Opt{b, MaxBufferedRecords(0)}, "max buffered records 0"},
		{"max buffered bytes", []Opt{b, MaxBufferedBytes(-1)}, "max buffered bytes"},
		{"delivery timeout", []Opt{b, DeliveryTimeout(0)}, "delivery timeout"},
		{"retries", []Opt{b, Retries(0)}, "retries 0"},
		{"connect timeout", []Opt{b, ConnectTimeout(0)}, "connect timeout"},
		{"replication factor", []Opt{b, ReplicationFactor(0)}, "replication factor 0"},
		{"sasl mechanism", []Opt{b, SASL("GSSAPI", "alice", secret)}, `unknown SASL mechanism "GSSAPI"`},
		{"sasl user", []Opt{b, SASL(SASLPlain, "", secret)}, "SASL user is empty"},
		{"sasl password", []Opt{b, SASL(SASLPlain, "alice", "")}, "SASL password is empty"},
		{"tls ca missing", []Opt{b, SASL(SASLPlain, "alice", secret), TLS(TLSConfig{CAFile: filepath.Join(dir, "nope.pem")})}, "TLS CA file"},
		{"tls ca not pem", []Opt{b, TLS(TLSConfig{CAFile: notPEM})}, "holds no PEM certificate"},
		{"tls cert without key", []Opt{b, TLS(TLSConfig{CertFile: notPEM})}, "certificate and key must be given together"},
		{"tls bad pair", []Opt{b, SASL(SASLScramSHA512, "alice", secret), TLS(TLSConfig{CertFile: notPEM, KeyFile: notPEM})}, "TLS client certificate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, err := NewKafka(tc.opts...)
			if err == nil {
				k.Close()
				t.Fatalf("NewKafka succeeded, want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewKafka error %q, want it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("NewKafka error %q contains the password", err)
			}
		})
	}
	// Several problems are reported at once.
	_, err := NewKafka(BatchCompression("x"), Linger(-1))
	if err == nil || !strings.Contains(err.Error(), "no Kafka brokers") || !strings.Contains(err.Error(), "compression") || !strings.Contains(err.Error(), "linger") {
		t.Errorf("NewKafka = %v, want all three problems", err)
	}
}

func TestKafkaStringHidesPassword(t *testing.T) {
	k := newKafka(t, []string{"a:9092", "b:9092"}, SASL("scram-sha-512", "alice", secret), BatchCompression(CompressionZstd))
	s := k.String()
	for _, want := range []string{"brokers=a:9092,b:9092", "sasl=SCRAM-SHA-512", "sasl_user=alice", "compression=zstd", "tls=off", "retries=unlimited"} {
		if !strings.Contains(s, want) {
			t.Errorf("String() = %q, want it to contain %q", s, want)
		}
	}
	if strings.Contains(s, secret) {
		t.Errorf("String() = %q contains the password", s)
	}
}

// TestKafkaSASL authenticates with each mechanism against a kfake cluster
// requiring SASL, produces and reads back with the same options; a wrong
// password is a clear error that does not echo the password.
func TestKafkaSASL(t *testing.T) {
	for _, mech := range []SASLMechanism{SASLPlain, SASLScramSHA256, SASLScramSHA512} {
		t.Run(string(mech), func(t *testing.T) {
			_, addrs := newCluster(t, kfake.EnableSASL(), kfake.Superuser(string(mech), "alice", secret))
			ctx := context.Background()

			k := newKafka(t, addrs, SASL(mech, "alice", secret), ConnectTimeout(5*time.Second))
			if err := k.CheckConnect(ctx); err != nil {
				t.Fatalf("CheckConnect: %v", err)
			}
			msgs := testMessages("orders", 50)
			sendAll(t, k, msgs)
			if got := len(consumeAll(t, addrs, "orders", SASL(mech, "alice", secret))); got != 50 {
				t.Errorf("read back %d records, want 50", got)
			}

			const wrong = "wr0ng-Passw0rd"
			bad := newKafka(t, addrs, SASL(mech, "alice", wrong), ConnectTimeout(3*time.Second))
			err := bad.CheckConnect(ctx)
			if err == nil {
				t.Fatal("CheckConnect with a wrong password succeeded")
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("CheckConnect with a wrong password waited out its connect timeout: %v; want the refusal at once", err)
			}
			if strings.Contains(err.Error(), wrong) || strings.Contains(err.Error(), secret) {
				t.Errorf("error %q contains a password", err)
			}
		})
	}
}

// writePEM writes blocks of type typ to a new file in dir.
func writePEM(t *testing.T, dir, name, typ string, der []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

type testCert struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	der     []byte
	keyDER  []byte
	tlsCert tls.Certificate
}

func issue(t *testing.T, tmpl *x509.Certificate, parent *testCert) *testCert {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, parentCert := key, tmpl
	if parent != nil {
		signer, parentCert = parent.key, parent.cert
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parentCert, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return &testCert{cert: cert, key: key, der: der, keyDER: keyDER,
		tlsCert: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}}
}

// TestKafkaMutualTLS runs kfake behind TLS requiring client certificates:
// with the CA file and a client certificate the sink connects, produces and
// reads back; without a client certificate, or without the CA, it fails.
func TestKafkaMutualTLS(t *testing.T) {
	now := time.Now()
	ca := issue(t, &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "clickgen test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}, nil)
	server := issue(t, &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "broker"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
	}, ca)
	client := issue(t, &x509.Certificate{
		SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "clickgen"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature,
	}, ca)
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	_, addrs := newCluster(t, kfake.TLS(&tls.Config{
		Certificates: []tls.Certificate{server.tlsCert},
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		MinVersion:   tls.VersionTLS12,
	}))

	dir := t.TempDir()
	files := TLSConfig{
		CAFile:   writePEM(t, dir, "ca.pem", "CERTIFICATE", ca.der),
		CertFile: writePEM(t, dir, "client.pem", "CERTIFICATE", client.der),
		KeyFile:  writePEM(t, dir, "client.key", "EC PRIVATE KEY", client.keyDER),
	}
	ctx := context.Background()
	k := newKafka(t, addrs, TLS(files), ConnectTimeout(5*time.Second))
	if err := k.CheckConnect(ctx); err != nil {
		t.Fatalf("CheckConnect over mutual TLS: %v", err)
	}
	sendAll(t, k, testMessages("hits", 100))
	if got := len(consumeAll(t, addrs, "hits", TLS(files))); got != 100 {
		t.Errorf("read back %d records over TLS, want 100", got)
	}
	if !strings.Contains(k.String(), "tls=on") {
		t.Errorf("String() = %q, want tls=on", k.String())
	}

	// Settings read the files once, with the caller's context: the options carry their
	// contents, so a client built after the files are gone still connects.
	st := DefaultSettings()
	st.Brokers, st.Topic = addrs, "hits"
	st.TLSCA, st.TLSCert, st.TLSKey = files.CAFile, files.CertFile, files.KeyFile
	if err := st.LoadTLS(ctx); err != nil {
		t.Fatalf("LoadTLS: %v", err)
	}
	moved := t.TempDir()
	for _, f := range []string{files.CAFile, files.CertFile, files.KeyFile} {
		if err := os.Rename(f, filepath.Join(moved, filepath.Base(f))); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.CheckConnect(ctx); err != nil {
		t.Errorf("CheckConnect with the TLS files read and then removed: %v", err)
	}
	if got := len(consumeAll(t, addrs, "hits", st.ConnOpts()...)); got != 100 {
		t.Errorf("read back %d records with Settings.ConnOpts, want 100", got)
	}
	for _, f := range []string{files.CAFile, files.CertFile, files.KeyFile} {
		os.Rename(filepath.Join(moved, filepath.Base(f)), f)
	}

	for name, cfg := range map[string]TLSConfig{
		"no client certificate": {CAFile: files.CAFile},
		"system roots only":     {CertFile: files.CertFile, KeyFile: files.KeyFile},
	} {
		t.Run(name, func(t *testing.T) {
			k := newKafka(t, addrs, TLS(cfg), ConnectTimeout(2*time.Second))
			if err := k.CheckConnect(ctx); err == nil {
				t.Error("CheckConnect succeeded, want a TLS failure")
			}
		})
	}
}

// TestLoadTLSInterrupted is issue 29 N1 for --tls-ca: a CA "file" that is a FIFO nobody
// writes blocked for ever, deaf to signals. LoadTLS waits for it within the context: its
// end ends the wait, and the error is the interruption, not a mistake in the settings.
func TestLoadTLSInterrupted(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "ca.pem")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	st := DefaultSettings()
	st.Brokers, st.Topic, st.TLSCA = Brokers{"127.0.0.1:1"}, "hits", fifo
	ctx, cancel := context.WithCancel(context.Background())
	waiting := make(chan struct{})
	ctx = fileio.WithNotice(ctx, func(fileio.Waiting) { close(waiting) })
	go func() { <-waiting; cancel() }()
	done := make(chan error, 1)
	go func() { done <- st.CheckConnect(ctx) }()
	select {
	case err := <-done:
		var ce *ConfigError
		if !errors.Is(err, context.Canceled) || errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "TLS CA file: read "+fifo+": interrupted") {
			t.Errorf("CheckConnect with a FIFO CA, cancelled: %v; want the interruption, not a *ConfigError", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("CheckConnect with a FIFO CA still waits 30 s after its context ended")
	}
	st.TLSCA = "/dev/zero"
	if err := st.LoadTLS(context.Background()); err == nil || err.Error() != "TLS CA file: read /dev/zero: larger than 1 MiB" {
		t.Errorf("LoadTLS(/dev/zero) = %v, want it refused past 1 MiB", err)
	}
}
