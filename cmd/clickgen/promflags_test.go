package main

import (
	"strings"
	"testing"
)

// TestCheckMetricsAddr: a bad --metrics-addr is refused naming the flag.
func TestCheckMetricsAddr(t *testing.T) {
	for addr, want := range map[string]string{
		"":               "",
		":9100":          "",
		"127.0.0.1:0":    "",
		"nope":           `--metrics-addr "nope": want HOST:PORT, e.g. 127.0.0.1:9100 or :9100`,
		":99999":         `--metrics-addr ":99999": port "99999" is not a number from 0 to 65535`,
		"localhost:http": `--metrics-addr "localhost:http": port "http" is not a number from 0 to 65535`,
	} {
		err := checkMetricsAddr(addr)
		if got := ""; err != nil {
			got = err.Error()
			if got != want {
				t.Errorf("checkMetricsAddr(%q) = %q, want %q", addr, got, want)
			}
		} else if want != "" {
			t.Errorf("checkMetricsAddr(%q) = nil, want %q", addr, want)
		}
	}
}

// TestListenMetrics: no address serves nothing; a bad or busy address fails naming the flag.
func TestListenMetrics(t *testing.T) {
	if s, err := listenMetrics(""); s != nil || err != nil {
		t.Fatalf(`listenMetrics("") = %v, %v; want no server`, s, err)
	}
	if _, err := listenMetrics("nope"); err == nil || !strings.HasPrefix(err.Error(), `--metrics-addr "nope": `) {
		t.Errorf(`listenMetrics("nope") = %v, want the address refused`, err)
	}
	s, err := listenMetrics("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if _, err := listenMetrics(s.Addr().String()); err == nil || !strings.HasPrefix(err.Error(), "--metrics-addr: ") {
		t.Errorf("listenMetrics a busy address = %v, want an error naming --metrics-addr", err)
	}
}
