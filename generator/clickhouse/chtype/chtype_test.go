package chtype

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for name, want := range map[string]string{
		"UInt64":                           "UInt64",
		"LowCardinality(String)":           "LowCardinality(String)",
		"DateTime('UTC')":                  "DateTime('UTC')",
		"DateTime":                         "DateTime",
		"DateTime64(3, 'UTC')":             "DateTime64(3, 'UTC')",
		"DateTime64(3)":                    "DateTime64(3)",
		"Decimal(18, 2)":                   "Decimal(18, 2)",
		"Decimal(18,2)":                    "Decimal(18, 2)",
		"Decimal64(2)":                     "Decimal(18, 2)",
		"Array(Decimal(18, 2))":            "Array(Decimal(18, 2))",
		"Array(LowCardinality(String))":    "Array(LowCardinality(String))",
		"Nullable(String)":                 "Nullable(String)",
		"LowCardinality(Nullable(String))": "LowCardinality(Nullable(String))",
		"FixedString(3)":                   "FixedString(3)",
		"Array(Array(UInt8))":              "Array(Array(UInt8))",
		"DateTime('Europe/Moscow')":        "DateTime('Europe/Moscow')",
		"Array(Nullable(UInt32))":          "Array(Nullable(UInt32))",
		"Date32":                           "Date32",
	} {
		typ, err := Parse(name)
		if err != nil {
			t.Errorf("Parse(%q): %v", name, err)
			continue
		}
		if got := typ.String(); got != want {
			t.Errorf("Parse(%q).String() = %q, want %q", name, got, want)
		}
	}
	for _, bad := range []string{"", "Map(String, String)", "Tuple(a UInt8)", "Enum8('a' = 1)", "UUID", "IPv4", "Nullable(Array(UInt8))",
		"Decimal(40, 2)", "Decimal(5, 6)", "FixedString(0)", "Array(UInt8", "UInt64)", "DateTime64(10)", "Object('json')",
		"LowCardinality(Array(String))", strings.Repeat("Array(", 20) + "UInt8" + strings.Repeat(")", 20), strings.Repeat("x", 5000)} {
		if typ, err := Parse(bad); err == nil || !errors.Is(err, ErrUnknown) {
			t.Errorf("Parse(%q) = %v, %v; want ErrUnknown", bad, typ, err)
		}
	}
}

// TestSize: every prefix of a value is too short (and says how much more it needs, never
// less than it has), the whole value is exactly its length, garbage is an error.
func TestSize(t *testing.T) {
	str := func(s string) []byte { return append(binary.AppendUvarint(nil, uint64(len(s))), s...) }
	cases := []struct {
		typ string
		v   []byte
	}{
		{"UInt64", make([]byte, 8)},
		{"String", str(strings.Repeat("ж", 200))},
		{"LowCardinality(String)", str("pageview")},
		{"Nullable(String)", append([]byte{0}, str("x")...)},
		{"Nullable(String)", []byte{1}},
		{"Array(String)", append(append([]byte{2}, str("a")...), str("bc")...)},
		{"Array(UInt32)", append([]byte{3}, make([]byte, 12)...)},
		{"Array(Array(UInt8))", []byte{2, 1, 7, 0}},
		{"Decimal(18, 2)", make([]byte, 8)},
		{"Decimal(38, 3)", make([]byte, 16)},
		{"Decimal(9, 4)", make([]byte, 4)},
		{"DateTime64(3, 'UTC')", make([]byte, 8)},
		{"Date", make([]byte, 2)},
		{"FixedString(3)", []byte("abc")},
	}
	for _, c := range cases {
		typ := MustParse(c.typ)
		for k := range len(c.v) {
			n, need, err := typ.Size(c.v[:k])
			if n != 0 || err != nil || need <= k {
				t.Errorf("%s: Size of %d of %d bytes = %d, need %d, %v", c.typ, k, len(c.v), n, need, err)
			}
		}
		if n, _, err := typ.Size(append(c.v, 9, 9)); n != len(c.v) || err != nil {
			t.Errorf("%s: Size = %d, %v; want %d", c.typ, n, err, len(c.v))
		}
	}
	if _, _, err := MustParse("Nullable(UInt8)").Size([]byte{7, 0}); err == nil {
		t.Error("a Nullable flag of 7: no error")
	}
	if _, _, err := MustParse("String").Size(binary.AppendUvarint(nil, 1<<40)); err == nil {
		t.Error("a String of 2^40 bytes: no error")
	}
}

func TestText(t *testing.T) {
	le := binary.LittleEndian
	for _, c := range []struct {
		typ  string
		v    []byte
		want string
	}{
		{"String", append([]byte{5}, "a\x1b]0\n"...), `"a\x1b]0\n"`},
		{"Decimal(18, 2)", le.AppendUint64(nil, 123450), "1234.50"},
		{"Decimal(18, 2)", le.AppendUint64(nil, uint64(1<<64-5)), "-0.05"},
		{"Date", le.AppendUint16(nil, 20605), "2026-06-01"},
		{"DateTime('UTC')", le.AppendUint32(nil, 1780272010), "2026-06-01T00:00:10Z"},
		{"DateTime64(3, 'UTC')", le.AppendUint64(nil, 1780272010123), "2026-06-01T00:00:10.123Z"},
		{"Array(Decimal(18, 2))", append([]byte{1}, le.AppendUint64(nil, 29)...), "[0.29]"},
		{"Nullable(UInt8)", []byte{1}, "NULL"},
		{"Int16", le.AppendUint16(nil, uint16(0xffff)), "-1"},
		{"Float64", le.AppendUint64(nil, 0x4093490000000000), "1234.25"},
	} {
		if got := MustParse(c.typ).Text(c.v, 100); got != c.want {
			t.Errorf("%s % x: %q, want %q", c.typ, c.v, got, c.want)
		}
	}
}

// TestQuote: whatever a store's string holds, it prints as one line of printable text, cut
// with its length said.
func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain":            `"plain"`,
		"\x1b]0;title\x07": `"\x1b]0;title\x07"`,
		"line\nOK: forged": `"line\nOK: forged"`,
		"\xff\xfe":         `"\xff\xfe"`,
		"\u2028\u202e":     `"\u2028\u202e"`,
		"\u0085":           `"\u0085"`,
		"quote\"back\\":    `"quote\"back\\"`,
	} {
		if got := Quote([]byte(in), 100); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
	if got := Quote([]byte(strings.Repeat("я", 10)), 5); got != `"яя"…(20 bytes)` {
		t.Errorf("cut inside a rune: %s", got)
	}
	big := strings.Repeat("x", 20<<20)
	if got := Quote([]byte(big), 64); len(got) > 100 || !strings.HasSuffix(got, "…(20971520 bytes)") {
		t.Errorf("a 20 MB string quoted to %d bytes: %.100s", len(got), got)
	}
}
