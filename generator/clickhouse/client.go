// Package clickhouse is a small client of ClickHouse's HTTP interface (port 8123, or https):
// it POSTs one query and streams the answer in RowBinary, the server's plain binary format.
// The HTTP interface is a stable, documented protocol; this client works against servers as
// old as 18.16 (Debian's package) and as new as 26.x, and against anything that speaks the
// same protocol.
//
// What it promises:
//
//   - Every wait is bounded: connecting by the connect timeout, the server's first byte by
//     the first-byte timeout (a query sorting millions of rows answers only when sorted), and
//     every later silence by the idle timeout. A server that accepts and never answers, or
//     stops halfway, is an error within the bound, not a hang ([TimeoutError]).
//   - Cancelling the context ends a read at once.
//   - The password goes only into the Authorization header (HTTP basic auth, which 18.16 and
//     every later server accept). It never appears in an error (a server's message that
//     repeats it is masked), and a URL that carries one — in its user information, in a
//     `password` parameter or in any parameter a server or proxy reads as a secret — is
//     refused without showing it. The user a URL names in a `user` parameter is sent as basic
//     auth too, so [Client.UserName] is the user the server uses.
//   - Every query carries a query id of the client's own and a server-side time limit
//     (max_execution_time, the first-byte timeout unless [ServerTimeLimit] says otherwise).
//     A query the client stops reading before its end (its context cancelled, a timeout, a
//     broken answer) is cancelled on the server with KILL QUERY by that id: a server (18.16)
//     does not stop a query when its client goes away.
//   - A server's error ("Code: 60. DB::Exception: ...") is a [*ServerError] with its code;
//     errors.Is tells [ErrUnknownTable], [ErrUnknownColumn] and [ErrAuth] apart. A body that
//     ends inside a row, or carries an exception appended after rows were sent (a server
//     fails mid-stream after its 200), is an error too, never a short answer.
//
// A Client is safe for concurrent use; each [Rows] belongs to one goroutine.
package clickhouse

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
)

// Defaults of the timeouts.
const (
	DefaultConnectTimeout   = 10 * time.Second
	DefaultFirstByteTimeout = 2 * time.Minute
	DefaultIdleTimeout      = 2 * time.Minute
)

// Client queries one ClickHouse server over HTTP. It is safe for concurrent use.
type Client struct {
	endpoint *url.URL // scheme, host, path and base parameters; never user info
	user     string
	password string
	hasAuth  bool
	cfg      cfg
	hc       *http.Client
	queries  queryIDs
	noLimit  atomic.Bool // the server refused the time limit's settings (a read-only user)
}

type cfg struct {
	user                 *string
	password             string
	ca                   []byte
	caSet                bool
	connect, first, idle time.Duration
	maxErrorBody         int
	limit                *time.Duration // nil: the first-byte timeout
	cancelWait           time.Duration
	logf                 func(format string, args ...any)
}

func defaultCfg() cfg {
	return cfg{connect: DefaultConnectTimeout, first: DefaultFirstByteTimeout, idle: DefaultIdleTimeout, maxErrorBody: 64 << 10,
		cancelWait: DefaultCancelWait, logf: func(string, ...any) {}}
}

// Opt configures a [Client].
type Opt func(*cfg)

// User sets the user name, overriding the URL's user and the default of none (the server's
// default user).
func User(name string) Opt { return func(c *cfg) { c.user = &name } }

// Password sets the password sent with the user, overriding the default of none. It is sent
// only as HTTP basic auth and never shows in errors.
func Password(p string) Opt { return func(c *cfg) { c.password = p } }

// RootCAs sets the PEM certificates an https server is verified with, overriding the
// system's roots.
func RootCAs(pem []byte) Opt { return func(c *cfg) { c.ca, c.caSet = bytes.Clone(pem), true } }

// ConnectTimeout sets how long connecting (TCP and TLS) may take, overriding the default of
// [DefaultConnectTimeout].
func ConnectTimeout(d time.Duration) Opt { return func(c *cfg) { c.connect = d } }

