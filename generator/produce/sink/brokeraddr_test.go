package sink

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestBrokerAddressRefused is issue 35's P11 and S4: broker entries such as
// `http://127.0.0.1:9092`, `::1:9092`, `'a b:1'`, a 100 000-character host, or one holding
// user information (`alice:PW@host:9092`, `sasl://alice:PW@…`) were taken as host names: a
// DNS retry for the whole connect timeout, exit 1, the host (the password) printed in full,
// twice. Each is refused by Set and by NewKafka at once, naming why; the refusal never shows
// what stands before an "@" (a password may hold any character, a comma too) and cuts a long
// address to 64 bytes with its length said.
func TestBrokerAddressRefused(t *testing.T) {
	const pw = "PW-s3cret"
	long := strings.Repeat("h", 100000) + ":9092"
	for _, tc := range []struct {
		in   string
		want error
	}{
		{"http://127.0.0.1:9092", ErrBrokerScheme},
		{"PLAINTEXT://kafka:9092", ErrBrokerScheme},
		{"alice:" + pw + "@host:9092", ErrBrokerUserInfo},
		{"alice@host:9092", ErrBrokerUserInfo},
		{"sasl://alice:" + pw + "@host:9092", ErrBrokerUserInfo},
		{"k1:9092,alice:" + pw + "@host:9092", ErrBrokerUserInfo},
		{"alice:" + pw + ",x@host:9092", ErrBrokerUserInfo}, // a comma in the password
		{"alice:" + pw + "@h@host:9092", ErrBrokerUserInfo},
		{"::1:9092", ErrBrokerIPv6},
		{"fe80::1", ErrBrokerIPv6},
		{"[kafka]:9092", ErrBrokerIPv6},
		{"a b:1", ErrBrokerSpace},
		{"a\tb:1", ErrBrokerSpace},
		{"k:9092\x1b]0;x\a", ErrBrokerSpace},
		{long, ErrBrokerLong},
		{":9092", ErrBrokerHost},
		{"[]:9092", ErrBrokerHost},
		{"k:", ErrBrokerPort},
		{"k:0", ErrBrokerPort},
	} {
		b := Brokers{"old:1"}
		err := b.Set(tc.in)
		var be *BrokerError
		if !errors.Is(err, tc.want) || !errors.As(err, &be) || !slices.Equal(b, Brokers{"old:1"}) {
			t.Errorf("Set(%.80q) = %v; want %v, the list unchanged", tc.in, err, tc.want)
			continue
		}
		if strings.Contains(err.Error(), pw) || len(be.Shown) > 64+len("… (100005 bytes)") {
			t.Errorf("Set(%.80q): the refusal shows %q", tc.in, err)
		}
		if !strings.Contains(tc.in, "@") { // split first: the same entries through NewKafka
			if _, err := NewKafka(SeedBrokers(ParseBrokers(tc.in)...)); !errors.Is(err, tc.want) || strings.Contains(err.Error(), pw) {
				t.Errorf("NewKafka(%.80q) = %.300v; want %v", tc.in, err, tc.want)
			}
		}
	}
	for _, in := range []string{"k:9092", "kafka", "10.0.0.1:9092", "[::1]:9092", "[::1]", "[fe80::1%eth0]:9092", "k1:9092, k2:9093",
		strings.Repeat("h", MaxHostLen) + ":9092"} {
		var b Brokers
		if err := b.Set(in); err != nil {
			t.Errorf("Set(%.80q) = %v; want accepted", in, err)
		}
	}
}

// TestShownBroker: what stands before the last "@" is masked, a scheme kept, a long address cut
// with its length.
func TestShownBroker(t *testing.T) {
	for in, want := range map[string]string{
		"alice:PW@host:9092":        "xxxxx@host:9092",
		"sasl://alice:PW@host:9092": "sasl://xxxxx@host:9092",
		"a:P,W@x@host:9092":         "xxxxx@host:9092",
		"k:9092":                    "k:9092",
		strings.Repeat("h", 70):     strings.Repeat("h", 64) + "… (70 bytes)",
	} {
		if got := ShownBroker(in); got != want {
			t.Errorf("ShownBroker(%q) = %q, want %q", in, got, want)
		}
	}
}
