package intake

import (
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// This file is a JSON reader that accepts exactly what ClickHouse 26.7's JSON functions
// (JSONType, JSONExtractKeys, JSONExtract…) accept: they parse with simdjson's DOM parser
// (allow_simdjson = 1), and any parse error makes them return their default ('Null', [], NULL,
// ''). Measured on the real engine (chDB 26.7.3, see the chdb package's tests):
//
//   - the whole input must be valid UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
//     above U+10FFFF), inside strings as well as outside;
//   - one UTF-8 byte-order mark is skipped at the very start (EF BB BF {} is an object); a BOM
//     anywhere else, a second BOM, or a BOM after whitespace is an error;
//   - whitespace is only space, \t, \n, \r, before and after the root value; nothing else may
//     follow the root value (no NUL, no second document);
//   - strings: raw bytes below 0x20 are errors; escapes are \" \\ \/ \b \f \n \r \t \uXXXX
//     (any hex case); a high surrogate must be followed by \u and a low surrogate, a lone low
//     surrogate is an error; \u0000 is fine;
//   - numbers follow RFC 8259 strictly (no leading zeros, no "1.", no ".5", no "+1", no NaN);
//     an integer (no '.', 'e', 'E') is Int64 when it fits, else UInt64 when non-negative and it
//     fits, else the whole document is an error (18446744073709551616, -9223372036854775809);
//     other numbers are doubles, correctly rounded; overflow to infinity (1E400) is an error,
//     underflow (1e-400) is 0;
//   - nesting: every non-empty object or array opens a level, and reaching level 1024 is an
//     error (simdjson's default max depth); empty containers never count;
//   - duplicate keys are kept: JSONExtractKeys lists them all, lookups take the first.

// kind is the JSON type of a value, as JSONType names it.
type kind uint8

const (
	kindNull   kind = iota // also what JSONType says of unparsable input
	kindBool               // 'Bool'
	kindInt64              // 'Int64'
	kindUInt64             // 'UInt64': a non-negative integer above MaxInt64
	kindDouble             // 'Double'
	kindString             // 'String'
	kindArray              // 'Array'
	kindObject             // 'Object'
)

// value is one parsed JSON value. Scalars carry their content; containers only their kind.
// Every value knows where it stands in the document: [lo, hi) of its bytes.
type value struct {
	kind   kind
	b      bool
	i      int64
	u      uint64
	f      float64
	s      string // unescaped content of a string
	lo, hi int32
}

// member is one key of the root object with its value.
type member struct {
	key string
	val value
}

// maxDepth is simdjson's DEFAULT_MAX_DEPTH.
const maxDepth = 1024

// document is a parsed message: the root value and, when it is an object, its members in order
// (duplicates included).
type document struct {
	root    value
	members []member
	// ordered, once known (see inOrder), says the members are the contract's keys in its
	// order: 0 unknown, 1 yes, 2 no.
	ordered int8
}

// get returns the first member named key, like JSONExtract's lookup.
func (d *document) get(key string) (value, bool) {
	for i := range d.members {
		if d.members[i].key == key {
			return d.members[i].val, true
		}
	}
	return value{}, false
}

// parseDocument parses raw as ClickHouse's simdjson would. ok is false when ClickHouse would
// consider the input unparsable.
func parseDocument(raw []byte) (d document, ok bool) { return parseInto(raw, nil, false) }

// parseInto is parseDocument appending the members to members[:0]; with alias, a string
// without escapes is raw's own bytes, not a copy (raw must then not change while the
// document is used).
func parseInto(raw []byte, members []member, alias bool) (d document, ok bool) {
	d.members = members[:0]
	if !utf8.Valid(raw) {
		return d, false
	}
	p := parser{b: raw, alias: alias}
	if len(raw) >= 3 && raw[0] == 0xEF && raw[1] == 0xBB && raw[2] == 0xBF {
		p.i = 3
	}
	p.ws()
	if p.i >= len(p.b) {
		return d, false
	}
	if p.b[p.i] == '{' {
		d.root.kind = kindObject
		if !p.object(0, &d.members) {
			return document{}, false
		}
	} else {
		v, ok := p.value(0)
		if !ok {
			return document{}, false
		}
		d.root = v
	}
	p.ws()
	if p.i != len(p.b) {
		return document{}, false
	}
	return d, true
}

type parser struct {
	b     []byte
	i     int
	alias bool // strings without escapes are b's bytes (see parseInto)
}

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peekAfterWS reports the next non-whitespace byte without consuming anything.
func (p *parser) peekAfterWS() (byte, bool) {
	for j := p.i; j < len(p.b); j++ {
		switch c := p.b[j]; c {
		case ' ', '\t', '\n', '\r':
		default:
			return c, true
		}
	}
	return 0, false
}

// value parses one value at p.i (whitespace already skipped). depth is the number of
// non-empty containers enclosing it.
func (p *parser) value(depth int) (value, bool) {
	start := p.i
	v, ok := p.scalarOrContainer(depth)
	v.lo, v.hi = int32(start), int32(p.i)
	return v, ok
}

func (p *parser) scalarOrContainer(depth int) (value, bool) {
	if p.i >= len(p.b) {
		return value{}, false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return value{kind: kindObject}, p.object(depth, nil)
	case c == '[':
		return value{kind: kindArray}, p.array(depth)
	case c == '"':
		s, ok := p.str()
		return value{kind: kindString, s: s}, ok
	case c == 't':
		return value{kind: kindBool, b: true}, p.atom("true")
	case c == 'f':
		return value{kind: kindBool}, p.atom("false")
	case c == 'n':
		return value{kind: kindNull}, p.atom("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return value{}, false
}

func (p *parser) atom(word string) bool {
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
		return false
	}
	p.i += len(word)
	return p.delimited()
}

// delimited reports whether a scalar ends here: end of input, whitespace or a structural byte.
// (Without it "truex" or "1x" would pass; simdjson reads them as one bad token.)
func (p *parser) delimited() bool {
	if p.i >= len(p.b) {
		return true
	}
	switch p.b[p.i] {
	case ' ', '\t', '\n', '\r', ',', ':', ']', '}':
		return true
	}
	return false
}

// object parses an object at p.i; members, when not nil, receives its keys and values.
func (p *parser) object(depth int, members *[]member) bool {
	p.i++ // '{'
	if c, ok := p.peekAfterWS(); ok && c == '}' {
		p.ws()
		p.i++
		return true
	}
	depth++
	if depth >= maxDepth {
		return false
	}
	for {
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return false
		}
		key, ok := p.str()
		if !ok {
			return false
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return false
		}
		p.i++
		p.ws()
		v, ok := p.value(depth)
		if !ok {
			return false
		}
		if members != nil {
			*members = append(*members, member{key: key, val: v})
		}
		p.ws()
		if p.i >= len(p.b) {
			return false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return true
		default:
			return false
		}
	}
}

func (p *parser) array(depth int) bool {
	p.i++ // '['
	if c, ok := p.peekAfterWS(); ok && c == ']' {
		p.ws()
		p.i++
		return true
	}
	depth++
	if depth >= maxDepth {
		return false
	}
	for {
		p.ws()
		if _, ok := p.value(depth); !ok {
			return false
		}
		p.ws()
		if p.i >= len(p.b) {
			return false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return true
		default:
			return false
		}
	}
}

// str parses a string at p.i and returns its unescaped content. The input is known to be
// valid UTF-8.
func (p *parser) str() (string, bool) {
	p.i++ // opening quote
	start := p.i
	// Fast path: no escapes.
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			var s string
			if p.alias {
				s = unsafe.String(unsafe.SliceData(p.b[start:]), p.i-start)
			} else {
				s = string(p.b[start:p.i])
			}
			p.i++
			return s, true
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", false
		}
		p.i++
	}
	buf := append([]byte(nil), p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(buf), true
		case c < 0x20:
			return "", false
		case c != '\\':
			buf = append(buf, c)
			p.i++
			continue
		}
		// escape
		if p.i+1 >= len(p.b) {
			return "", false
		}
		e := p.b[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", false
			}
			switch {
			case r >= 0xD800 && r <= 0xDBFF:
				if p.i+1 >= len(p.b) || p.b[p.i] != '\\' || p.b[p.i+1] != 'u' {
					return "", false
				}
				p.i += 2
				lo, ok := p.hex4()
				if !ok || lo < 0xDC00 || lo > 0xDFFF {
					return "", false
				}
				r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
			case r >= 0xDC00 && r <= 0xDFFF:
				return "", false
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", false
		}
	}
	return "", false
}

