// Package chtype reads ClickHouse column types as the server names them ("UInt64",
// "LowCardinality(String)", "DateTime64(3, 'UTC')", "Array(Decimal(18, 2))") and their values
// in RowBinary, the server's plain binary row format: how long one value is, and its text.
//
// Only the types a store of clickgen's contract may hold are known: String, FixedString(N),
// the integers of 8 to 64 bits, Bool, Float32 and Float64, Decimal(P, S) up to P 38, Date,
// Date32, DateTime and DateTime64(P) with or without a time zone, and Array, Nullable and
// LowCardinality of those. [Parse] refuses any other type, so a caller can say which column it
// cannot compare rather than misread its bytes.
//
// RowBinary, as servers from 18.16 to 26.x write it: integers, floats, Date (UInt16 days),
// Date32 (Int32 days), DateTime (UInt32 seconds), DateTime64 (Int64 ticks) and Decimal (the
// unscaled integer, 4, 8 or 16 bytes) little-endian; String as a LEB128 length and the bytes;
// FixedString(N) as N bytes; Array as a LEB128 count and the elements; Nullable as one byte (1
// for NULL) and, when not NULL, the value; LowCardinality(T) as T. Two values of one type are
// equal exactly when their RowBinary bytes are, which is how a store's values are compared
// with planned ones.
//
// Everything here is pure and safe for concurrent use.
package chtype

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind is the family of a [Type].
type Kind uint8

// The kinds of types this package knows.
const (
	String Kind = iota + 1
	FixedString
	Int8
	Int16
	Int32
	Int64
	UInt8
	UInt16
	UInt32
	UInt64
	Bool
	Float32
	Float64
	Decimal
	Date
	Date32
	DateTime
	DateTime64
	Array
	Nullable
	LowCardinality
)

var kindNames = map[string]Kind{
	"String": String, "Int8": Int8, "Int16": Int16, "Int32": Int32, "Int64": Int64,
	"UInt8": UInt8, "UInt16": UInt16, "UInt32": UInt32, "UInt64": UInt64, "Bool": Bool,
	"Float32": Float32, "Float64": Float64, "Date": Date, "Date32": Date32,
}

// Type is one parsed ClickHouse type.
type Type struct {
	Kind Kind
	// N is FixedString's length, Decimal's precision and DateTime64's precision.
	N int
	// Scale is Decimal's scale.
	Scale int
	// TZ is DateTime's and DateTime64's time zone, "" when the type names none.
	TZ string
	// Elem is the type inside Array, Nullable and LowCardinality.
	Elem *Type
}

// ErrUnknown is wrapped by the error of [Parse] for a type this package does not read.
var ErrUnknown = errors.New("a type verify does not compare")

// maxName bounds the type names Parse reads: a store's type name is the store's text.
const maxName = 4096

// Parse reads a type name as system.columns spells it. Decimal32(S), Decimal64(S) and
// Decimal128(S) are Decimal(9, S), Decimal(18, S) and Decimal(38, S). An unknown or malformed
// type is an error wrapping [ErrUnknown].
func Parse(name string) (*Type, error) {
	if len(name) > maxName {
		return nil, fmt.Errorf("%w: a type name of %d bytes", ErrUnknown, len(name))
	}
	p := parser{s: name}
	t, err := p.typ(0)
	if err == nil {
		p.space()
		if p.i != len(p.s) {
			err = fmt.Errorf("%w: %s", ErrUnknown, name)
		}
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// MustParse is Parse for names known to be good; it panics otherwise.
func MustParse(name string) *Type {
	t, err := Parse(name)
	if err != nil {
		panic(err)
	}
	return t
}

type parser struct {
	s string
	i int
}

func (p *parser) space() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *parser) ident() string {
	p.space()
	j := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			p.i++
			continue
		}
		break
	}
	return p.s[j:p.i]
}

func (p *parser) eat(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *parser) int() (int, bool) {
	p.space()
	j := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' && p.i-j < 4 {
		p.i++
	}
	n, err := strconv.Atoi(p.s[j:p.i])
	return n, err == nil
}

