package sink

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A broker that refused the connection check is told by its cause (issue 35): TLS spoken to
// a listener without TLS read as refused credentials, a certificate refused at once as
// brokers that could not be reached within the connect timeout, and a port that accepts and
// never answers ended with a bare "context deadline exceeded".

// Mismatches of a [ProtocolError].
const (
	// MismatchClientTLS: the client speaks TLS, the listener speaks Kafka without it.
	MismatchClientTLS = "client TLS"
	// MismatchListenerTLS: the listener speaks TLS, the client does not.
	MismatchListenerTLS = "listener TLS"
	// MismatchListenerSASL: the listener wants SASL, the client speaks none.
	MismatchListenerSASL = "listener SASL"
)

// ProtocolError is a connection check that failed because the client and the listener speak
// differently (Mismatch): TLS on one side only, or SASL wanted and not spoken. The listener
// was asked the other way and answered; credentials, if any, were never checked.
type ProtocolError struct {
	Brokers  string
	Mismatch string
	Err      error
}

func (e *ProtocolError) Error() string {
	var what string
	switch e.Mismatch {
	case MismatchClientTLS:
		what = "speaks Kafka without TLS on this port, and this client speaks TLS (a SASL password, if any, was never checked): connect without TLS, or to its TLS listener's port"
	case MismatchListenerTLS:
		what = "speaks TLS on this port, and this client does not: connect with TLS, or to its listener without TLS"
	default:
		what = "closed the connection after the first request and answers it otherwise: its listener on this port wants SASL, and this client speaks none"
	}
	return fmt.Sprintf("Kafka at %s %s: %v", e.Brokers, what, e.Err)
}

func (e *ProtocolError) Unwrap() error { return e.Err }

// CertificateError is a TLS handshake that failed on a certificate: the broker's, which this
// client refused (Client false: unknown authority, another name, expired), or this client's,
// which the broker refused or required (Client true). Nothing was retried: a certificate does
// not change within the connect timeout.
type CertificateError struct {
	Brokers string
	Client  bool
	Err     error
}

func (e *CertificateError) Error() string {
	if e.Client {
		return fmt.Sprintf("Kafka at %s refused this client's certificate, or wants one: %v", e.Brokers, e.Err)
	}
	return fmt.Sprintf("Kafka at %s presented a certificate this client refused: %v", e.Brokers, e.Err)
}

func (e *CertificateError) Unwrap() error { return e.Err }

// certificateCause is err as a *CertificateError when a certificate failed it, else nil.
func (k *Kafka) certificateCause(err error) error {
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	var cv *tls.CertificateVerificationError
	if errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci) || errors.As(err, &cv) {
		return &CertificateError{Brokers: k.brokerList(), Err: err}
	}
	// The broker's alert: "remote error: tls: bad certificate", "certificate required", …
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "remote error" && strings.Contains(oe.Err.Error(), "certificate") {
		return &CertificateError{Brokers: k.brokerList(), Client: true, Err: err}
	}
	return nil
}

// answered reports whether err is an answer of some kind — the connection was made and then
// closed, or the first bytes were not Kafka's — after which the protocol may be the cause.
func answered(err error) bool {
	var fe *kgo.ErrFirstReadEOF
	return errors.Is(err, io.EOF) || errors.As(err, &fe) || strings.Contains(err.Error(), "invalid large response size") ||
		errors.Is(err, kerr.IllegalSaslState)
}

// probeWait bounds each probe of the cause of a failed connection check; silentProbeWait the
// one of a listener that accepted and never answered, which adds to the connect timeout.
const (
	probeWait       = 2 * time.Second
	silentProbeWait = 500 * time.Millisecond
)