// FirstByteTimeout sets how long the server may take to start answering a query, overriding
// the default of [DefaultFirstByteTimeout]. ClickHouse answers a sorted query only once it
// is sorted, so this bounds the server's work before the first row.
func FirstByteTimeout(d time.Duration) Opt { return func(c *cfg) { c.first = d } }

// IdleTimeout sets how long the server may stay silent once it has started answering,
// overriding the default of [DefaultIdleTimeout].
func IdleTimeout(d time.Duration) Opt { return func(c *cfg) { c.idle = d } }

// ServerTimeLimit sets the server-side limit of every query (ClickHouse's max_execution_time,
// in whole seconds, rounded up), overriding the default of the first-byte timeout; 0 sends
// none. A server that refuses the setting (a read-only user) is queried without it, said
// once to the [Logf] function.
func ServerTimeLimit(d time.Duration) Opt { return func(c *cfg) { c.limit = &d } }

// CancelWait sets how long cancelling a query on the server may take (KILL QUERY, then
// seeing it gone from system.processes), overriding the default of [DefaultCancelWait].
func CancelWait(d time.Duration) Opt { return func(c *cfg) { c.cancelWait = d } }

// Logf sets the function the client tells what it did on its own (a query cancelled on the
// server, a time limit the server refused), overriding the default of telling nobody. It is
// called from the goroutine that queried, and its lines name no secret.
func Logf(f func(format string, args ...any)) Opt { return func(c *cfg) { c.logf = f } }

// ErrURL is wrapped by every refusal of a URL by [New].
var ErrURL = errors.New("clickhouse: bad URL")

// New returns a client of the server at rawURL: http://host:8123 or https://host:8443,
// optionally with a user (http://user@host:8123, or a `user` parameter), a path (a proxy's
// prefix, kept as given) and parameters ("?database=ods", sent with every query). A URL
// without a scheme, with another scheme, without a host, with a fragment, or with a secret (a
// password in its user information, a `password` parameter, any parameter [New]'s
// documentation of secrets names) is refused without showing the secret: the password comes
// only from [Password], so it is never written on a command line. A user name that basic
// auth cannot carry as it is (empty, holding a colon or control characters) is refused, from
// the URL as from [User] ([ErrUser]).
func New(rawURL string, opts ...Opt) (*Client, error) {
	c := defaultCfg()
	for _, o := range opts {
		o(&c)
	}
	if c.connect <= 0 || c.first <= 0 || c.idle <= 0 || c.cancelWait <= 0 || c.limit != nil && *c.limit < 0 {
		return nil, errors.New("clickhouse: timeouts must be positive")
	}
	if c.user != nil {
		if err := checkUserName(*c.user); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUser, err)
		}
	}
	u, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	cl := &Client{cfg: c, password: c.password, queries: newQueryIDs()}
	if name, named, err := urlUser(u); err != nil {
		return nil, err
	} else if named {
		cl.user, cl.hasAuth = name, true
	}
	if c.user != nil {
		cl.user, cl.hasAuth = *c.user, true
	}
	if c.password != "" {
		cl.hasAuth = true
	}
	u.User = nil
	cl.endpoint = u
	tr := &http.Transport{
		// One query per connection: a pooled connection would carry its read deadline into
		// the next request, and the queries are few and long.
		DisableKeepAlives:  true,
		DisableCompression: true,
		DialContext:        cl.dial,
		// Bounds the TLS handshake as the dialer bounds TCP.
		TLSHandshakeTimeout: c.connect,
		Proxy:               http.ProxyFromEnvironment,
	}
	if u.Scheme == "https" {
		tc := &tls.Config{MinVersion: tls.VersionTLS12}
		if c.caSet {
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(c.ca) {
				return nil, errors.New("clickhouse: the CA holds no PEM certificate")
			}
			tc.RootCAs = pool
		}
		tr.TLSClientConfig = tc
	} else if c.caSet {
		return nil, fmt.Errorf("%w: a CA is given but %s is not https", ErrURL, shown(u))
	}
	cl.hc = &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse // never resend credentials to another place
	}}
	return cl, nil
}

