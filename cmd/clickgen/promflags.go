package main

import (
	"errors"
	"fmt"

	"github.com/clickgen/clickgen/generator/measure/prom"
)

// checkMetricsAddr refuses a --metrics-addr that cannot be listened on (prom.CheckAddr),
// naming the flag.
func checkMetricsAddr(addr string) error {
	err := prom.CheckAddr(addr)
	if ae := (*prom.AddrError)(nil); errors.As(err, &ae) {
		return fmt.Errorf("--metrics-addr %q: %s", ae.Addr, ae.Problem)
	}
	return err
}

// listenMetrics serves metrics on --metrics-addr addr (prom.ListenOn): none when it is empty;
// a bad or busy address is an error naming the flag, known before anything is sent.
func listenMetrics(addr string) (*prom.Server, error) {
	if err := checkMetricsAddr(addr); err != nil {
		return nil, err
	}
	s, err := prom.ListenOn(addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	return s, nil
}