func (p *parser) hex4() (rune, bool) {
	if len(p.b)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	p.i += 4
	return r, true
}

// number parses an RFC 8259 number and types it the way simdjson does.
func (p *parser) number() (value, bool) {
	start := p.i
	b := p.b
	neg := false
	if b[p.i] == '-' {
		neg = true
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(b) && b[p.i] >= '0' && b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i >= len(b) {
		return value{}, false
	}
	if b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return value{}, false
	}
	integer := true
	if p.i < len(b) && b[p.i] == '.' {
		integer = false
		p.i++
		if digits() == 0 {
			return value{}, false
		}
	}
	if p.i < len(b) && (b[p.i] == 'e' || b[p.i] == 'E') {
		integer = false
		p.i++
		if p.i < len(b) && (b[p.i] == '+' || b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return value{}, false
		}
	}
	if !p.delimited() {
		return value{}, false
	}
	tok := unsafe.String(&b[start], p.i-start) // only read here: no copy
	if integer {
		if neg {
			i, err := strconv.ParseInt(tok, 10, 64)
			if err != nil {
				return value{}, false
			}
			return value{kind: kindInt64, i: i}, true
		}
		u, err := strconv.ParseUint(tok, 10, 64)
		if err != nil {
			return value{}, false
		}
		if u <= math.MaxInt64 {
			return value{kind: kindInt64, i: int64(u)}, true
		}
		return value{kind: kindUInt64, u: u}, true
	}
	f, _ := strconv.ParseFloat(tok, 64) // the grammar is checked; only range errors remain
	if math.IsInf(f, 0) {
		return value{}, false
	}
	return value{kind: kindDouble, f: f}, true
}

