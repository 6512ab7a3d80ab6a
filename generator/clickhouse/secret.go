package clickhouse

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"
)

// ErrUser is wrapped by [New]'s refusal of the user name given with [User].
var ErrUser = errors.New("clickhouse: bad user name")

// masked stands for a secret wherever a URL is shown.
const masked = "xxxxx"

// secretParam reports whether a URL parameter named name carries a secret that a server, or
// a proxy in front of one, reads: ClickHouse's own `password` (which every server takes as
// the password when no basic auth is sent), and any name holding password, passwd, secret,
// token or jwt, in any case, as other servers and proxies spell theirs.
func secretParam(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"password", "passwd", "secret", "token", "jwt"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// shown is u as a message may show it: the password of its user information and the value
// of every parameter [secretParam] names replaced by xxxxx.
func shown(u *url.URL) string {
	v := *u
	if v.User != nil {
		if _, set := v.User.Password(); set {
			v.User = url.UserPassword(v.User.Username(), masked)
		}
	}
	if v.RawQuery != "" {
		v.RawQuery = shownQuery(v.RawQuery)
	}
	return v.String()
}

// shownQuery masks the values of the secret parameters of a raw query, keeping the rest as
// written.
func shownQuery(raw string) string {
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		k, _, hasValue := strings.Cut(p, "=")
		if name, err := url.QueryUnescape(k); err == nil && secretParam(name) && hasValue {
			parts[i] = k + "=" + masked
		} else if err != nil && hasValue {
			parts[i] = k + "=" + masked // a name that does not decode: its value is not shown
		}
	}
	return strings.Join(parts, "&")
}

// checkSecrets refuses a URL that carries a secret: a password in its user information, or a
// parameter [secretParam] names. The refusal shows the URL with the secret masked.
func checkSecrets(u *url.URL) error {
	if _, set := u.User.Password(); set {
		return fmt.Errorf("%w: %s carries a password; give it through the environment instead", ErrURL, shown(u))
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return fmt.Errorf("%w: %s: its parameters do not decode", ErrURL, shown(u))
	}
	for name := range q {
		if secretParam(name) {
			return fmt.Errorf("%w: %s carries a secret in its parameter %q; give the password through the environment instead", ErrURL, shown(u), name)
		}
	}
	return nil
}

// checkUserName refuses a user name that HTTP basic auth cannot carry as it is: an empty one
// (which would be sent as an empty user, not as the server's default), one holding a colon
// (basic auth ends the user at the first colon: "a:b" would be user "a" with password "b"),
// and one with control characters.
func checkUserName(name string) error {
	switch {
	case name == "":
		return errors.New("an empty user name; leave the user out for the server's default user")
	case strings.Contains(name, ":"):
		return errors.New("a user name holding ':' cannot be sent (HTTP basic auth would cut it there, and take the rest for a password); the password comes from the environment")
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return errors.New("a user name holding control characters")
	}
	return nil
}

// urlUser is the user a URL names, in its user information or in a `user` parameter (which
// ClickHouse reads when no basic auth is sent), with the parameter removed from u: the
// client sends the user as basic auth, so the user it says it is is the one the server uses.
// Two different users, a repeated or empty parameter, or a name [checkUserName] refuses are
// errors.
func urlUser(u *url.URL) (name string, named bool, err error) {
	if u.User != nil {
		name, named = u.User.Username(), true
		if err := checkUserName(name); err != nil {
			return "", false, fmt.Errorf("%w: %s: %v", ErrURL, shown(u), err)
		}
	}
	q := u.Query()
	values, ok := q["user"]
	if !ok {
		return name, named, nil
	}
	switch {
	case len(values) > 1:
		return "", false, fmt.Errorf("%w: %s names the user parameter %d times", ErrURL, shown(u), len(values))
	case checkUserName(values[0]) != nil:
		return "", false, fmt.Errorf("%w: %s: its user parameter: %v", ErrURL, shown(u), checkUserName(values[0]))
	case named && values[0] != name:
		return "", false, fmt.Errorf("%w: %s names two users, %q and %q", ErrURL, shown(u), name, values[0])
	}
	q.Del("user")
	u.RawQuery = q.Encode()
	return values[0], true, nil
}