// parseURL checks rawURL as [New] documents.
func parseURL(rawURL string) (*url.URL, error) {
	if rawURL == "" {
		return nil, fmt.Errorf("%w: empty", ErrURL)
	}
	if !strings.Contains(rawURL, "://") {
		return nil, fmt.Errorf("%w: %q has no scheme; write http://%s (or https://)", ErrURL, redactedText(rawURL), redactedText(rawURL))
	}
	if strings.ContainsFunc(rawURL, unicode.IsControl) {
		return nil, fmt.Errorf("%w: %q holds control characters", ErrURL, redactedText(rawURL))
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Parse's error quotes the whole text, password included: say it without.
		return nil, fmt.Errorf("%w: %q does not parse", ErrURL, redactedText(rawURL))
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("%w: scheme %q; want http or https", ErrURL, u.Scheme)
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("%w: %s has no host", ErrURL, shown(u))
	case u.Fragment != "" || strings.Contains(rawURL, "#"):
		return nil, fmt.Errorf("%w: %s has a fragment", ErrURL, shown(u))
	}
	if err := checkSecrets(u); err != nil {
		return nil, err
	}
	if p := u.Port(); p != "" {
		var n int
		if _, err := fmt.Sscanf(p, "%d", &n); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%w: port %q", ErrURL, p)
		}
	}
	if u.Path == "" {
		u.Path = "/"
	}
	return u, nil
}

// Redacted is rawURL, or any text that may hold one, as a message or a report may show it:
// a password in user information ("user:pw@") and the values of the parameters a server or
// a proxy reads as secrets replaced by xxxxx, whether or not the text parses.
func Redacted(rawURL string) string { return redactedText(rawURL) }

// redactedText hides the secrets of text that is not a parseable URL: anything between
// "://" and "@" after a colon, and the values of the secret parameters after a "?".
func redactedText(s string) string {
	if q := strings.Index(s, "?"); q >= 0 {
		return redactedText(s[:q]) + "?" + shownQuery(s[q+1:])
	}
	i := strings.Index(s, "://")
	rest := s
	if i >= 0 {
		rest = s[i+3:]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return s
	}
	if c := strings.Index(rest[:at], ":"); c >= 0 {
		return s[:len(s)-len(rest)] + rest[:c] + ":" + masked + rest[at:]
	}
	return s
}

// Endpoint returns the server's URL without user information.
func (c *Client) Endpoint() string { return c.endpoint.String() }

// UserName returns the user the client authenticates as, "" for the server's default.
func (c *Client) UserName() string { return c.user }

// Secure reports whether the client speaks TLS (https): whether a password it sends is
// encrypted on its way.
func (c *Client) Secure() bool { return c.endpoint.Scheme == "https" }

func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: c.cfg.connect}
	conn, err := d.DialContext(ctx, network, addr)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() && ctx.Err() == nil {
			return nil, &TimeoutError{Phase: PhaseConnect, After: c.cfg.connect, Addr: addr}
		}
		return nil, err
	}
	return &silenceConn{Conn: conn, first: c.cfg.first, idle: c.cfg.idle}, nil
}

// silenceConn bounds each read: the first by the first-byte timeout, the later ones by the
// idle timeout. The transport reads a connection from one goroutine.
type silenceConn struct {
	net.Conn
	first, idle time.Duration
	started     bool
}

func (c *silenceConn) Read(p []byte) (int, error) {
	d := c.idle
	if !c.started {
		d = c.first
	}
	if err := c.Conn.SetReadDeadline(time.Now().Add(d)); err != nil {
		return 0, err
	}
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.started = true
	}
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		phase := PhaseIdle
		if !c.started {
			phase = PhaseFirstByte
		}
		return n, &TimeoutError{Phase: phase, After: d, Addr: c.RemoteAddr().String()}
	}
	return n, err
}

// Ping asks the server for its version (SELECT version()): it proves the address, the
// credentials and the protocol before anything else is read.
func (c *Client) Ping(ctx context.Context) (version string, err error) {
	rows, err := c.Query(ctx, "SELECT version()")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	b, err := rows.String(nil)
	if err != nil {
		return "", err
	}
	if err := rows.End(); err != nil {
		return "", err
	}
	return string(b), nil
}

