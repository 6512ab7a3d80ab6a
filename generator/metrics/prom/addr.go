package prom

import (
	"fmt"
	"net"
	"strconv"
)

// CheckAddr says what is wrong with addr as an address to [Listen] on, before anything
// listens: it must be HOST:PORT (the host may be empty) with a port from 0 to 65535. The
// error names --metrics-addr, the flag that sets it. An empty addr, which serves no
// metrics, is fine.
func CheckAddr(addr string) error {
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--metrics-addr %q: want HOST:PORT, e.g. 127.0.0.1:9100 or :9100", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("--metrics-addr %q: port %q is not a number from 0 to 65535", addr, port)
	}
	return nil
}
