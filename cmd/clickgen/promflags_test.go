package main

import (
	"net"
	"strings"
	"testing"
)

// TestCheckMetricsAddr: a bad --metrics-addr is refused naming the flag, before anything is
// read or sent.
func TestCheckMetricsAddr(t *testing.T) {
	for addr, want := range map[string]string{
		"nope":           `--metrics-addr "nope": want HOST:PORT, e.g. 127.0.0.1:9100 or :9100`,
		":99999":         `--metrics-addr ":99999": port "99999" is not a number from 0 to 65535`,
		"localhost:http": `--metrics-addr "localhost:http": port "http" is not a number from 0 to 65535`,
	} {
		_, errs, code := clickgen(t, "batch", "--day", "0", "--scale", "0.01", "--file", "/dev/null", "--metrics-addr", addr)
		if code != 2 || !strings.HasPrefix(errs, "clickgen: batch: "+want+"\n") {
			t.Errorf("--metrics-addr %q: exit %d, %q; want 2, %q", addr, code, errs, want)
		}
	}
}

// TestListenMetrics: a busy address fails naming the flag, a usage error before anything is
// sent.
func TestListenMetrics(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, errs, code := clickgen(t, "batch", "--day", "0", "--scale", "0.01", "--file", "/dev/null", "--metrics-addr", ln.Addr().String())
	if code != 2 || !strings.HasPrefix(errs, "clickgen: batch: --metrics-addr: ") {
		t.Errorf("--metrics-addr of a busy address: exit %d, %q; want 2 and an error naming --metrics-addr", code, errs)
	}
}
