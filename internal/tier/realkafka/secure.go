package realkafka

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/clickgen/clickgen/internal/testenv"
	"github.com/clickgen/clickgen/internal/tier/loopback"
)

// SecureUser and SecurePassword are the SASL user a [Secure] node knows, for PLAIN and for
// SCRAM-SHA-256 and SCRAM-SHA-512 alike.
const (
	SecureUser     = "alice"
	SecurePassword = "alice-secret-pw"
)

// Secure is one Kafka node with a listener of each security protocol beside its PLAINTEXT
// one, each on a port of its own: SASL without TLS, TLS, TLS requiring a client certificate,
// and SASL over TLS. The node's certificate (for 127.0.0.1) and a client certificate the
// mutual-TLS listener accepts are signed by a CA of the test's own; the SASL listeners take
// PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 for [SecureUser] with [SecurePassword].
type Secure struct {
	*Cluster
	// The listeners' addresses, host:port.
	SASLPlaintext, SSL, MutualTLS, SASLSSL string
	// Files (PEM) in the node's folder: the CA, and the client's certificate and key.
	CAFile, ClientCertFile, ClientKeyFile string
}

// StartSecure starts a [Secure] node for t, killed when t ends; it skips as [Start] does.
func StartSecure(t testing.TB) *Secure {
	t.Helper()
	testenv.Need(t, testenv.Kafka, Available())
	if testing.Short() {
		t.Skip("real Kafka tier: not under -short")
	}
	script, _, _ := Script()
	s := &Secure{Cluster: &Cluster{t: t, script: script}}
	t.Cleanup(s.close)
	for attempt := 1; ; attempt++ {
		base := loopback.Base(t, 0, 1, 2, 3, 4, 100)
		s.configure = s.listeners(base)
		err := s.start(1, base)
		if err == nil {
			break
		}
		s.close()
		if attempt == 3 {
			t.Fatalf("realkafka: %v", err)
		}
		t.Logf("realkafka: %v; trying other ports", err)
	}
	s.addSCRAM()
	return s
}

// listeners returns the configuration step that adds the listeners on ports base+1 … base+4
// and writes the certificates.
func (s *Secure) listeners(base int) func() error {
	addr := func(i int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(base+i)) }
	s.SASLPlaintext, s.SSL, s.MutualTLS, s.SASLSSL = addr(1), addr(2), addr(3), addr(4)
	return func() error {
		dir := filepath.Join(s.dir, "node1")
		s.CAFile, s.ClientCertFile, s.ClientKeyFile = filepath.Join(dir, "ca.pem"), filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem")
		broker := filepath.Join(dir, "broker.pem")
		if err := writeCerts(s.CAFile, broker, s.ClientCertFile, s.ClientKeyFile); err != nil {
			return err
		}
		jaas := func(listener, mech, module, users string) string {
			return fmt.Sprintf("listener.name.%s.%s.sasl.jaas.config=%s required%s;\n", listener, mech, module, users)
		}
		plain := "org.apache.kafka.common.security.plain.PlainLoginModule"
		scram := "org.apache.kafka.common.security.scram.ScramLoginModule"
		users := fmt.Sprintf(" user_%s=%q", SecureUser, SecurePassword)
		conf := fmt.Sprintf(`
listeners=PLAINTEXT://%[1]s,CONTROLLER://127.0.0.1:%[2]d,SASL_PLAINTEXT://%[3]s,SSL://%[4]s,MTLS://%[5]s,SASL_SSL://%[6]s
advertised.listeners=PLAINTEXT://%[1]s,SASL_PLAINTEXT://%[3]s,SSL://%[4]s,MTLS://%[5]s,SASL_SSL://%[6]s
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SSL:SSL,MTLS:SSL,SASL_SSL:SASL_SSL
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
ssl.keystore.type=PEM
ssl.keystore.location=%[7]s
ssl.truststore.type=PEM
ssl.truststore.location=%[8]s
listener.name.mtls.ssl.client.auth=required
`, addr(0), base+100, s.SASLPlaintext, s.SSL, s.MutualTLS, s.SASLSSL, broker, s.CAFile)
		for _, l := range []string{"sasl_plaintext", "sasl_ssl"} {
			conf += jaas(l, "plain", plain, users)
			conf += jaas(l, "scram-sha-256", scram, "")
			conf += jaas(l, "scram-sha-512", scram, "")
		}
		f, err := os.OpenFile(filepath.Join(dir, "server.properties"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteString(conf) // later keys win in a Java properties file
		return err
	}
}

// addSCRAM gives SecureUser SCRAM credentials, through the PLAINTEXT listener.
func (s *Secure) addSCRAM() {
	s.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.Addrs()[0]))
	if err != nil {
		s.t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, m := range []kadm.ScramMechanism{kadm.ScramSha256, kadm.ScramSha512} { // one user per request
		up := []kadm.UpsertSCRAM{{User: SecureUser, Mechanism: m, Iterations: 4096, Password: SecurePassword}}
		res, err := kadm.NewClient(cl).AlterUserSCRAMs(ctx, nil, up)
		if err == nil {
			err = res.Error()
		}
		if err != nil {
			s.t.Fatalf("realkafka: SCRAM credentials (%v): %v", m, err)
		}
	}
}

// writeCerts writes a CA, a certificate for 127.0.0.1 with its key (broker, the key first, as
// Kafka's PEM key store reads it) and a client certificate with its key, all signed by the CA.
func writeCerts(caFile, brokerFile, clientFile, clientKeyFile string) error {
	now := time.Now()
	newKey := func() (*ecdsa.PrivateKey, error) { return ecdsa.GenerateKey(elliptic.P256(), rand.Reader) }
	caKey, err := newKey()
	if err != nil {
		return err
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "clickgen test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	ca, _ := x509.ParseCertificate(caDER)
	leaf := func(serial int64, name string, usage x509.ExtKeyUsage, ip bool) (cert, key []byte, err error) {
		k, err := newKey()
		if err != nil {
			return nil, nil, err
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
			ExtKeyUsage: []x509.ExtKeyUsage{usage}}
		if ip {
			tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			return nil, nil, err
		}
		p8, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			return nil, nil, err
		}
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: p8}), nil
	}
	brokerCert, brokerKey, err := leaf(2, "127.0.0.1", x509.ExtKeyUsageServerAuth, true)
	if err != nil {
		return err
	}
	clientCert, clientKey, err := leaf(3, "clickgen test client", x509.ExtKeyUsageClientAuth, false)
	if err != nil {
		return err
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	for path, data := range map[string][]byte{caFile: caPEM, brokerFile: append(brokerKey, brokerCert...),
		clientFile: clientCert, clientKeyFile: clientKey} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return err
		}
	}
	return nil
}
