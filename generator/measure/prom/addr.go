package prom

import (
	"net"
	"strconv"
)

// CheckAddr says what is wrong with addr as an address to [Listen] on, before anything
// listens: it must be HOST:PORT (the host may be empty) with a port from 0 to 65535. The
// error is an *[AddrError]. An empty addr, which serves no metrics, is fine.
func CheckAddr(addr string) error {
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return &AddrError{Addr: addr, Problem: "want HOST:PORT, e.g. 127.0.0.1:9100 or :9100"}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return &AddrError{Addr: addr, Problem: "port " + strconv.Quote(port) + " is not a number from 0 to 65535"}
	}
	return nil
}

// AddrError is [CheckAddr]'s refusal of Addr: Problem says what is wrong with it, for a
// caller that names the address its own way.
type AddrError struct {
	Addr    string
	Problem string // e.g. `port "99999" is not a number from 0 to 65535`
}

func (e *AddrError) Error() string {
	return "metrics address " + strconv.Quote(e.Addr) + ": " + e.Problem
}