// Query sends sql (one SELECT, without a FORMAT clause) and returns its rows in RowBinary:
// read them with the methods of [Rows] in the order of the query's columns, then call
// [Rows.End] to learn that the answer was complete, and [Rows.Close]. A server's error before
// the first row is returned here as a [*ServerError]. A query that ends otherwise than by
// its answer read whole (the context cancelled, a timeout, a broken connection, [Rows.Close]
// before the end) is cancelled on the server before Query, or Close, returns.
func (c *Client) Query(ctx context.Context, sql string) (*Rows, error) {
	return c.query(ctx, sql, true)
}

// query is Query; cancellable says whether a query left unfinished is cancelled on the
// server (the cancellation's own queries are not).
func (c *Client) query(ctx context.Context, sql string, cancellable bool) (*Rows, error) {
	for {
		id, limited := c.queries.next(), !c.noLimit.Load()
		resp, err := c.post(ctx, sql, id, limited)
		if err != nil {
			if cancellable && reached(err) {
				c.cancel(id)
			}
			return nil, c.transportError(ctx, err)
		}
		if resp.StatusCode == http.StatusOK {
			rows := newRows(resp.Body, func(err error) error { return c.transportError(ctx, err) })
			if cancellable {
				rows.abort = func() { c.cancel(id) }
			}
			return rows, nil
		}
		b, rerr := io.ReadAll(io.LimitReader(resp.Body, int64(c.cfg.maxErrorBody)))
		resp.Body.Close()
		if rerr != nil && len(b) == 0 {
			if cancellable {
				c.cancel(id)
			}
			return nil, c.transportError(ctx, rerr)
		}
		se := parseServerError(resp.StatusCode, resp.Header.Get("X-ClickHouse-Exception-Code"), b)
		if limited && se.Code == codeReadonly && strings.Contains(se.Message, "max_execution_time") && c.noLimit.CompareAndSwap(false, true) {
			c.cfg.logf("clickhouse: the server refuses a time limit for this user (%s): queries run without max_execution_time, and one stopped is cancelled with KILL QUERY", se.Message)
			continue
		}
		se.Message = c.mask(se.Message)
		return nil, se
	}
}

// codeReadonly is ClickHouse's READONLY: a setting a read-only user may not change.
const codeReadonly = 164

// post sends sql with the query id id and, when limited, the time limit.
func (c *Client) post(ctx context.Context, sql, id string, limited bool) (*http.Response, error) {
	q := c.endpoint.Query()
	q.Set("query_id", id)
	if s := c.limitSeconds(); limited && s > 0 {
		q.Set("max_execution_time", strconv.FormatInt(s, 10))
		q.Set("timeout_overflow_mode", "throw") // never a short answer said to be whole
	}
	body := strings.TrimRight(strings.TrimSpace(sql), ";") + "\nFORMAT RowBinary"
	u := *c.endpoint
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	if c.hasAuth {
		req.SetBasicAuth(c.user, c.password)
	}
	return c.hc.Do(req)
}

// limitSeconds is the server-side time limit in whole seconds, rounded up; 0 for none.
func (c *Client) limitSeconds() int64 {
	d := c.cfg.first
	if c.cfg.limit != nil {
		d = *c.cfg.limit
	}
	return int64((d + time.Second - 1) / time.Second)
}

// mask hides the client's password in text from the server.
func (c *Client) mask(text string) string {
	if c.password == "" {
		return text
	}
	return strings.ReplaceAll(text, c.password, masked)
}

// transportError words a failure of the HTTP exchange: the context's own error when it was
// cancelled, a TimeoutError as is, the rest wrapped with the server's address (never the
// credentials: the URL holds none).
func (c *Client) transportError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var te *TimeoutError
	if errors.As(err, &te) {
		return te
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if c.password != "" && strings.Contains(err.Error(), c.password) {
		err = errors.New(c.mask(err.Error()))
	}
	return fmt.Errorf("clickhouse: %s: %w", c.endpoint.Host, err)
}
