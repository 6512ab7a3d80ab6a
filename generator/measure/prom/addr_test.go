package prom

import (
	"errors"
	"testing"
)

func TestCheckAddr(t *testing.T) {
	for addr, want := range map[string]string{
		"":               "",
		":9100":          "",
		"127.0.0.1:0":    "",
		"nope":           `metrics address "nope": want HOST:PORT, e.g. 127.0.0.1:9100 or :9100`,
		":99999":         `metrics address ":99999": port "99999" is not a number from 0 to 65535`,
		"localhost:http": `metrics address "localhost:http": port "http" is not a number from 0 to 65535`,
	} {
		err := CheckAddr(addr)
		if ae := (*AddrError)(nil); err != nil && (!errors.As(err, &ae) || ae.Addr != addr) {
			t.Errorf("CheckAddr(%q) = %v, not an *AddrError of the address", addr, err)
		}
		if got := ""; err != nil {
			got = err.Error()
			if got != want {
				t.Errorf("CheckAddr(%q) = %q, want %q", addr, got, want)
			}
		} else if want != "" {
			t.Errorf("CheckAddr(%q) = nil, want %q", addr, want)
		}
	}
}
