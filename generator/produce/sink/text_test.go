package sink

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestCompressionText(t *testing.T) {
	for _, c := range []Compression{CompressionNone, CompressionGzip, CompressionSnappy, CompressionLZ4, CompressionZstd} {
		text, err := c.MarshalText()
		if err != nil || string(text) != string(c) || c.String() != string(c) {
			t.Errorf("%s: MarshalText = %q, %v; String = %q", c, text, err, c.String())
		}
		var back Compression
		if err := back.UnmarshalText(text); err != nil || back != c {
			t.Errorf("%q read back as %q, %v", text, back, err)
		}
		set := CompressionLZ4
		if err := set.Set(string(c)); err != nil || set != c {
			t.Errorf("Set(%q) = %q, %v", c, set, err)
		}
	}
	for _, bad := range []string{"", "brotli", "LZ4", " lz4"} {
		c := CompressionZstd
		err := c.Set(bad)
		if err == nil || !strings.Contains(err.Error(), "want none, gzip, snappy, lz4 or zstd") {
			t.Errorf("Set(%q) = %v; want an error listing the codecs", bad, err)
		}
		if c != CompressionZstd {
			t.Errorf("Set(%q) failed but changed the codec to %q", bad, c)
		}
	}
	var cfg struct {
		Compression Compression `yaml:"compression"`
	}
	if err := yaml.Unmarshal([]byte("compression: zstd\n"), &cfg); err != nil || cfg.Compression != CompressionZstd {
		t.Errorf("yaml compression: zstd = %q, %v", cfg.Compression, err)
	}
	if err := yaml.Unmarshal([]byte("compression: brotli\n"), &cfg); err == nil {
		t.Error("yaml compression: brotli accepted")
	}
}

func TestBrokersText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Brokers
		text string
	}{
		{"a:9092", Brokers{"a:9092"}, "a:9092"},
		{"a:9092,b:9092", Brokers{"a:9092", "b:9092"}, "a:9092,b:9092"},
		{" a:9092 , ,b:9092, ", Brokers{"a:9092", "b:9092"}, "a:9092,b:9092"},
		{"", nil, ""},
		{" , ", nil, ""},
	} {
		if got := ParseBrokers(tc.in); !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("ParseBrokers(%q) = %q, want %q", tc.in, got, tc.want)
		}
		b := Brokers{"old:1"}
		if err := b.Set(tc.in); tc.want == nil && !errors.Is(err, ErrNoBrokers) || tc.want != nil && (err != nil || !slices.Equal(b, tc.want)) {
			// Issue 31: --brokers '' ran the embedded broker as if no flag were given.
			t.Errorf("Set(%q) = %q, %v; want %q (replaced, not appended), an empty list refused", tc.in, b, err, tc.want)
		}
		b = ParseBrokers(tc.in)
		text, err := b.MarshalText()
		if err != nil || string(text) != tc.text {
			t.Errorf("%q: MarshalText = %q, %v; want %q", tc.in, text, err, tc.text)
		}
		var back Brokers
		if err := back.UnmarshalText(text); err != nil || !slices.Equal(back, b) {
			t.Errorf("%q read back as %q, %v", text, back, err)
		}
	}
	// SeedBrokers splits its entries by the same rule.
	c := defaultCfg()
	SeedBrokers("a:1, b:2", "c:3").apply(&c)
	if want := []string{"a:1", "b:2", "c:3"}; !slices.Equal(c.brokers, want) {
		t.Errorf("SeedBrokers = %q, want %q", c.brokers, want)
	}
}

// TestBrokersPorts: a port no connection can reach is refused by Set and by NewKafka (it
// failed at once as brokers that could not be reached within the connect timeout); a broker
// without a port is left to the client (Kafka's 9092).
func TestBrokersPorts(t *testing.T) {
	for _, in := range []string{"a:0", "a:65536", "a:99999", "a:x", "a:-1", "a:9092,b:"} {
		b := Brokers{"old:1"}
		if err := b.Set(in); err == nil || !strings.Contains(err.Error(), "want 1 to 65535") || !slices.Equal(b, Brokers{"old:1"}) {
			t.Errorf("Set(%q) = %q, %v; want the port refused and the list unchanged", in, b, err)
		}
		if _, err := NewKafka(SeedBrokers(ParseBrokers(in)...)); err == nil || !strings.Contains(err.Error(), "want 1 to 65535") {
			t.Errorf("NewKafka(%q) = %v, want the port refused", in, err)
		}
	}
	for _, in := range []string{"a:1", "a:65535", "kafka", "[::1]:9092", "[::1]"} {
		var b Brokers
		if err := b.Set(in); err != nil {
			t.Errorf("Set(%q) = %v, want it accepted", in, err)
		}
	}
}