// parseOrdered parses raw when it is a compact object whose keys are exactly keys, in that
// order, without whitespace (every message the generator renders cleanly): the
// same document parseDocument gives, in a single pass that compares each key in place and
// reads scalars without the general parser's per-byte dispatch. ok is false for anything
// else, which the caller then parses with parseInto. Strings alias raw.
func parseOrdered(raw []byte, members []member, keys []string) (d document, ok bool) {
	d.members = members[:0]
	if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' || !utf8.Valid(raw) {
		return d, false
	}
	d.root.kind = kindObject
	p := parser{b: raw, i: 1, alias: true}
	for k, key := range keys {
		// "key":
		if p.i+len(key)+3 > len(raw) || raw[p.i] != '"' || string(raw[p.i+1:p.i+1+len(key)]) != key ||
			raw[p.i+1+len(key)] != '"' || raw[p.i+2+len(key)] != ':' {
			return d, false
		}
		p.i += len(key) + 3
		start := p.i
		var v value
		switch c := raw[p.i]; {
		case c == '"':
			j := p.i + 1
			for j < len(raw) && raw[j] != '"' && raw[j] != '\\' && raw[j] >= 0x20 {
				j++
			}
			if j < len(raw) && raw[j] == '"' {
				v = value{kind: kindString, s: unsafe.String(unsafe.SliceData(raw[p.i+1:]), j-p.i-1)}
				p.i = j + 1
				break
			}
			s, ok := p.str() // an escape (or a control byte, which fails): the general reading
			if !ok {
				return d, false
			}
			v = value{kind: kindString, s: s}
		case c == '-' || c >= '0' && c <= '9':
			var ok bool
			if v, ok = p.number(); !ok {
				return d, false
			}
		default:
			var ok bool
			if v, ok = p.scalarOrContainer(1); !ok {
				return d, false
			}
		}
		v.lo, v.hi = int32(start), int32(p.i)
		d.members = append(d.members, member{key: key, val: v})
		want := byte(',')
		if k == len(keys)-1 {
			want = '}'
		}
		if p.i >= len(raw) || raw[p.i] != want {
			return d, false
		}
		p.i++
	}
	if p.i != len(raw) {
		return d, false
	}
	d.ordered = 1
	return d, true
}
