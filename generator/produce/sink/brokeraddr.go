package sink

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxHostLen is the longest host name a broker address may have: DNS's 255 characters.
const MaxHostLen = 255

// maxShownBroker bounds a broker address shown in an error, in bytes.
const maxShownBroker = 64

// The refusals of a broker address ([Brokers.Set], and [NewKafka] of [SeedBrokers]), each
// wrapped in a *[BrokerError]: the address is not HOST:PORT, and a client would have
// retried a name that no resolver knows for the whole connect timeout (issue 35).
var (
	ErrBrokerScheme   = errors.New("a scheme is not part of a Kafka address (TLS and SASL are settings of their own): write HOST:PORT")
	ErrBrokerUserInfo = errors.New("user information is not part of a Kafka address (the SASL user and password are settings of their own, the password never in an address): write HOST:PORT")
	ErrBrokerIPv6     = errors.New("an IPv6 address goes in brackets: [ADDRESS]:PORT")
	ErrBrokerSpace    = errors.New("a space or a control character is not part of a Kafka address")
	ErrBrokerHost     = errors.New("no host: write HOST:PORT")
	ErrBrokerLong     = fmt.Errorf("a host name longer than %d characters", MaxHostLen)
	ErrBrokerPort     = errors.New("want 1 to 65535")
)

// BrokerError is the refusal of one broker address: the address as [ShownBroker] shows it
// (a password masked, cut) and why.
type BrokerError struct {
	Shown string
	Err   error
}

func (e *BrokerError) Error() string { return fmt.Sprintf("broker %q: %v", e.Shown, e.Err) }
func (e *BrokerError) Unwrap() error { return e.Err }

// check refuses a broker address that is not HOST:PORT (or HOST, for Kafka's 9092), or an
// IPv6 address in brackets: a scheme ("http://", "sasl://"), user information
// ("alice:PW@host:9092", whose password is masked in the refusal), a bare IPv6 address
// ("::1:9092" is a valid IPv6 address, not ::1 and a port), a space or a control character,
// no host, a host longer than [MaxHostLen], or a port no connection can reach (0, above
// 65535, not a number). Each was taken as a host name and retried for the whole connect
// timeout, printed in full (a 100 000-character host twice).
func (b Brokers) check() error {
	for _, e := range b {
		if err := checkBroker(e); err != nil {
			return &BrokerError{Shown: ShownBroker(e), Err: err}
		}
	}
	return nil
}

func checkBroker(e string) error {
	switch {
	case strings.Contains(e, "://"):
		return ErrBrokerScheme
	case strings.Contains(e, "@"):
		return ErrBrokerUserInfo
	case strings.ContainsFunc(e, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }):
		return ErrBrokerSpace
	}
	host, port := e, ""
	if strings.HasPrefix(e, "[") || strings.Count(e, ":") == 1 {
		h, p, err := net.SplitHostPort(e)
		if err != nil && strings.HasPrefix(e, "[") && strings.HasSuffix(e, "]") && strings.Count(e, "[") == 1 {
			h, p, err = strings.Trim(e, "[]"), "", nil // [::1]: Kafka's port
		}
		if err != nil {
			return fmt.Errorf("not HOST:PORT: %w", trimAddrErr(err))
		}
		host, port = h, p
	} else if strings.Count(e, ":") > 1 {
		return ErrBrokerIPv6
	}
	switch {
	case host == "":
		return ErrBrokerHost
	case len(host) > MaxHostLen:
		return ErrBrokerLong
	}
	if strings.Contains(e, "]") {
		if _, err := netip.ParseAddr(host); err != nil { // a zone (fe80::1%eth0) is one
			return ErrBrokerIPv6
		}
	}
	if port != "" {
		if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
			return fmt.Errorf("port %q, %w", cutText(port, 16), ErrBrokerPort)
		}
	} else if strings.HasSuffix(e, ":") {
		return fmt.Errorf("port \"\", %w", ErrBrokerPort)
	}
	return nil
}

// trimAddrErr is net's address error without the address it quotes (shown already, cut).
func trimAddrErr(err error) error {
	var ae *net.AddrError
	if errors.As(err, &ae) {
		return errors.New(ae.Err)
	}
	return err
}

// ShownBroker is a broker address (or a list of them) as an error or a report may show it:
// everything before its last "@" (user information, and a password that may hold any
// character, a comma or an "@" too) masked as xxxxx, a scheme kept ("sasl://xxxxx@host:9092"),
// and the text cut to 64 bytes, its length said.
func ShownBroker(e string) string {
	if at := strings.LastIndex(e, "@"); at >= 0 {
		scheme := ""
		if i := strings.Index(e[:at], "://"); i >= 0 && !strings.ContainsAny(e[:i], ":@/") {
			scheme = e[:i+3]
		}
		e = scheme + "xxxxx" + e[at:]
	}
	return cutText(e, maxShownBroker)
}

// ShownBrokers is a list of broker addresses, comma-separated, as an error or a report may
// show it: each entry as [ShownBroker] shows it, or, when the list holds user information (a
// password may hold a comma), the whole list as one.
func ShownBrokers(list string) string {
	if strings.Contains(list, "@") {
		return ShownBroker(list)
	}
	entries := strings.Split(list, ",")
	for i, e := range entries {
		entries[i] = ShownBroker(e)
	}
	return strings.Join(entries, ",")
}

// cutText is s cut to at most n bytes on a rune boundary, with its full length said when cut.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:i], len(s))
}