// protocolCause is err as a *ProtocolError when the listener answers the other way: without
// TLS to a client that spoke TLS, with TLS to one that did not, or without SASL to one that
// spoke none and was hung up on after its first request. Nil otherwise. silent says the
// listener accepted and never answered (a listener without TLS may wait for the rest of a
// "request" as long as a TLS hello's first bytes say).
func (k *Kafka) protocolCause(ctx context.Context, err error, silent bool) error {
	if !answered(err) && !silent {
		return nil
	}
	wait := probeWait
	if silent {
		// Only TLS spoken to a listener without it leaves a listener silent (a TLS listener
		// answers plaintext with an alert); a broker answers its ApiVersions at once.
		if k.cfg.tlsCfg == nil {
			return nil
		}
		wait = silentProbeWait
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), wait)
	defer cancel()
	switch {
	case k.cfg.tlsCfg != nil && k.answersApiVersions(ctx, false):
		return &ProtocolError{Brokers: k.brokerList(), Mismatch: MismatchClientTLS, Err: err}
	case k.cfg.tlsCfg == nil && k.speaksTLS(ctx):
		return &ProtocolError{Brokers: k.brokerList(), Mismatch: MismatchListenerTLS, Err: err}
	case k.cfg.sasl == nil && errors.Is(err, io.EOF) && k.answersApiVersions(ctx, k.cfg.tlsCfg != nil):
		return &ProtocolError{Brokers: k.brokerList(), Mismatch: MismatchListenerSASL, Err: err}
	}
	return nil
}

// answersApiVersions reports whether the first broker answers an ApiVersions request, which
// a listener answers as the first request whether or not it wants SASL, spoken with TLS (the
// client's settings) or without. The request is written by hand: a client library sends its
// own ApiVersions first, and a SASL listener hangs up on a second one.
func (k *Kafka) answersApiVersions(ctx context.Context, withTLS bool) bool {
	addr := brokerAddr(k.cfg.brokers[0])
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer conn.Close()
	if withTLS {
		tc := k.cfg.tlsCfg.Clone()
		if tc.ServerName == "" {
			tc.ServerName, _, _ = net.SplitHostPort(addr)
		}
		tconn := tls.Client(conn, tc)
		if err := tconn.HandshakeContext(ctx); err != nil {
			return false
		}
		conn = tconn
	}
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	// ApiVersions v0: size, api key 18, version 0, correlation id 1, client id "clickgen".
	const clientID = "clickgen"
	req := binary.BigEndian.AppendUint32(nil, uint32(2+2+4+2+len(clientID)))
	req = binary.BigEndian.AppendUint16(req, 18)
	req = binary.BigEndian.AppendUint16(req, 0)
	req = binary.BigEndian.AppendUint32(req, 1)
	req = binary.BigEndian.AppendUint16(req, uint16(len(clientID)))
	req = append(req, clientID...)
	if _, err := conn.Write(req); err != nil {
		return false
	}
	var head [8]byte // size, correlation id
	if _, err := io.ReadFull(conn, head[:]); err != nil {
		return false
	}
	size := binary.BigEndian.Uint32(head[:4])
	return size >= 4 && size < 1<<20 && binary.BigEndian.Uint32(head[4:]) == 1
}

// brokerAddr is a broker address with Kafka's port when it names none.
func brokerAddr(b string) string {
	if _, _, err := net.SplitHostPort(b); err != nil {
		return net.JoinHostPort(strings.Trim(b, "[]"), "9092")
	}
	return b
}

// speaksTLS reports whether the first broker completes a TLS handshake, or fails it on a
// certificate (which only a TLS listener presents): the client's CA is not needed to tell.
func (k *Kafka) speaksTLS(ctx context.Context) bool {
	addr := brokerAddr(k.cfg.brokers[0])
	host, _, _ := net.SplitHostPort(addr)
	d := tls.Dialer{NetDialer: &net.Dialer{}, Config: &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err == nil {
		conn.Close()
		return true
	}
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	var cv *tls.CertificateVerificationError
	return errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci) || errors.As(err, &cv)
}

// accepts reports whether some broker accepts a TCP connection within probeWait: after a
// connection check that timed out, it tells a port that accepts and never answers from one
// no connection reaches.
func (k *Kafka) accepts(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), probeWait)
	defer cancel()
	for _, b := range k.cfg.brokers {
		var d net.Dialer
		if conn, err := d.DialContext(ctx, "tcp", brokerAddr(b)); err == nil {
			conn.Close()
			return true
		}
	}
	return false
}