// quoted reads a string literal in single quotes, with backslash escapes.
func (p *parser) quoted() (string, bool) {
	if !p.eat('\'') {
		return "", false
	}
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch c {
		case '\'':
			return b.String(), true
		case '\\':
			if p.i >= len(p.s) {
				return "", false
			}
			b.WriteByte(p.s[p.i])
			p.i++
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

func (p *parser) typ(depth int) (*Type, error) {
	bad := func() (*Type, error) { return nil, fmt.Errorf("%w: %s", ErrUnknown, p.s) }
	if depth > 8 {
		return bad()
	}
	name := p.ident()
	if k, ok := kindNames[name]; ok {
		return &Type{Kind: k}, nil
	}
	if !p.eat('(') {
		if name == "DateTime" {
			return &Type{Kind: DateTime}, nil
		}
		return bad()
	}
	t := &Type{}
	switch name {
	case "Array", "Nullable", "LowCardinality":
		elem, err := p.typ(depth + 1)
		if err != nil {
			return nil, err
		}
		t.Kind, t.Elem = map[string]Kind{"Array": Array, "Nullable": Nullable, "LowCardinality": LowCardinality}[name], elem
	case "FixedString":
		n, ok := p.int()
		if !ok || n < 1 {
			return bad()
		}
		t.Kind, t.N = FixedString, n
	case "Decimal":
		prec, ok := p.int()
		if !ok || !p.eat(',') {
			return bad()
		}
		scale, ok2 := p.int()
		if !ok2 {
			return bad()
		}
		t.Kind, t.N, t.Scale = Decimal, prec, scale
	case "Decimal32", "Decimal64", "Decimal128":
		scale, ok := p.int()
		if !ok {
			return bad()
		}
		t.Kind, t.N, t.Scale = Decimal, map[string]int{"Decimal32": 9, "Decimal64": 18, "Decimal128": 38}[name], scale
	case "DateTime":
		tz, ok := p.quoted()
		if !ok {
			return bad()
		}
		t.Kind, t.TZ = DateTime, tz
	case "DateTime64":
		prec, ok := p.int()
		if !ok || prec > 9 {
			return bad()
		}
		t.Kind, t.N = DateTime64, prec
		if p.eat(',') {
			tz, ok := p.quoted()
			if !ok {
				return bad()
			}
			t.TZ = tz
		}
	default:
		return bad()
	}
	if !p.eat(')') {
		return bad()
	}
	if t.Kind == Decimal && (t.N < 1 || t.N > 38 || t.Scale > t.N) {
		return bad()
	}
	if t.Kind == Nullable && (t.Elem.Kind == Array || t.Elem.Kind == Nullable || t.Elem.Kind == LowCardinality) {
		return bad()
	}
	if t.Kind == LowCardinality && t.Elem.Kind == Array {
		return bad()
	}
	return t, nil
}

// String names t as ClickHouse 26.x does: Decimal(P, S), DateTime64(3, 'UTC').
func (t *Type) String() string {
	switch t.Kind {
	case FixedString:
		return fmt.Sprintf("FixedString(%d)", t.N)
	case Decimal:
		return fmt.Sprintf("Decimal(%d, %d)", t.N, t.Scale)
	case DateTime:
		if t.TZ == "" {
			return "DateTime"
		}
		return "DateTime(" + quote(t.TZ) + ")"
	case DateTime64:
		if t.TZ == "" {
			return fmt.Sprintf("DateTime64(%d)", t.N)
		}
		return fmt.Sprintf("DateTime64(%d, %s)", t.N, quote(t.TZ))
	case Array:
		return "Array(" + t.Elem.String() + ")"
	case Nullable:
		return "Nullable(" + t.Elem.String() + ")"
	case LowCardinality:
		return "LowCardinality(" + t.Elem.String() + ")"
	}
	for name, k := range kindNames {
		if k == t.Kind {
			return name
		}
	}
	return "?"
}

func quote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// Base is t without LowCardinality: the type whose RowBinary t's is.
func (t *Type) Base() *Type {
	if t.Kind == LowCardinality {
		return t.Elem
	}
	return t
}

// IsString says whether t holds a String: String, LowCardinality(String), or, with nullable,
// also their Nullable forms.
func (t *Type) IsString(nullable bool) bool {
	t = t.Base()
	if nullable && t.Kind == Nullable {
		t = t.Elem
	}
	return t.Kind == String
}

// Width is the bytes of one value of a fixed-width type: 0 for String, Array and Nullable
// (whose values vary in length).
func (t *Type) Width() int {
	switch t.Kind {
	case Int8, UInt8, Bool:
		return 1
	case Int16, UInt16, Date:
		return 2
	case Int32, UInt32, Float32, Date32, DateTime:
		return 4
	case Int64, UInt64, Float64, DateTime64:
		return 8
	case FixedString:
		return t.N
	case Decimal:
		return DecimalWidth(t.N)
	case LowCardinality:
		return t.Elem.Width()
	}
	return 0
}

// DecimalWidth is the bytes of a Decimal of precision p: 4 up to 9, 8 up to 18, 16 beyond.
func DecimalWidth(p int) int {
	switch {
	case p <= 9:
		return 4
	case p <= 18:
		return 8
	}
	return 16
}

// maxLen bounds a String's or an Array's length in a value: more is not RowBinary of a store
// of ours but a misread.
const maxLen = 1 << 30

// Size says how many bytes the RowBinary value of t at the start of b takes. When b holds
// less than the whole value, Size returns 0 and how many bytes b must hold at least for it to
// tell more (more than len(b)); err is set when the bytes cannot be a value of t.
func (t *Type) Size(b []byte) (n, need int, err error) {
	return t.size(b, 0)
}

func (t *Type) size(b []byte, off int) (n, need int, err error) {
	if w := t.Width(); w > 0 {
		if len(b) < off+w {
			return 0, off + w, nil
		}
		return w, 0, nil
	}
	switch t.Kind {
	case LowCardinality:
		return t.Elem.size(b, off)
	case String:
		l, k := binary.Uvarint(b[off:])
		switch {
		case k == 0:
			return 0, off + 1 + min(9, len(b)-off), nil
		case k < 0 || l > maxLen:
			return 0, 0, fmt.Errorf("chtype: a String of %d bytes: not RowBinary", l)
		}
		if len(b) < off+k+int(l) {
			return 0, off + k + int(l), nil
		}
		return k + int(l), 0, nil
	case Nullable:
		if len(b) < off+1 {
			return 0, off + 1, nil
		}
		if b[off] == 1 {
			return 1, 0, nil
		}
		if b[off] != 0 {
			return 0, 0, fmt.Errorf("chtype: a Nullable flag %d: not RowBinary", b[off])
		}
		m, need, err := t.Elem.size(b, off+1)
		if m == 0 {
			return 0, need, err
		}
		return 1 + m, 0, nil
	case Array:
		l, k := binary.Uvarint(b[off:])
		switch {
		case k == 0:
			return 0, off + 1 + min(9, len(b)-off), nil
		case k < 0 || l > maxLen:
			return 0, 0, fmt.Errorf("chtype: an Array of %d elements: not RowBinary", l)
		}
		if w := t.Elem.Width(); w > 0 {
			total := k + int(l)*w
			if len(b) < off+total {
				return 0, off + total, nil
			}
			return total, 0, nil
		}
		pos := off + k
		for range l {
			m, need, err := t.Elem.size(b, pos)
			if m == 0 {
				return 0, need, err
			}
			pos += m
		}
		return pos - off, 0, nil
	}
	return 0, 0, fmt.Errorf("chtype: %s has no RowBinary reader", t)
}

// Text writes the RowBinary value v of t as a person reads it, in at most max bytes of
// strings (a longer string is cut, its length said) with control characters and invalid UTF-8
// escaped: strings quoted, dates as YYYY-MM-DD, times in UTC with a Z, decimals with their
// scale, arrays in brackets, NULL. v must be one whole value of t.
func (t *Type) Text(v []byte, max int) string {
	var b strings.Builder
	t.text(&b, v, max)
	return b.String()
}

func (t *Type) text(b *strings.Builder, v []byte, max int) int {
	le := binary.LittleEndian
	switch t.Kind {
	case String:
		l, k := binary.Uvarint(v)
		s := v[k : k+int(l)]
		b.WriteString(Quote(s, max))
		return k + int(l)
	case FixedString:
		b.WriteString(Quote(v[:t.N], max))
		return t.N
	case Int8:
		b.WriteString(strconv.Itoa(int(int8(v[0]))))
	case Int16:
		b.WriteString(strconv.Itoa(int(int16(le.Uint16(v)))))
	case Int32:
		b.WriteString(strconv.Itoa(int(int32(le.Uint32(v)))))
	case Int64:
		b.WriteString(strconv.FormatInt(int64(le.Uint64(v)), 10))
	case UInt8:
		b.WriteString(strconv.Itoa(int(v[0])))
	case Bool:
		b.WriteString(strconv.FormatBool(v[0] != 0))
	case UInt16:
		b.WriteString(strconv.Itoa(int(le.Uint16(v))))
	case UInt32:
		b.WriteString(strconv.FormatUint(uint64(le.Uint32(v)), 10))
	case UInt64:
		b.WriteString(strconv.FormatUint(le.Uint64(v), 10))
	case Float32:
		b.WriteString(strconv.FormatFloat(float64(math.Float32frombits(le.Uint32(v))), 'g', -1, 32))
	case Float64:
		b.WriteString(strconv.FormatFloat(math.Float64frombits(le.Uint64(v)), 'g', -1, 64))
	case Decimal:
		b.WriteString(decimalText(v[:t.Width()], t.Scale))
	case Date:
		b.WriteString(dayText(int64(le.Uint16(v))))
	case Date32:
		b.WriteString(dayText(int64(int32(le.Uint32(v)))))
	case DateTime:
		b.WriteString(time.Unix(int64(le.Uint32(v)), 0).UTC().Format("2006-01-02T15:04:05Z"))
	case DateTime64:
		b.WriteString(ticksText(int64(le.Uint64(v)), t.N))
	case LowCardinality:
		return t.Elem.text(b, v, max)
	case Nullable:
		if v[0] == 1 {
			b.WriteString("NULL")
			return 1
		}
		return 1 + t.Elem.text(b, v[1:], max)
	case Array:
		l, k := binary.Uvarint(v)
		pos := k
		b.WriteByte('[')
		for i := range int(l) {
			if i > 0 {
				b.WriteByte(',')
			}
			if b.Len() > 4*max+64 {
				fmt.Fprintf(b, "… %d elements]", l)
				n, _, _ := t.size(v, 0)
				return n
			}
			pos += t.Elem.text(b, v[pos:], max)
		}
		b.WriteByte(']')
		return pos
	}
	return t.Width()
}

func dayText(d int64) string { return time.Unix(d*86400, 0).UTC().Format("2006-01-02") }

// ticksText writes ticks of 10^-p seconds as an instant in UTC.
func ticksText(ticks int64, p int) string {
	unit := int64(1)
	for range p {
		unit *= 10
	}
	sec, frac := ticks/unit, ticks%unit
	if frac < 0 {
		sec, frac = sec-1, frac+unit
	}
	s := time.Unix(sec, 0).UTC().Format("2006-01-02T15:04:05")
	if p > 0 {
		s += fmt.Sprintf(".%0*d", p, frac)
	}
	return s + "Z"
}

// decimalText writes an unscaled little-endian two's-complement integer with scale digits
// after the point.
func decimalText(v []byte, scale int) string {
	var n big.Int
	be := make([]byte, len(v))
	for i := range v {
		be[len(v)-1-i] = v[i]
	}
	n.SetBytes(be)
	if len(v) > 0 && v[len(v)-1]&0x80 != 0 {
		n.Sub(&n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(v))))
	}
	s := n.String()
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if scale > 0 {
		for len(s) <= scale {
			s = "0" + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Quote writes s in double quotes as a person reads it: control characters, quotes,
// backslashes and invalid UTF-8 escaped (\n, \x1b, \u2028), cut after max bytes of s with
// "…" and s's whole length. Whatever s holds, the result is one line of printable text.
func Quote(s []byte, max int) string {
	var b strings.Builder
	b.WriteByte('"')
	rest := escape(&b, s, max, true)
	b.WriteByte('"')
	b.WriteString(rest)
	return b.String()
}

// Escape is [Quote] without the quotes: s as one line of printable text, its control
// characters, backslashes and invalid UTF-8 escaped, cut after max bytes with its length said.
func Escape(s []byte, max int) string {
	var b strings.Builder
	b.WriteString(escape(&b, s, max, false))
	return b.String()
}

// escape writes s's first max bytes escaped and returns what says it was cut ("" if not).
func escape(b *strings.Builder, s []byte, max int, quotes bool) string {
	whole := len(s)
	if whole > max {
		cut := max
		for cut > 0 && cut > max-4 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(b, `\x%02x`, s[0])
		case r == '\\' || quotes && r == '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0, r == 0x2028, r == 0x2029, r == 0x200e, r == 0x200f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0xfeff:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		s = s[n:]
	}
	if whole > max {
		return fmt.Sprintf("…(%d bytes)", whole)
	}
	return ""
}
